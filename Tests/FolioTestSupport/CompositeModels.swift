import FolioModel

/// Models whose composites nest: for the tests of nesting limits and of work done per
/// composite rather than per path through them.
public enum CompositeModels {
  /// Composites `C0`…`C(levels − 1)`, each with `width` members `m0`, `m1`… of the next (the
  /// last with one String member, `leaf`), and an entity `Thing` whose optional attribute `c`
  /// is a `C0`: a model of a few dozen lines with `width^(levels − 1)` paths through its
  /// composites.
  public static func nested(levels: Int, width: Int = 1) throws -> ManagedObjectModel {
    let composites = (0..<levels).map { level in
      CompositeDescription(
        "C\(level)",
        attributes: level == levels - 1
          ? [AttributeDescription("leaf", .string)]
          : (0..<width).map { member in
            var attribute = AttributeDescription("m\(member)", .composite)
            attribute.compositeName = "C\(level + 1)"
            return attribute
          })
    }
    var top = AttributeDescription("c", .composite)
    top.compositeName = "C0"
    return try ManagedObjectModel(
      entities: [EntityDescription("Thing") { top }], composites: composites)
  }

  /// A value of `nested(levels:width:)`'s attribute `c`: member `m0` at every level, down to
  /// `leaf`.
  public static func value(levels: Int, leaf: String = "leaf") -> AttributeValue {
    (1..<levels).reduce(.composite(["leaf": .string(leaf)])) { value, _ in
      .composite(["m0": value])
    }
  }
}
