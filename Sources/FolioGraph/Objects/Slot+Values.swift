import FolioModel
import Foundation

/// Converting between slots and the values the public API takes and returns.
///
/// Reads return Swift's natural types: `Int` for every integer width, `Double`, `Float`,
/// `Decimal`, `String`, `Bool`, `Date`, `Data` (binary and transformable), `UUID`, `URL`,
/// `[String: Any]` for composites. Writes accept those, any `BinaryInteger` for integers
/// (checked against the width), integers and `Float` for `Double`, integers and floating-point
/// numbers for `Decimal`, and an ``AttributeValue`` for any type. Anything else is a
/// `typeMismatch`, never a silent conversion.
extension Slot {
  /// The slot holding a model value (a default, or a value from a store).
  package init(_ value: AttributeValue) {
    switch value {
    case .integer(let number): self = .integer(number)
    case .double(let number): self = .real(number)
    case .float(let number): self = .real(Double(number))
    case .date(let date): self = .real(date.timeIntervalSinceReferenceDate)
    case .boolean(let flag): self = .boolean(flag)
    case .string(let text): self = .string(text)
    case .binaryData(let data), .transformable(let data): self = .data(data)
    case .uuid(let uuid): self = .uuid(uuid)
    case .decimal, .uri, .objectID, .composite: self = .boxed(ValueBox(.attribute(value)))
    }
  }

  /// The model value in this slot, for an attribute of `type`.
  package func attributeValue(as type: AttributeType) -> AttributeValue? {
    switch (self, type) {
    case (.null, _): return nil
    case (.integer(let number), _): return .integer(number)
    case (.real(let number), .float): return .float(Float(number))
    case (.real(let number), .date): return .date(Date(timeIntervalSinceReferenceDate: number))
    case (.real(let number), _): return .double(number)
    case (.boolean(let flag), _): return .boolean(flag)
    case (.string(let text), _): return .string(text)
    case (.data(let data), .transformable): return .transformable(data)
    case (.data(let data), _): return .binaryData(data)
    case (.uuid(let uuid), _): return .uuid(uuid)
    case (.boxed(let box), _):
      if case .attribute(let value) = box.value { return value }
      return nil
    case (.object, _), (.objects, _), (.unrecorded, _): return nil
    }
  }

  /// The value a reader of an attribute of `type` gets.
  func publicValue(as type: AttributeType) -> Any? {
    switch (self, type) {
    case (.null, _): return nil
    case (.integer(let number), _): return Int(number)
    case (.real(let number), .float): return Float(number)
    case (.real(let number), .date): return Date(timeIntervalSinceReferenceDate: number)
    case (.real(let number), _): return number
    case (.boolean(let flag), _): return flag
    case (.string(let text), _): return text
    case (.data(let data), _): return data
    case (.uuid(let uuid), _): return uuid
    case (.boxed(let box), _):
      switch box.value {
      case .any(let value): return value
      case .attribute(let value): return Self.publicValue(of: value)
      }
    case (.object, _), (.objects, _), (.unrecorded, _): return nil
    }
  }

  static func publicValue(of value: AttributeValue) -> Any { value.readerValue }

  /// The slot for `value` written to `attribute`, or a `typeMismatch` naming what was wrong.
  package static func checked(_ value: Any?, for attribute: AttributeDescription, entity: String)
    throws(GraphError) -> Slot
  {
    guard let value else { return .null }
    let type = attribute.attributeType
    func mismatch(_ detail: String? = nil) -> GraphError {
      GraphError.typeMismatch(
        detail ?? "\(describe(value)) is not of type \(type.xcodeName)", entity: entity,
        key: attribute.name)
    }
    if let model = value as? AttributeValue {
      guard model.fits(type) else { throw mismatch() }
      return Slot(model)
    }
    switch type {
    case .integer16, .integer32, .integer64:
      if let integer = value as? Int {
        guard let range = type.integerRange, range.contains(Int64(integer)) else {
          throw mismatch("\(integer) is outside the range of \(type.xcodeName)")
        }
        return .integer(Int64(integer))
      }
      guard let integer = value as? any BinaryInteger, !(value is Bool) else { throw mismatch() }
      guard let number = Int64(exactly: integer), let range = type.integerRange,
        range.contains(number)
      else {
        throw mismatch("\(integer) is outside the range of \(type.xcodeName)")
      }
      return .integer(number)
    case .double, .float:
      if let number = value as? Double { return try real(number, type, mismatch) }
      if let number = value as? Float { return try real(Double(number), type, mismatch) }
      if let integer = value as? any BinaryInteger, !(value is Bool) {
        return try real(Double(integer), type, mismatch)
      }
      throw mismatch()
    case .decimal:
      if let number = value as? Decimal { return .boxed(ValueBox(.attribute(.decimal(number)))) }
      if let integer = value as? any BinaryInteger, !(value is Bool),
        let exact = Int64(exactly: integer)
      {
        return .boxed(ValueBox(.attribute(.decimal(Decimal(exact)))))
      }
      if let number = value as? Double, number.isFinite {
        return .boxed(ValueBox(.attribute(.decimal(Decimal(number)))))
      }
      throw mismatch()
    case .string:
      if let text = value as? String { return .string(text) }
      if let text = value as? Substring { return .string(String(text)) }
      throw mismatch()
    case .boolean:
      guard let flag = value as? Bool else { throw mismatch() }
      return .boolean(flag)
    case .date:
      guard let date = value as? Date else { throw mismatch() }
      return .real(date.timeIntervalSinceReferenceDate)
    case .binaryData, .transformable:
      guard let data = value as? Data else { throw mismatch() }
      return .data(data)
    case .uuid:
      guard let uuid = value as? UUID else { throw mismatch() }
      return .uuid(uuid)
    case .uri:
      guard let url = value as? URL else { throw mismatch() }
      return .boxed(ValueBox(.attribute(.uri(url))))
    case .objectID:
      if let id = value as? ManagedObjectID {
        return .boxed(ValueBox(.attribute(.objectID(id.description))))
      }
      if let url = value as? URL, ManagedObjectID.parse(url) != nil {
        return .boxed(ValueBox(.attribute(.objectID(url.absoluteString))))
      }
      throw mismatch()
    case .composite:
      throw mismatch("composite values are set as an AttributeValue.composite")
    case .undefined:
      return .boxed(ValueBox(.any(value)))
    }
  }

  private static func real(
    _ number: Double, _ type: AttributeType, _ mismatch: (String?) -> GraphError
  ) throws(GraphError) -> Slot {
    if type == .float, number.isFinite, !Float(number).isFinite {
      throw mismatch("\(number) is outside the range of Float")
    }
    return .real(type == .float ? Double(Float(number)) : number)
  }

  /// A short description of a value for messages: `"abc" (String)`, `12 (Int)`.
  static func describe(_ value: Any) -> String {
    switch value {
    case let text as String: return "\"\(text)\" (a string)"
    case let object as ManagedObject: return "a \(object.entityName) object"
    case is Bool: return "\(value) (a Boolean)"
    case is any BinaryInteger: return "\(value) (an integer)"
    case is Double, is Float, is Decimal: return "\(value) (a number)"
    case is Date: return "\(value) (a date)"
    case is Data: return "\(value) (binary data)"
    default: return "\(value) (\(type(of: value)))"
    }
  }
}
