import Foundation

/// An object held by a predicate and compared by identity, such as the department in
/// `department == %@`.
///
/// It is `Sendable` because the predicate never calls the object: it only compares its
/// identity, which is safe from any thread. Evaluate the predicate in the object's own
/// isolation domain, as any read of the graph must be.
public final class QueryObject: @unchecked Sendable, Hashable, CustomStringConvertible {
  /// The object.
  public let object: any KeyValueReadable & AnyObject

  /// Wraps `object`.
  public init(_ object: any KeyValueReadable & AnyObject) {
    self.object = object
  }

  /// Whether both wrap the same object.
  public static func == (lhs: QueryObject, rhs: QueryObject) -> Bool {
    lhs.object === rhs.object
  }

  /// Hashes the object's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(object))
  }

  /// The object's own description.
  public var description: String { "\(object)" }
}
