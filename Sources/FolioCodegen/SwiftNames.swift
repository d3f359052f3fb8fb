import FolioModel

/// How model names become Swift names in generated code.
enum SwiftNames {
  /// Swift's keywords that a declaration's name may use when escaped with backticks.
  static let keywords: Set<String> = [
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import",
    "init", "inout", "internal", "let", "open", "operator", "private", "precedencegroup",
    "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
    "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for",
    "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "as", "false",
    "is", "nil", "super", "throws", "true", "try", "await", "any", "some",
  ]

  /// Names no declaration can take, escaped or not.
  static let unusable: Set<String> = ["self", "Self", "Type", "Protocol", "_"]

  /// The members every entity class inherits from `ManagedObject`, which a generated property
  /// cannot redeclare.
  static let managedObjectMembers: Set<String> = [
    "entity", "entityName", "objectID", "managedObjectContext", "isInserted", "isDeleted",
    "isUpdated", "hasChanges", "description", "hashValue", "debugDescription",
  ]

  /// The types generated code names, which an entity class of the same name would shadow:
  /// generated code then spells them with their module.
  static let qualifiedTypes: [String: String] = [
    "Set": "Swift.Set", "String": "Swift.String", "Bool": "Swift.Bool", "Int": "Swift.Int",
    "Int16": "Swift.Int16", "Int32": "Swift.Int32", "Int64": "Swift.Int64",
    "Float": "Swift.Float", "Double": "Swift.Double", "Any": "Swift.Any",
    "Date": "Foundation.Date", "Data": "Foundation.Data", "UUID": "Foundation.UUID",
    "URL": "Foundation.URL", "Decimal": "Foundation.Decimal",
    "TimeInterval": "Foundation.TimeInterval", "ManagedObject": "FolioGraph.ManagedObject",
    "AttributeValue": "FolioModel.AttributeValue",
    "ManagedObjectContext": "FolioGraph.ManagedObjectContext",
  ]

  /// `name`, escaped with backticks when it is a keyword.
  static func identifier(_ name: String) -> String {
    keywords.contains(name) ? "`\(name)`" : name
  }

  /// `name` with its first letter in upper case, for accessor names (`addToChapters`).
  static func capitalized(_ name: String) -> String {
    guard let first = name.first else { return name }
    return first.uppercased() + name.dropFirst()
  }

  /// Whether `name` is a Swift identifier (letters, digits and underscores, not starting with
  /// a digit); Xcode allows nothing else in entity and property names.
  static func isIdentifier(_ name: String) -> Bool {
    DerivationExpression.isName(name[...])
  }
}
