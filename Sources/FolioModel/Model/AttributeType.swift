/// The type of an attribute's value, as Core Data defines it.
///
/// ``xcodeName`` is the spelling in an Xcode model file (`attributeType="Integer 16"`).
public enum AttributeType: String, Sendable, Hashable, CaseIterable, Codable {
  case integer16
  case integer32
  case integer64
  case decimal
  case double
  case float
  case string
  case boolean
  case date
  case binaryData
  case uuid
  case uri
  case transformable
  case objectID
  case composite
  /// No type: allowed only on transient attributes, which may then hold any value.
  case undefined

  /// The name Xcode writes in a model file.
  public var xcodeName: String {
    switch self {
    case .integer16: "Integer 16"
    case .integer32: "Integer 32"
    case .integer64: "Integer 64"
    case .decimal: "Decimal"
    case .double: "Double"
    case .float: "Float"
    case .string: "String"
    case .boolean: "Boolean"
    case .date: "Date"
    case .binaryData: "Binary"
    case .uuid: "UUID"
    case .uri: "URI"
    case .transformable: "Transformable"
    case .objectID: "ObjectID"
    case .composite: "Composite"
    case .undefined: "Undefined"
    }
  }

  /// The type Xcode's `name` spells, or `nil` when Core Data has no such type.
  ///
  /// Accepts `"Object ID"` as well as `"ObjectID"`.
  public init?(xcodeName name: String) {
    if name == "Object ID" {
      self = .objectID
      return
    }
    guard let type = AttributeType.allCases.first(where: { $0.xcodeName == name }) else {
      return nil
    }
    self = type
  }

  /// Whether values are integers of some width.
  public var isInteger: Bool {
    self == .integer16 || self == .integer32 || self == .integer64
  }

  /// Whether values are numbers, so minimum and maximum are values rather than lengths.
  public var isNumeric: Bool {
    isInteger || self == .decimal || self == .double || self == .float
  }

  /// The range of an integer type, or `nil` for other types.
  public var integerRange: ClosedRange<Int64>? {
    switch self {
    case .integer16: Int64(Int16.min)...Int64(Int16.max)
    case .integer32: Int64(Int32.min)...Int64(Int32.max)
    case .integer64: Int64.min...Int64.max
    default: nil
    }
  }
}
