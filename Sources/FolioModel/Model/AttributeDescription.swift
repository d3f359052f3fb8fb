import Foundation

/// An attribute of an entity: a named value of one ``AttributeType``, with its default and its
/// constraints.
///
/// The counterpart of Core Data's `NSAttributeDescription`. Build one in code with
/// ``init(_:_:isOptional:defaultValue:)`` and set the other properties; a model loaded from an
/// Xcode file fills them from the file. Once inside a ``ManagedObjectModel`` it is immutable and
/// ``versionHash`` is set.
@dynamicMemberLookup
public struct AttributeDescription: Sendable, Hashable, PropertyDescribing {
  /// The attribute's name, unique among the entity's properties (inherited ones included).
  public var name: String
  /// The type of the attribute's values.
  public var attributeType: AttributeType
  /// Whether the attribute may be nil when the object is saved. The default is `true`, as in
  /// Core Data.
  public var isOptional: Bool
  /// The value a new object starts with. The default is `nil`.
  public var defaultValue: AttributeValue?
  /// The smallest value allowed, for numbers and dates. The default is `nil` (no bound).
  public var minimumValue: AttributeValue?
  /// The largest value allowed, for numbers and dates. The default is `nil` (no bound).
  public var maximumValue: AttributeValue?
  /// The shortest length allowed: characters for strings, bytes for binary data. Xcode keeps
  /// it in `minValueString`. The default is `nil` (no bound).
  public var minimumLength: Int?
  /// The longest length allowed: characters for strings, bytes for binary data. Xcode keeps it
  /// in `maxValueString`. The default is `nil` (no bound).
  public var maximumLength: Int?
  /// A regular expression a string value must match in full. The default is `nil`.
  public var regularExpression: String?
  /// For a derived attribute, the expression it is computed from, kept as its text
  /// (`"posts.@count"`). The default is `nil`: a plain attribute.
  public var derivationExpression: String?
  /// For a transformable attribute, the name of its value transformer. The default is `nil`.
  public var valueTransformerName: String?
  /// For a transformable attribute, the class of its values (Xcode's `customClassName`).
  /// The default is `nil`.
  public var valueClassName: String?
  /// For a composite attribute, the name of the model's composite that defines its members.
  /// The default is `nil`.
  public var compositeName: String?
  /// Whether generated code uses a scalar type. Kept as read; `nil` when the file says nothing.
  public var usesScalarValueType: Bool?
  /// Whether large binary values may live outside the store. The default is `false`.
  public var allowsExternalBinaryDataStorage = false
  /// Whether history keeps the value after the object is deleted. The default is `false`.
  public var preservesValueInHistoryOnDeletion = false
  /// Whether Spotlight indexes the attribute. The default is `false`.
  public var isIndexedBySpotlight = false
  /// Whether the value is also stored in an external record file. The default is `false`.
  public var isStoredInExternalRecord = false
  /// What the attribute has in common with relationships: transient, indexed, renaming
  /// identifier, version hash modifier, user info, version hash and source location, each also
  /// read and written as the attribute's own member (`attribute.isTransient`).
  public var traits = PropertyTraits()

  /// Creates an attribute.
  ///
  /// ```swift
  /// AttributeDescription("amount", .double, isOptional: false, defaultValue: .double(0))
  /// ```
  public init(
    _ name: String, _ type: AttributeType, isOptional: Bool = true,
    defaultValue: AttributeValue? = nil
  ) {
    self.name = name
    self.attributeType = type
    self.isOptional = isOptional
    self.defaultValue = defaultValue
  }

  /// Whether the attribute is computed from ``derivationExpression``.
  public var isDerived: Bool { derivationExpression != nil }

  /// ``derivationExpression`` parsed; `nil` for a plain attribute, or a derived one with an
  /// empty expression, which stays empty (a model checks that every other expression parses).
  public var derivation: DerivationExpression? {
    derivationExpression.flatMap(DerivationExpression.init(parsing:))
  }
}

/// A composite type: a named group of attributes stored together as one attribute value.
public struct CompositeDescription: Sendable, Hashable {
  /// The composite's name, unique in the model.
  public var name: String
  /// The member attributes, in declaration order.
  public var attributes: [AttributeDescription]
  /// Where the composite was declared; `nil` when built in code.
  public internal(set) var sourceLocation: InputLocation? {
    get { sourceNote.value }
    set { sourceNote.value = newValue }
  }
  var sourceNote = SourceNote<InputLocation?>(nil)

  /// The most levels composites nest: an attribute's composite is level 1, a composite member
  /// of it level 2, and so on. A model whose composites nest deeper is refused
  /// (`invalidConstraint`), and the stores refuse values and metadata nested deeper.
  public static let maximumNestingLevels = 32

  /// Creates a composite from its member attributes.
  public init(_ name: String, attributes: [AttributeDescription]) {
    self.name = name
    self.attributes = attributes
  }
}
