import FolioModel
import Foundation

/// `CAST(value, "Type")`: the conversions of `Formats/predicate-format.md` §3.5, for a
/// constant while parsing and for a value read while evaluating.
extension QueryValue {
  /// The types a `CAST` names.
  static let castTypes: Set<String> = [
    "NSDate", "NSNumber", "NSDecimalNumber", "NSString", "NSUUID", "NSURL", "NSData",
  ]

  /// `CAST(value, "type")` as a constant, or `nil` when the value does not convert.
  static func cast(_ value: QueryValue, to type: String) -> QueryValue? {
    switch (type, value) {
    case ("NSDate", .integer(let seconds)):
      return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
    case ("NSDate", .double(let seconds)):
      return .date(Date(timeIntervalSinceReferenceDate: seconds))
    case ("NSDate", .date): return value
    case ("NSNumber", .integer), ("NSNumber", .double), ("NSNumber", .boolean),
      ("NSNumber", .decimal):
      return value
    case ("NSNumber", .date(let date)): return .double(date.timeIntervalSinceReferenceDate)
    case ("NSNumber", .string(let text)):
      if let integer = Int(text) { return .integer(integer) }
      return Double(text).map { .double($0) }
    case ("NSDecimalNumber", .string(let text)):
      return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { .decimal($0) }
    case ("NSDecimalNumber", .integer(let integer)): return .decimal(Decimal(integer))
    case ("NSDecimalNumber", .double(let number)):
      return QueryValues.Number.double(number).decimal.map { .decimal($0) }
    case ("NSDecimalNumber", .decimal): return value
    case ("NSString", .integer(let integer)): return .string(String(integer))
    // NSNumber's stringValue: a whole double without its ".0".
    case ("NSString", .double(let number)):
      let text = number.description
      return .string(text.hasSuffix(".0") ? String(text.dropLast(2)) : text)
    case ("NSString", .decimal(let number)): return .string(number.description)
    // NSNumber's stringValue of a Boolean.
    case ("NSString", .boolean(let flag)): return .string(flag ? "1" : "0")
    case ("NSString", .uuid(let uuid)): return .string(uuid.uuidString)
    case ("NSString", .uri(let url)): return .string(url.absoluteString)
    case (_, .null): return castTypes.contains(type) ? value : nil
    case ("NSUUID", .uuid), ("NSURL", .uri), ("NSData", .binaryData), ("NSString", .string):
      return value
    case ("NSUUID", .string(let text)): return UUID(uuidString: text).map { .uuid($0) }
    case ("NSURL", .string(let text)): return URL(string: text).map { .uri($0) }
    case ("NSData", .string(let text)): return Data(base64Encoded: text).map { .binaryData($0) }
    default: return nil
    }
  }

  /// `CAST(value, "type")` of a value read while evaluating: nil stays nil; a string becomes
  /// a date as an ISO 8601 date does in a constant.
  static func cast(_ value: Any?, to type: String) throws(QueryError) -> Any? {
    guard let value else { return nil }
    if type == "NSDate", let text = value as? String {
      guard let date = try? ISODate.date(from: text) else {
        throw QueryError.runtimeCast(value, to: type)
      }
      return date
    }
    guard let constant = QueryValue(value), let result = cast(constant, to: type) else {
      throw QueryError.runtimeCast(value, to: type)
    }
    return result.anyValue
  }
}
