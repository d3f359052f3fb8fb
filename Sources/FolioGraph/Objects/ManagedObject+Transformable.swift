import FolioModel
import FolioStores
import Foundation

/// Transformable attributes through the value transformer their model names, when one is
/// registered (``FolioStores/ValueTransformerRegistry``): read as the transformer's values,
/// set from them, kept as bytes.
extension ManagedObject {
  /// The transformer registered for `attribute`, when it is transformable and names one.
  static func transformer(for attribute: AttributeDescription) -> (any AttributeValueTransformer)? {
    guard attribute.attributeType == .transformable, let name = attribute.valueTransformerName
    else { return nil }
    return ValueTransformerRegistry.transformer(forName: name)
  }

  /// `stored`, the attribute's bytes as a reader gets them, made the transformer's value.
  ///
  /// - Throws: `GraphError.typeMismatch` when the transformer cannot read the bytes.
  func transformedValue(_ stored: Any?, of attribute: AttributeDescription) throws(GraphError)
    -> Any?
  {
    guard let data = stored as? Data, let transformer = Self.transformer(for: attribute) else {
      return stored
    }
    do {
      return try transformer.value(from: data)
    } catch {
      throw GraphError.typeMismatch(
        "\(entityName).\(attribute.name) holds bytes that \(attribute.valueTransformerName ?? "") cannot read: \(error)",
        entity: entityName, key: attribute.name)
    }
  }

  /// The bytes for `value` set to `attribute`: what its transformer makes of it. A model value
  /// (``FolioModel/AttributeValue``) is already bytes, and `nil` is none.
  ///
  /// - Throws: `GraphError.typeMismatch` when the transformer does not take the value.
  func storedValue(_ value: Any?, of attribute: AttributeDescription) throws(GraphError) -> Any? {
    guard let value, !(value is AttributeValue), let transformer = Self.transformer(for: attribute)
    else { return value }
    do {
      return try transformer.data(from: value)
    } catch {
      throw GraphError.typeMismatch(
        "\(entityName).\(attribute.name) takes what \(attribute.valueTransformerName ?? "") transforms: \(error)",
        entity: entityName, key: attribute.name)
    }
  }

  /// `value` as a `Value`: itself when it is one, else an array of numbers as an array of
  /// the width `Value` asks for (an archive keeps numbers without their Swift width).
  static func coerce<Value>(_ value: Any, to type: Value.Type) -> Value? {
    if let typed = value as? Value { return typed }
    guard let array = value as? [Any] else { return nil }
    func integers<Integer: FixedWidthInteger>(_: Integer.Type) -> Value? {
      var result: [Integer] = []
      for element in array {
        guard let number = element as? Int, let converted = Integer(exactly: number) else {
          return nil
        }
        result.append(converted)
      }
      return result as? Value
    }
    func reals<Real: BinaryFloatingPoint>(_: Real.Type) -> Value? {
      var result: [Real] = []
      for element in array {
        if let number = element as? Double {
          result.append(Real(number))
        } else if let number = element as? Int {
          result.append(Real(number))
        } else {
          return nil
        }
      }
      return result as? Value
    }
    switch type {
    case is [Int64].Type: return integers(Int64.self)
    case is [Int32].Type: return integers(Int32.self)
    case is [Int16].Type: return integers(Int16.self)
    case is [Int8].Type: return integers(Int8.self)
    case is [UInt64].Type: return integers(UInt64.self)
    case is [UInt32].Type: return integers(UInt32.self)
    case is [UInt16].Type: return integers(UInt16.self)
    case is [UInt8].Type: return integers(UInt8.self)
    case is [UInt].Type: return integers(UInt.self)
    case is [Double].Type: return reals(Double.self)
    case is [Float].Type: return reals(Float.self)
    default: return nil
    }
  }
}
