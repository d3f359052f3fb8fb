import FolioModel
internal import FolioSupport
import Foundation

// The reader's leaf objects — null, booleans, integers, reals, dates, data, strings, UIDs —
// and the checked reading of counts and bytes that containers share.

extension BinaryPropertyListReader {
  /// The leaf object `number` at `offset`, whose marker is `marker`.
  func leaf(_ number: Int, at offset: Int, marker: UInt8) throws(StoreError)
    -> PropertyListNode
  {
    let low = Int(marker & 0x0F)
    let content = offset + 1
    switch (marker >> 4, low) {
    case (0x0, 0x0), (0x0, 0xF): return .null
    case (0x0, 0x8): return .boolean(false)
    case (0x0, 0x9): return .boolean(true)
    case (0x1, 0...4):
      let size = 1 << low
      try need(size, at: content, for: number, Self.sized(size, "integer"), offset: offset)
      return .integer(try integer(of: number, at: content, size: size, offset: offset))
    case (0x2, 2):
      try need(4, at: content, for: number, "a 4-byte real", offset: offset)
      let bits = UInt32(truncatingIfNeeded: Self.unsigned(bytes, at: content, size: 4))
      return .real(Double(Float(bitPattern: bits)))
    case (0x2, 3):
      try need(8, at: content, for: number, "an 8-byte real", offset: offset)
      return .real(Double(bitPattern: Self.unsigned(bytes, at: content, size: 8)))
    case (0x3, 3):
      try need(8, at: content, for: number, "a date", offset: offset)
      let seconds = Double(bitPattern: Self.unsigned(bytes, at: content, size: 8))
      return .date(Date(timeIntervalSinceReferenceDate: seconds))
    case (0x4, _):
      let (count, start) = try count(of: number, at: offset, marker: marker)
      try need(count, at: start, for: number, "data of \(count) bytes", offset: offset)
      return .data(Data(bytes[start..<start + count]))
    case (0x5, _):
      let (count, start) = try count(of: number, at: offset, marker: marker)
      try need(count, at: start, for: number, "an ASCII string of \(count) bytes", offset: offset)
      let text = bytes[start..<start + count]
      guard text.allSatisfy({ $0 < 0x80 }) else {
        throw malformed("object \(number) is an ASCII string with a byte over 0x7F", at: offset)
      }
      return .string(String(decoding: text, as: UTF8.self))
    case (0x6, _):
      let (count, start) = try count(of: number, at: offset, marker: marker)
      guard count <= (tableOffset - start) / 2 else {
        throw runsPast(number, "a UTF-16 string of \(count) code units", offset: offset)
      }
      let units = (0..<count).map { index in
        UInt16(bytes[start + 2 * index]) << 8 | UInt16(bytes[start + 2 * index + 1])
      }
      return .string(String(decoding: units, as: UTF16.self))
    case (0x7, _):
      let (count, start) = try count(of: number, at: offset, marker: marker)
      try need(count, at: start, for: number, "a UTF-8 string of \(count) bytes", offset: offset)
      let text = bytes[start..<start + count]
      guard text.withUnsafeBytes({ UTF8Check.isValid($0) }) else {
        throw malformed("object \(number) is a UTF-8 string that is not valid UTF-8", at: offset)
      }
      return .string(String(decoding: text, as: UTF8.self))
    case (0x8, _):
      let size = low + 1
      guard size <= 8 else {
        throw malformed(
          "object \(number) is a UID of \(size) bytes; at most 8 are read", at: offset)
      }
      try need(size, at: content, for: number, Self.sized(size, "UID"), offset: offset)
      return .uid(Self.unsigned(bytes, at: content, size: size))
    default:
      throw malformed(
        "object \(number) has marker \(Self.hex(marker)), which is no property list type",
        at: offset)
    }
  }

  /// An integer object's value: 1, 2 and 4 bytes unsigned, 8 signed, 16 when it fits 64 bits.
  private func integer(of number: Int, at start: Int, size: Int, offset: Int)
    throws(StoreError) -> Int64
  {
    switch size {
    case 16:
      let high = Self.unsigned(bytes, at: start, size: 8)
      let value = Int64(bitPattern: Self.unsigned(bytes, at: start + 8, size: 8))
      guard (high == 0 && value >= 0) || (high == .max && value < 0) else {
        throw malformed(
          "object \(number) is a 16-byte integer outside the 64-bit range", at: offset)
      }
      return value
    case 8:
      return Int64(bitPattern: Self.unsigned(bytes, at: start, size: 8))
    default:
      return Int64(Self.unsigned(bytes, at: start, size: size))
    }
  }

  /// The count of the object at `offset`: its marker's low nibble, or the integer object
  /// after the marker when the nibble is 0xF; and where the object's content starts.
  func count(of number: Int, at offset: Int, marker: UInt8) throws(StoreError)
    -> (count: Int, contentStart: Int)
  {
    let low = Int(marker & 0x0F)
    guard low == 0x0F else { return (low, offset + 1) }
    let countOffset = offset + 1
    guard countOffset < tableOffset else { throw runsPast(number, "a count", offset: offset) }
    let countMarker = bytes[countOffset]
    guard countMarker >> 4 == 0x1, countMarker & 0x0F <= 3 else {
      throw malformed(
        "object \(number) has its count in an object of marker \(Self.hex(countMarker)), not an"
          + " integer of 1 to 8 bytes", at: offset)
    }
    let size = 1 << Int(countMarker & 0x0F)
    try need(size, at: countOffset + 1, for: number, Self.sized(size, "count"), offset: offset)
    let value = Self.unsigned(bytes, at: countOffset + 1, size: size)
    guard value <= UInt64(Int.max) else {
      throw malformed(
        "object \(number) has a negative count \(Int64(bitPattern: value))", at: offset)
    }
    return (Int(value), countOffset + 1 + size)
  }

  // MARK: Bytes

  /// Checks that `size` bytes from `start` lie in the object area.
  func need(
    _ size: Int, at start: Int, for number: Int, _ what: String, offset: Int
  ) throws(StoreError) {
    guard start <= tableOffset, size <= tableOffset - start else {
      throw runsPast(number, what, offset: offset)
    }
  }

  func runsPast(_ number: Int, _ what: String, offset: Int) -> StoreError {
    malformed(
      "object \(number) (\(what)) runs past the objects, which end at byte \(tableOffset)",
      at: offset)
  }

  func malformed(_ message: String, at offset: Int) -> StoreError {
    BinaryPropertyList.malformed(message, file: file, offset: offset)
  }

  /// The big-endian unsigned integer of `size` bytes (1 to 8) at `offset`, which the caller
  /// has checked lie within `bytes`.
  static func unsigned(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
    var value: UInt64 = 0
    for index in offset..<offset + size { value = value << 8 | UInt64(bytes[index]) }
    return value
  }

  /// `byte` as two uppercase hexadecimal digits after `0x`.
  static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    return "0x"
      + String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
  }

  /// `noun` of `size` bytes with its article: "a 4-byte integer", "an 8-byte integer".
  static func sized(_ size: Int, _ noun: String) -> String {
    "\(size == 8 || size == 11 || size == 18 ? "an" : "a") \(size)-byte \(noun)"
  }
}
