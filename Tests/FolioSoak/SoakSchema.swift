/// The soak model (`Samples/Soak/Soak.xcdatamodeld`) as the oracle knows it: written out by
/// hand, so the oracle owes nothing to Folio's model reader.
///
/// Every entity has a `uid` (Integer 64), the soak's stable identity: the driver gives each
/// inserted object a fresh one, and it survives undo, redo, save and reopening in both formats.
/// Between them the relationships have every kind — one-to-one, one-to-many, many-to-many,
/// ordered one-to-many and ordered many-to-many — and every delete rule.
public enum SoakSchema {
  /// A delete rule, as Core Data names them.
  public enum DeleteRule: Sendable { case nullify, cascade, deny, noAction }

  /// An attribute's type among the few the soak sets.
  public enum AttributeKind: Sendable { case string, integer32, double, boolean }

  /// A relationship and its inverse.
  public struct Relationship: Sendable {
    public let name: String
    public let destination: String
    public let inverse: String
    public let isToMany: Bool
    public let isOrdered: Bool
    public let deleteRule: DeleteRule
  }

  /// The entities, in the order the soak lists them.
  public static let entities = ["Owner", "Item", "Tag", "Badge", "Note"]

  /// Each entity's attributes besides `uid`.
  public static let attributes: [String: [(name: String, kind: AttributeKind)]] = [
    "Owner": [("name", .string), ("score", .integer32), ("weight", .double), ("flag", .boolean)],
    "Item": [("name", .string), ("score", .integer32)],
    "Tag": [("name", .string)],
    "Badge": [("name", .string)],
    "Note": [("name", .string)],
  ]

  /// Each entity's relationships.
  public static let relationships: [String: [Relationship]] = [
    "Owner": [
      Relationship(
        name: "badge", destination: "Badge", inverse: "holder", isToMany: false,
        isOrdered: false, deleteRule: .deny),
      Relationship(
        name: "items", destination: "Item", inverse: "owner", isToMany: true, isOrdered: false,
        deleteRule: .cascade),
      Relationship(
        name: "list", destination: "Item", inverse: "listedIn", isToMany: true, isOrdered: true,
        deleteRule: .nullify),
      Relationship(
        name: "notes", destination: "Note", inverse: "subject", isToMany: true, isOrdered: false,
        deleteRule: .noAction),
      Relationship(
        name: "tags", destination: "Tag", inverse: "owners", isToMany: true, isOrdered: false,
        deleteRule: .nullify),
    ],
    "Item": [
      Relationship(
        name: "listedIn", destination: "Owner", inverse: "list", isToMany: false,
        isOrdered: false, deleteRule: .nullify),
      Relationship(
        name: "owner", destination: "Owner", inverse: "items", isToMany: false, isOrdered: false,
        deleteRule: .nullify),
      Relationship(
        name: "rankedBy", destination: "Tag", inverse: "ranked", isToMany: true,
        isOrdered: false, deleteRule: .nullify),
    ],
    "Tag": [
      Relationship(
        name: "owners", destination: "Owner", inverse: "tags", isToMany: true, isOrdered: false,
        deleteRule: .deny),
      Relationship(
        name: "ranked", destination: "Item", inverse: "rankedBy", isToMany: true,
        isOrdered: true, deleteRule: .nullify),
    ],
    "Badge": [
      Relationship(
        name: "holder", destination: "Owner", inverse: "badge", isToMany: false,
        isOrdered: false, deleteRule: .cascade)
    ],
    "Note": [
      Relationship(
        name: "subject", destination: "Owner", inverse: "notes", isToMany: false,
        isOrdered: false, deleteRule: .nullify)
    ],
  ]

  /// The relationship `name` of `entity`.
  static func relationship(_ name: String, of entity: String) -> Relationship? {
    relationships[entity]?.first { $0.name == name }
  }

  /// The inverse of `relationship`.
  static func inverse(of relationship: Relationship) -> Relationship? {
    self.relationship(relationship.inverse, of: relationship.destination)
  }
}
