import FolioModel

/// One reason an object did not validate: which object, which key, which rule, and why.
public struct ValidationFailure: Hashable, Sendable, CustomStringConvertible {
  /// The rule that failed.
  public enum Rule: String, Sendable, Hashable, CaseIterable {
    /// A non-optional attribute or relationship is empty.
    case required
    /// A number or date is below its minimum.
    case minimumValue
    /// A number or date is above its maximum.
    case maximumValue
    /// A string or data value is shorter than its minimum length.
    case minimumLength
    /// A string or data value is longer than its maximum length.
    case maximumLength
    /// A string does not match the attribute's regular expression.
    case pattern
    /// A to-many relationship holds fewer objects than its minimum count.
    case minimumCount
    /// A to-many relationship holds more objects than its maximum count.
    case maximumCount
    /// A deleted object still has objects in a relationship whose delete rule is Deny.
    case deny
    /// Two objects share values that a uniqueness constraint says must differ.
    case uniqueness
    /// A rule the app registered.
    case custom
  }

  /// The object that failed.
  public var objectID: ManagedObjectID
  /// The object's entity.
  public var entityName: String
  /// The property concerned; `nil` for a whole-object rule.
  public var key: String?
  /// The offending value, as text; `nil` when it is empty.
  public var value: String?
  /// The rule that failed.
  public var rule: Rule
  /// One sentence saying why.
  public var message: String
  /// For a failure an entity class's validation method threw, the error it threw (the app's
  /// own); equality and hashing leave it out.
  public var underlying: (any Error)?

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.objectID == rhs.objectID && lhs.entityName == rhs.entityName && lhs.key == rhs.key
      && lhs.value == rhs.value && lhs.rule == rhs.rule && lhs.message == rhs.message
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(objectID)
    hasher.combine(key)
    hasher.combine(rule)
    hasher.combine(message)
  }

  /// `Entity.key (ID): message`.
  public var description: String {
    let place = key.map { "\(entityName).\($0)" } ?? entityName
    return "\(place) (\(objectID)): \(message)"
  }
}
