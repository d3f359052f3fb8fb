import Foundation

/// Builds a binary property list: ``add(_:)`` numbers the objects of a value, top object
/// first, then ``serialized(top:)`` lays them out with the narrowest offsets and references.
///
/// Equal leaves are written once. Strings are told apart by their UTF-8 bytes, not by Swift's
/// `==` (which equates canonically equivalent strings), and reals and dates by their bits, so
/// that sharing never changes a value read back.
struct BinaryPropertyListWriter {
  private enum Object {
    case leaf(PropertyListValue)
    case array([Int])
    case dictionary(keys: [Int], values: [Int])
    case uid(UInt64)
  }

  /// Whether a dictionary whose one entry is `"CF$UID"` with a non-negative integer is written
  /// as a UID object, as NSKeyedArchiver's references are (the XML form of a UID is such a
  /// dictionary). Off for other property lists, whose dictionaries stay dictionaries.
  var writesUIDs = false

  private enum LeafKey: Hashable {
    case uid(UInt64)
    case string([UInt8])
    case integer(Int64)
    case real(UInt64)
    case boolean(Bool)
    case date(UInt64)
    case data(Data)
  }

  private var objects: [Object] = []
  private var leaves: [LeafKey: Int] = [:]

  /// Adds `value` and everything in it; returns its object number.
  mutating func add(_ value: PropertyListValue) -> Int {
    let key: LeafKey
    switch value {
    case .array(let elements):
      let number = objects.count
      objects.append(.array([]))
      let references = elements.map { add($0) }
      objects[number] = .array(references)
      return number
    case .dictionary(let entries)
    where writesUIDs && entries.count == 1 && Self.uid(entries["CF$UID"]) != nil:
      let uid = Self.uid(entries["CF$UID"]) ?? 0
      if let known = leaves[.uid(uid)] { return known }
      objects.append(.uid(uid))
      leaves[.uid(uid)] = objects.count - 1
      return objects.count - 1
    case .dictionary(let entries):
      let number = objects.count
      objects.append(.array([]))
      let sorted = entries.sorted { $0.key < $1.key }
      let keys = sorted.map { add(.string($0.key)) }
      let values = sorted.map { add($0.value) }
      objects[number] = .dictionary(keys: keys, values: values)
      return number
    case .string(let text): key = .string(Array(text.utf8))
    case .integer(let number): key = .integer(number)
    case .real(let number): key = .real(number.bitPattern)
    case .boolean(let flag): key = .boolean(flag)
    case .date(let date): key = .date(date.timeIntervalSinceReferenceDate.bitPattern)
    case .data(let data): key = .data(data)
    }
    if let known = leaves[key] { return known }
    let number = objects.count
    objects.append(.leaf(value))
    leaves[key] = number
    return number
  }

  private static func uid(_ value: PropertyListValue?) -> UInt64? {
    guard case .integer(let number)? = value, number >= 0 else { return nil }
    return UInt64(number)
  }

  /// The property list of every object added, with `top` as its top object.
  func serialized(top: Int) -> Data {
    let referenceSize = Self.width(of: UInt64(max(objects.count - 1, 0)))
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    offsets.reserveCapacity(objects.count)
    for object in objects {
      offsets.append(bytes.count)
      switch object {
      case .leaf(let value):
        Self.append(value, to: &bytes)
      case .uid(let value):
        // 0x8n: a UID of n + 1 bytes.
        let size = Self.width(of: value)
        bytes.append(0x80 | UInt8(size - 1))
        Self.appendUnsigned(value, size: size, to: &bytes)
      case .array(let references):
        Self.appendMarker(0xA, count: references.count, to: &bytes)
        for reference in references {
          Self.appendUnsigned(UInt64(reference), size: referenceSize, to: &bytes)
        }
      case .dictionary(let keys, let values):
        Self.appendMarker(0xD, count: keys.count, to: &bytes)
        for reference in keys + values {
          Self.appendUnsigned(UInt64(reference), size: referenceSize, to: &bytes)
        }
      }
    }
    let tableOffset = bytes.count
    let offsetSize = Self.width(of: UInt64(offsets.last ?? 0))
    for offset in offsets { Self.appendUnsigned(UInt64(offset), size: offsetSize, to: &bytes) }
    bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
    Self.appendUnsigned(UInt64(objects.count), size: 8, to: &bytes)
    Self.appendUnsigned(UInt64(top), size: 8, to: &bytes)
    Self.appendUnsigned(UInt64(tableOffset), size: 8, to: &bytes)
    return Data(bytes)
  }

  private static func append(_ value: PropertyListValue, to bytes: inout [UInt8]) {
    switch value {
    case .string(let text):
      let utf8 = Array(text.utf8)
      if utf8.allSatisfy({ $0 < 0x80 }) {
        appendMarker(0x5, count: utf8.count, to: &bytes)
        bytes += utf8
      } else {
        let units = Array(text.utf16)
        appendMarker(0x6, count: units.count, to: &bytes)
        for unit in units { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
      }
    case .integer(let number):
      appendInteger(number, to: &bytes)
    case .real(let number):
      bytes.append(0x23)
      appendUnsigned(number.bitPattern, size: 8, to: &bytes)
    case .boolean(let flag):
      bytes.append(flag ? 0x09 : 0x08)
    case .date(let date):
      bytes.append(0x33)
      appendUnsigned(date.timeIntervalSinceReferenceDate.bitPattern, size: 8, to: &bytes)
    case .data(let data):
      appendMarker(0x4, count: data.count, to: &bytes)
      bytes += data
    case .array, .dictionary:
      preconditionFailure("a property list container written as a leaf")
    }
  }

  /// An integer object: the smallest of 1, 2, 4 or 8 bytes, and 8 for a negative number.
  private static func appendInteger(_ number: Int64, to bytes: inout [UInt8]) {
    let size = number < 0 ? 8 : width(of: UInt64(number))
    bytes.append(0x10 | UInt8(size.trailingZeroBitCount))
    appendUnsigned(UInt64(bitPattern: number), size: size, to: &bytes)
  }

  /// A marker with `kind` in its high nibble and `count` in its low one, or 0xF and the count
  /// as an integer object when it is 15 or more.
  private static func appendMarker(_ kind: UInt8, count: Int, to bytes: inout [UInt8]) {
    if count < 15 {
      bytes.append(kind << 4 | UInt8(count))
    } else {
      bytes.append(kind << 4 | 0x0F)
      appendInteger(Int64(count), to: &bytes)
    }
  }

  /// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
  private static func width(of value: UInt64) -> Int {
    switch value {
    case ..<(1 << 8): 1
    case ..<(1 << 16): 2
    case ..<(1 << 32): 4
    default: 8
    }
  }

  private static func appendUnsigned(_ value: UInt64, size: Int, to bytes: inout [UInt8]) {
    for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
    }
  }
}
