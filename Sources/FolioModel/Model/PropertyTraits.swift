import Foundation

/// What attributes and relationships have in common, as Core Data keeps it in
/// `NSPropertyDescription`: whether the property is transient or indexed, what identifies it
/// across model versions, its user info, its version hash and where it was declared.
///
/// ``AttributeDescription`` and ``RelationshipDescription`` each hold one as `traits` and
/// present its members as their own (`attribute.isTransient`, `relationship.userInfo`).
public struct PropertyTraits: Sendable, Hashable {
  /// Whether the property lives only in memory and is never saved. The default is `false`.
  public var isTransient = false
  /// Whether stores should index the property. The default is `false`.
  public var isIndexed = false
  /// Marks a change of meaning that the version hash would not otherwise see. The default is
  /// `nil`.
  public var versionHashModifier: String?
  /// The name the property had in an earlier model version (Xcode's `elementID`). The default
  /// is `nil`.
  public var renamingIdentifier: String?
  /// Free-form key-value pairs from the model. The default is empty.
  public var userInfo: [String: String] = [:]
  /// The SHA-256 of what makes up the property's stored shape: set by the model.
  public internal(set) var versionHash = Data()
  /// Where the property was declared, for error messages; `nil` when built in code. Not part
  /// of a property's equality.
  public internal(set) var sourceLocation: InputLocation? {
    get { sourceNote.value }
    set { sourceNote.value = newValue }
  }
  var sourceNote = SourceNote<InputLocation?>(nil)

  /// Traits with every default.
  public init() {}
}

/// A property of an entity that presents the members of its ``PropertyTraits`` as its own.
public protocol PropertyDescribing {
  /// The property's name, unique among the entity's properties (inherited ones included).
  var name: String { get }
  /// Whether the property may be empty when the object is saved.
  var isOptional: Bool { get }
  /// What the property has in common with every other kind of property.
  var traits: PropertyTraits { get set }
}

extension PropertyDescribing {
  /// A member of ``traits``: `property.isTransient`, `property.userInfo`.
  public subscript<Value>(dynamicMember member: WritableKeyPath<PropertyTraits, Value>) -> Value {
    get { traits[keyPath: member] }
    set { traits[keyPath: member] = newValue }
  }

  /// A read-only member of ``traits``: `property.versionHash`, `property.sourceLocation`.
  public subscript<Value>(dynamicMember member: KeyPath<PropertyTraits, Value>) -> Value {
    traits[keyPath: member]
  }
}
