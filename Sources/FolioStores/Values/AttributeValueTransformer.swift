import Foundation

/// Turns the values of a transformable attribute into the bytes a store keeps, and back:
/// Core Data's value transformer of a transformable attribute (its `valueTransformerName`).
///
/// Register one under the name the model gives (``ValueTransformerRegistry``); a managed
/// object then reads the attribute as the transformer's values and takes them when set,
/// while every store keeps the bytes, as Core Data's do. Foundation's `ValueTransformer` is not
/// used: it works on Objective-C objects, which Linux has no runtime for.
public protocol AttributeValueTransformer: Sendable {
  /// The bytes a store keeps for `value`.
  ///
  /// - Throws: when `value` is not one the transformer takes; the message says why.
  func data(from value: Any) throws -> Data

  /// The value `data`, bytes a store kept, stands for.
  ///
  /// - Throws: when the bytes are not ones the transformer made; the message says why.
  func value(from data: Data) throws -> Any
}

/// The value transformers a process knows, by the names models give them.
///
/// Two are there from the start: `NSSecureUnarchiveFromData` and its other spelling
/// `NSSecureUnarchiveFromDataTransformer` (``SecureUnarchiveTransformer``), Xcode's default for
/// new transformable attributes. An attribute whose model names no transformer, or one nobody
/// registered, keeps its bytes: Folio applies no transformer implicitly.
///
/// ```swift
/// ValueTransformerRegistry.register(JSONValueTransformer<Palette>(), forName: "PaletteTransformer")
/// ```
public enum ValueTransformerRegistry {
  private static let lock = NSLock()
  nonisolated(unsafe) private static var transformers: [String: any AttributeValueTransformer] = [
    "NSSecureUnarchiveFromData": SecureUnarchiveTransformer(),
    "NSSecureUnarchiveFromDataTransformer": SecureUnarchiveTransformer(),
  ]

  /// Registers `transformer` under `name`, replacing any registered before.
  public static func register(_ transformer: any AttributeValueTransformer, forName name: String) {
    lock.withLock { transformers[name] = transformer }
  }

  /// Forgets the transformer registered under `name`.
  public static func unregister(name: String) {
    lock.withLock { _ = transformers.removeValue(forKey: name) }
  }

  /// The transformer registered under `name`, if any.
  public static func transformer(forName name: String) -> (any AttributeValueTransformer)? {
    lock.withLock { transformers[name] }
  }
}

/// A transformer of `Codable` values, kept as their JSON (sorted keys, so equal values give
/// equal bytes).
public struct JSONValueTransformer<Value: Codable>: AttributeValueTransformer {
  /// Creates the transformer.
  public init() {}

  public func data(from value: Any) throws -> Data {
    guard let typed = value as? Value else {
      throw TransformError("\(type(of: value)) is not a \(Value.self)")
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(typed)
  }

  public func value(from data: Data) throws -> Any {
    do {
      return try JSONDecoder().decode(Value.self, from: data)
    } catch {
      throw TransformError("the bytes are not the JSON of a \(Value.self) (\(error))")
    }
  }
}

/// Why a transformer could not make its value or its bytes; its description is the reason.
public struct TransformError: Error, CustomStringConvertible, Sendable {
  /// The reason, as a phrase.
  public var description: String

  /// Creates the error with its reason.
  public init(_ description: String) { self.description = description }
}
