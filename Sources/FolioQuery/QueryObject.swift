/// An object held by a predicate and compared by identity, such as the department in
/// `department == %@`.
///
/// A predicate is a `Sendable` value, so what it holds of an object is what may cross
/// isolation domains: the object's identity and its description, taken when the predicate is
/// built. The object itself is kept alive, so that its identity cannot pass to another object,
/// but never read again: a predicate can be sent anywhere, and it matches the very object it
/// was given, in the domain that object belongs to (as `NSPredicate` compares managed objects
/// with `isEqual:`, their identity). To find the same stored object in another context, pass
/// its object ID instead.
public struct QueryObject: Sendable, Hashable, CustomStringConvertible {
  let identity: ObjectIdentifier
  private let anchor: Anchor
  /// The object's description when it was wrapped.
  public let description: String

  /// Wraps `object`, reading its description now.
  public init(_ object: any KeyValueReadable & AnyObject) {
    identity = ObjectIdentifier(object)
    anchor = Anchor(object)
    description = "\(object)"
  }

  /// Whether both wrap the same object.
  public static func == (lhs: QueryObject, rhs: QueryObject) -> Bool {
    lhs.identity == rhs.identity
  }

  /// Hashes the object's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(identity)
  }

  /// Keeps the wrapped object alive and nothing else: no member reads `object`, so sharing an
  /// anchor across isolation domains only retains and releases it, which is atomic.
  private final class Anchor: @unchecked Sendable {
    private let object: AnyObject
    init(_ object: AnyObject) { self.object = object }
  }
}
