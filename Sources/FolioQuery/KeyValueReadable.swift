/// Anything a predicate or sort descriptor can read values from by key.
///
/// Folio's managed objects conform; so can any type of your own. Evaluation asks for one key
/// at a time: `person.friend.name` asks the person for `friend`, then the friend for `name`, and
/// the query layer applies collection operators (`@count`, `@sum.amount`) itself, so a
/// conforming type only has to answer its own keys.
///
/// Return Swift values: `Int`, `Double`, `Float`, `Decimal`, `String`, `Bool`, `Date`, `Data`,
/// `UUID`, `URL`, `nil`, other `KeyValueReadable` objects for to-one relationships, and arrays
/// or sets of them for to-many ones. Throw for a key the object does not have: the evaluator
/// reports it as `QueryError.unknownKey`, never as a silent `false`.
///
/// ```swift
/// struct Point: KeyValueReadable {
///   var x = 0, y = 0
///   func value(forKeyPath keyPath: String) throws -> Any? {
///     switch keyPath {
///     case "x": return x
///     case "y": return y
///     default: throw MyError.unknownKey(keyPath)
///     }
///   }
/// }
/// ```
public protocol KeyValueReadable {
  /// The value for `keyPath`, usually a single key.
  ///
  /// - Throws: any error, for a key the object does not have.
  func value(forKeyPath keyPath: String) throws -> Any?
}
