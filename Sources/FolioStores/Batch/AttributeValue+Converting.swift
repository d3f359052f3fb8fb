import FolioModel
import Foundation

extension AttributeValue {
  /// The value of type `type` that `value`, a value an expression computed, stands for; the
  /// reason it stands for none otherwise (a message naming the value and the type).
  ///
  /// Numbers convert where no digit is lost: an integer (or a whole double) to any integer
  /// type whose range holds it, any number to Double, Float or Decimal. Strings, booleans,
  /// dates, data, UUIDs and URLs convert to their own types only. `nil` is nil.
  package static func converting(_ value: Any?, to type: AttributeType) -> Result<
    AttributeValue?, ValueMismatch
  > {
    guard let value else { return .success(nil) }
    if let model = value as? AttributeValue {
      return model.fits(type) ? .success(model) : .failure(mismatch(value, type))
    }
    let integer: Int64? =
      switch value {
      case is Bool: nil
      case let number as any BinaryInteger: Int64(exactly: number)
      case let number as Double: Int64(exactly: number)
      default: nil
      }
    let real: Double? =
      switch value {
      case is Bool: nil
      case let number as Double: number
      case let number as Float: Double(number)
      case let number as any BinaryInteger: Double(number)
      case let number as Decimal: NSDecimalNumber(decimal: number).doubleValue
      default: nil
      }
    switch type {
    case .integer16, .integer32, .integer64:
      guard let integer, type.integerRange?.contains(integer) == true else { break }
      return .success(.integer(integer))
    case .double:
      if let real { return .success(.double(real)) }
    case .float:
      if let real, !real.isFinite || Float(real).isFinite { return .success(.float(Float(real))) }
    case .decimal:
      if let decimal = value as? Decimal { return .success(.decimal(decimal)) }
      if let integer { return .success(.decimal(Decimal(integer))) }
      if let real, real.isFinite { return .success(.decimal(Decimal(real))) }
    case .string:
      if let text = value as? String { return .success(.string(text)) }
    case .boolean:
      if let flag = value as? Bool { return .success(.boolean(flag)) }
    case .date:
      if let date = value as? Date { return .success(.date(date)) }
    case .binaryData:
      if let data = value as? Data { return .success(.binaryData(data)) }
    case .transformable:
      if let data = value as? Data { return .success(.transformable(data)) }
    case .uuid:
      if let uuid = value as? UUID { return .success(.uuid(uuid)) }
    case .uri:
      if let url = value as? URL { return .success(.uri(url)) }
    default:
      break
    }
    return .failure(mismatch(value, type))
  }

  private static func mismatch(_ value: Any, _ type: AttributeType) -> ValueMismatch {
    let shown = value is String ? "\"\(value)\"" : "\(value)"
    return ValueMismatch(message: "\(shown) is not a value of type \(type.xcodeName)")
  }

  /// Why a computed value stands for no value of an attribute's type.
  package struct ValueMismatch: Error {
    package let message: String
  }
}
