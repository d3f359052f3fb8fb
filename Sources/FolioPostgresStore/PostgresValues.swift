import FolioModel
import FolioStores
import Foundation

/// Attribute values as the text PostgreSQL reads for their columns
/// (`Formats/postgres-store.md` §2): integers and booleans as `bigint`, doubles, floats and
/// dates (seconds since 2001-01-01) as `double precision`, decimals as `numeric`, strings and
/// URIs as `text`, UUIDs, binary data (with Core Data's marker byte 1 where the attribute
/// allows external storage) and transformable values as `bytea`.
enum PostgresValues {
  /// `value` as a statement parameter, `nil` for NULL.
  ///
  /// - Throws: `StoreError.typeMismatch` for text holding NUL, which PostgreSQL cannot store.
  static func parameter(
    _ value: AttributeValue?, attribute: AttributeDescription, entity: String
  ) throws(StoreError) -> String? {
    guard let value else { return nil }
    switch value {
    case .integer(let number): return String(number)
    case .boolean(let flag): return flag ? "1" : "0"
    case .double(let number): return double(number)
    case .float(let number): return double(Double(number))
    case .date(let date): return double(date.timeIntervalSinceReferenceDate)
    case .decimal(let number): return number.isNaN ? "NaN" : "\(number)"
    case .string(let text):
      guard !text.utf8.contains(0) else {
        throw StoreError(
          .typeMismatch, "PostgreSQL's text cannot hold a NUL character",
          at: InputLocation(entity: entity, property: attribute.name))
      }
      return text
    case .uri(let url): return url.absoluteString
    case .uuid(let uuid): return bytea(withUnsafeBytes(of: uuid.uuid) { Data($0) })
    case .binaryData(let bytes):
      return bytea(attribute.allowsExternalBinaryDataStorage ? Data([1]) + bytes : bytes)
    case .transformable(let bytes): return bytea(bytes)
    case .objectID, .composite: return nil
    }
  }

  static func double(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
    return "\(value)"
  }

  /// `bytea`'s hex input: `\x0a1b`.
  static func bytea(_ bytes: Data) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
    text.reserveCapacity(2 + bytes.count * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}
