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
}
