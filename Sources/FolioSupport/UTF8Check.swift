/// A UTF-8 check with a fast path for ASCII, as RFC 3629 defines well-formed UTF-8: no
/// overlong forms, no surrogates, nothing above U+10FFFF.
package enum UTF8Check {
  @inlinable @inline(__always)
  package static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

  @inlinable
  package static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let count = bytes.count
    var index = 0
    while index < count {
      if index + 8 <= count,
        bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
      {
        index += 8
        continue
      }
      let lead = bytes[index]
      if lead < 0x80 {
        index += 1
        continue
      }
      func continuation(_ offset: Int) -> UInt8? {
        index + offset < count && isContinuation(bytes[index + offset])
          ? bytes[index + offset] : nil
      }
      switch lead {
      case 0xC2...0xDF:
        guard continuation(1) != nil else { return false }
        index += 2
      case 0xE0...0xEF:
        guard let second = continuation(1), continuation(2) != nil,
          lead != 0xE0 || second >= 0xA0, lead != 0xED || second <= 0x9F
        else { return false }
        index += 3
      case 0xF0...0xF4:
        guard let second = continuation(1), continuation(2) != nil, continuation(3) != nil,
          lead != 0xF0 || second >= 0x90, lead != 0xF4 || second <= 0x8F
        else { return false }
        index += 4
      default:
        return false
      }
    }
    return true
  }
}
