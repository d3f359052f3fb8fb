import FolioModel
import Foundation

/// The entities of a set of `@Model` classes, as SwiftData's `Schema` describes them, and the
/// ``FolioModel/ManagedObjectModel`` they make: entities named after the classes, attributes
/// and relationships after their properties, inverses inferred as SwiftData infers them.
///
/// Classes that the given ones refer to through relationships, and their `@Model`
/// superclasses, are included too. A subclass of a `@Model` class is a subentity of its
/// superclass's entity.
public struct Schema: @unchecked Sendable {
  /// The classes, those given first, then those reached through their relationships.
  public let types: [any PersistentModel.Type]
  /// The version of the models, which the store records.
  public let version: Version
  /// The model, or why the classes make none.
  private let built: Result<ManagedObjectModel, SchemaError>
  /// The property names of the classes' key paths.
  let names: PropertyNames
  /// The classes by entity name.
  let typesByEntity: [String: any PersistentModel.Type]
  /// The entity names by class.
  let entityNames: [ObjectIdentifier: String]

  /// The schema of `types` and the classes they refer to.
  /// The schema of `types` and the classes they refer to, at `version` (the store's model
  /// version identifier, as SwiftData writes it; 1.0.0 unless a versioned schema says).
  public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
    self.version = version
    var all: [any PersistentModel.Type] = []
    var seen: Set<ObjectIdentifier> = []
    var queue = types
    while !queue.isEmpty {
      let type = queue.removeFirst()
      guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
      all.append(type)
      if let parent = Self.superModel(of: type) { queue.append(parent) }
      for property in type.schemaMetadata {
        if let target = property.kind.target { queue.append(target) }
      }
    }
    self.types = all
    var names: [AnyKeyPath: String] = [:]
    var typesByEntity: [String: any PersistentModel.Type] = [:]
    for type in all {
      typesByEntity[Self.entityName(of: type)] = type
      for (name, keyPath) in type._$propertyKeyPaths { names[keyPath] = name }
    }
    self.names = PropertyNames(names: names)
    self.typesByEntity = typesByEntity
    entityNames = Dictionary(
      uniqueKeysWithValues: typesByEntity.map { (ObjectIdentifier($0.value), $0.key) })
    built = Result { () throws(SchemaError) in
      try SchemaBuilder(types: all, names: names, version: version).model()
    }
  }

  /// The schema of `types` and the classes they refer to.
  public init(_ types: any PersistentModel.Type...) { self.init(types) }

  /// The model the classes make.
  ///
  /// - Throws: ``SchemaError`` naming the class and property that cannot be stored.
  public func managedObjectModel() throws(SchemaError) -> ManagedObjectModel {
    try built.get()
  }

  /// The name of the entity of `type`, one of the schema's classes, without working it out.
  func entityName(of type: any PersistentModel.Type) -> String {
    entityNames[ObjectIdentifier(type)] ?? Self.entityName(of: type)
  }

  /// The value transformer a `Codable` property's transformable attribute names: its value is
  /// kept as the JSON that `JSONEncoder` writes of it, with sorted keys. No transformer of that
  /// name is registered: through Folio's own API the attribute's value is those bytes.
  public static let jsonTransformerName = "FolioData.JSON"

  /// The `@Model` class `type` inherits from, if any.
  static func superModel(of type: any PersistentModel.Type) -> (any PersistentModel.Type)? {
    _getSuperclass(type) as? any PersistentModel.Type
  }

  /// The name of the entity `type` is: the class's name.
  public static func entityName(of type: any PersistentModel.Type) -> String {
    String(describing: type)
  }
}

/// The property names of model classes' key paths: key paths of classes that are not `Sendable`
/// themselves, but never used to reach an instance here, only compared.
struct PropertyNames: @unchecked Sendable {
  let names: [AnyKeyPath: String]
}

/// Why a set of `@Model` classes makes no model: a property of a type no attribute holds, an
/// inverse that is not a relationship back, or what the model itself refuses.
public struct SchemaError: Error, Sendable, CustomStringConvertible {
  public let message: String
  init(_ message: String) { self.message = message }
  public var description: String { message }
}

extension Schema {
  /// What `@Model` records of a persisted property: its name, its key path, how its type is
  /// stored, and its `@Attribute` or `@Relationship` settings.
  public struct PropertyMetadata: @unchecked Sendable {
    public let name: String
    public let keyPath: AnyKeyPath
    let kind: Kind
    public let attribute: Attribute?
    public let relationship: Relationship?
    /// The attribute's value in a new object: the property's initial value, as the model's
    /// default (what a migration gives existing objects for an added attribute).
    var defaultValue: AttributeValue?

    enum Kind {
      /// An attribute of `type`; `codable` when the value is kept as JSON.
      case attribute(AttributeType?, isOptional: Bool, valueType: Any.Type, codable: Bool)
      case toOne(any PersistentModel.Type, isOptional: Bool)
      case toMany(any PersistentModel.Type, isOptional: Bool)

      var target: (any PersistentModel.Type)? {
        switch self {
        case .attribute: nil
        case .toOne(let type, _), .toMany(let type, _): type
        }
      }
    }

    init(
      _ name: String, _ keyPath: AnyKeyPath, _ kind: Kind, _ attribute: Attribute?,
      _ relationship: Relationship?
    ) {
      self.name = name
      self.keyPath = keyPath
      self.kind = kind
      self.attribute = attribute
      self.relationship = relationship
    }

    /// An enumeration's attribute, of its raw value's type.
    private init(
      _ name: String, _ keyPath: AnyKeyPath, rawValue: Any.Type, of valueType: Any.Type,
      isOptional: Bool, _ attribute: Attribute?, _ relationship: Relationship?
    ) {
      let (type, _) = ValueTypes.attributeType(of: rawValue)
      self.init(
        name, keyPath,
        .attribute(type, isOptional: isOptional, valueType: valueType, codable: false),
        attribute, relationship)
    }

    /// An attribute of one of Folio's value types.
    public init<Root, Value: AttributeValueConvertible>(
      _ name: String, _ keyPath: KeyPath<Root, Value>, attribute: Attribute? = nil,
      relationship: Relationship? = nil, defaultValue: Value? = nil
    ) {
      let (type, isOptional) = ValueTypes.attributeType(of: Value.self)
      self.init(
        name, keyPath,
        .attribute(type, isOptional: isOptional, valueType: Value.self, codable: false),
        attribute, relationship)
      self.defaultValue = defaultValue?.attributeValue
    }

    /// An enumeration stored by its raw value.
    public init<Root, Value: RawRepresentable>(
      _ name: String, _ keyPath: KeyPath<Root, Value>, attribute: Attribute? = nil,
      relationship: Relationship? = nil, defaultValue: Value? = nil
    ) where Value.RawValue: AttributeValueConvertible {
      self.init(
        name, keyPath, rawValue: Value.RawValue.self, of: Value.self, isOptional: false,
        attribute, relationship)
      self.defaultValue = defaultValue?.rawValue.attributeValue
    }

    /// An optional enumeration stored by its raw value.
    public init<Root, Value: RawRepresentable>(
      _ name: String, _ keyPath: KeyPath<Root, Value?>, attribute: Attribute? = nil,
      relationship: Relationship? = nil, defaultValue: Value?? = nil
    ) where Value.RawValue: AttributeValueConvertible {
      self.init(
        name, keyPath, rawValue: Value.RawValue.self, of: Value.self, isOptional: true,
        attribute, relationship)
      self.defaultValue = defaultValue??.rawValue.attributeValue
    }

    /// An enumeration that converts itself, stored by its raw value.
    public init<Root, Value: RawRepresentable & AttributeValueConvertible>(
      _ name: String, _ keyPath: KeyPath<Root, Value>, attribute: Attribute? = nil,
      relationship: Relationship? = nil, defaultValue: Value? = nil
    ) where Value.RawValue: AttributeValueConvertible {
      self.init(
        name, keyPath, rawValue: Value.RawValue.self, of: Value.self, isOptional: false,
        attribute, relationship)
      self.defaultValue = defaultValue?.rawValue.attributeValue
    }

    /// An optional enumeration that converts itself, stored by its raw value.
    public init<Root, Value: RawRepresentable & AttributeValueConvertible>(
      _ name: String, _ keyPath: KeyPath<Root, Value?>, attribute: Attribute? = nil,
      relationship: Relationship? = nil, defaultValue: Value?? = nil
    ) where Value.RawValue: AttributeValueConvertible {
      self.init(
        name, keyPath, rawValue: Value.RawValue.self, of: Value.self, isOptional: true,
        attribute, relationship)
      self.defaultValue = defaultValue??.rawValue.attributeValue
    }

    /// A to-one relationship that may be empty.
    public init<Root, Target: PersistentModel>(
      _ name: String, _ keyPath: KeyPath<Root, Target?>, attribute: Attribute? = nil,
      relationship: Relationship? = nil, defaultValue: Target?? = nil
    ) {
      self.init(name, keyPath, .toOne(Target.self, isOptional: true), attribute, relationship)
    }

    /// A to-one relationship that may not be empty.
    public init<Root, Target: PersistentModel>(
      _ name: String, _ keyPath: KeyPath<Root, Target>, attribute: Attribute? = nil,
      relationship: Relationship? = nil, defaultValue: Target? = nil
    ) {
      self.init(name, keyPath, .toOne(Target.self, isOptional: false), attribute, relationship)
    }

    /// A to-many relationship: not optional (it may still be empty), as SwiftData makes it.
    public init<Root, Target: PersistentModel>(
      _ name: String, _ keyPath: KeyPath<Root, [Target]>, attribute: Attribute? = nil,
      relationship: Relationship? = nil, defaultValue: [Target]? = nil
    ) {
      self.init(name, keyPath, .toMany(Target.self, isOptional: false), attribute, relationship)
    }

    /// A to-many relationship declared optional.
    public init<Root, Target: PersistentModel>(
      _ name: String, _ keyPath: KeyPath<Root, [Target]?>, attribute: Attribute? = nil,
      relationship: Relationship? = nil, defaultValue: [Target]?? = nil
    ) {
      self.init(name, keyPath, .toMany(Target.self, isOptional: true), attribute, relationship)
    }

    /// Any other value: a `Codable` one is a transformable attribute whose transformer is
    /// ``Schema/jsonTransformerName``: its value is kept as its JSON.
    public init<Root, Value>(
      _ name: String, _ keyPath: KeyPath<Root, Value>, attribute: Attribute? = nil,
      relationship: Relationship? = nil, defaultValue: Value? = nil
    ) {
      let isOptional = Value.self is any _OptionalValue.Type
      let codable = Value.self is any Codable.Type
      self.init(
        name, keyPath,
        .attribute(
          codable ? .transformable : nil, isOptional: isOptional, valueType: Value.self,
          codable: true),
        attribute, relationship)
    }
  }

  /// The groups of properties a class's `#Unique` and `#Index` name, by key path.
  public struct Constraints: @unchecked Sendable {
    let unique: [[AnyKeyPath]]
    let indexes: [[AnyKeyPath]]

    public init() {
      unique = []
      indexes = []
    }

    public init<T>(unique: [[PartialKeyPath<T>]], indexes: [[PartialKeyPath<T>]]) {
      self.unique = unique
      self.indexes = indexes
    }
  }

  /// `@Attribute`'s settings.
  public struct Attribute: Sendable {
    public struct Option: Sendable, Hashable {
      enum Kind: Hashable {
        case unique, externalStorage, preserveValueOnDeletion, ephemeral, spotlight
      }
      let kind: Kind
      /// The value is unique among the entity's objects: inserting an object with a value
      /// another has updates that one instead (an upsert).
      public static let unique = Option(kind: .unique)
      /// Binary data may be kept outside the store, beside it.
      public static let externalStorage = Option(kind: .externalStorage)
      /// A deleted object's value is kept in persistent history.
      public static let preserveValueOnDeletion = Option(kind: .preserveValueOnDeletion)
      /// The value is never saved (a transient attribute, which change tracking still sees).
      public static let ephemeral = Option(kind: .ephemeral)
      /// The value is indexed by Spotlight (recorded in the model; nothing indexes on Linux).
      public static let spotlight = Option(kind: .spotlight)
    }

    public let options: Set<Option>
    public let originalName: String?
    public let hashModifier: String?

    public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
      self.options = Set(options)
      self.originalName = originalName
      self.hashModifier = hashModifier
    }
  }

  /// `@Relationship`'s settings.
  public struct Relationship: @unchecked Sendable {
    public struct Option: Sendable, Hashable {
      let name: String
      /// The related object is unique (recorded; a to-one relationship is unique already).
      public static let unique = Option(name: "unique")
    }

    /// What deleting the object does to the related objects.
    public enum DeleteRule: Sendable, Hashable {
      case nullify, cascade, deny, noAction

      var folio: FolioModel.DeleteRule {
        switch self {
        case .nullify: .nullify
        case .cascade: .cascade
        case .deny: .deny
        case .noAction: .noAction
        }
      }
    }

    public let options: Set<Option>
    public let deleteRule: DeleteRule
    public let minimumModelCount: Int?
    public let maximumModelCount: Int?
    public let originalName: String?
    public let inverse: AnyKeyPath?
    public let hashModifier: String?

    public init(
      _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
      maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
      hashModifier: String? = nil
    ) {
      self.options = Set(options)
      self.deleteRule = deleteRule
      self.minimumModelCount = minimumModelCount
      self.maximumModelCount = maximumModelCount
      self.originalName = originalName
      self.inverse = inverse
      self.hashModifier = hashModifier
    }
  }
}

/// The attribute types of the Swift types an attribute holds.
enum ValueTypes {
  static func attributeType(of type: Any.Type) -> (AttributeType?, isOptional: Bool) {
    if let optional = type as? any _OptionalValue.Type {
      return (attributeType(of: optional.wrappedType).0, true)
    }
    return (table[ObjectIdentifier(type)], false)
  }

  private static let table: [ObjectIdentifier: AttributeType] = [
    ObjectIdentifier(String.self): .string, ObjectIdentifier(Int.self): .integer64,
    ObjectIdentifier(Int64.self): .integer64, ObjectIdentifier(Int32.self): .integer32,
    ObjectIdentifier(Int16.self): .integer16, ObjectIdentifier(Double.self): .double,
    ObjectIdentifier(Float.self): .float, ObjectIdentifier(Bool.self): .boolean,
    ObjectIdentifier(Date.self): .date, ObjectIdentifier(Data.self): .binaryData,
    ObjectIdentifier(UUID.self): .uuid, ObjectIdentifier(URL.self): .uri,
    ObjectIdentifier(Decimal.self): .decimal,
  ]
}
