import Foundation
import Synchronization

/// The methods `FUNCTION(receiver, "selector:", arguments…)` calls.
///
/// On Apple's platforms `FUNCTION` sends a message to its receiver through the Objective-C
/// runtime. Linux has none, so a selector names an entry here instead: a few of Foundation's
/// methods are built in (``builtInSelectors``), and an application registers its own.
///
/// ```swift
/// QueryFunctionRegistry.register("factorial") { receiver, _ in
///   guard let n = receiver as? Int, n >= 0 else { return nil }
///   return (1...max(n, 1)).reduce(1, *)
/// }
/// try QueryPredicate(format: "FUNCTION(n, 'factorial') > 100")
/// ```
///
/// A selector takes as many arguments as it has colons, which the parser checks; whether it is
/// registered is asked only when the expression is evaluated, as the runtime would, so a
/// predicate may be parsed before its functions are registered. The registry is shared by the
/// process and safe to use from any thread.
public enum QueryFunctionRegistry {
  /// A registered method: the receiver's value and the arguments' values in, the result out.
  /// An error it throws is reported in the evaluation's error, as its underlying error.
  public typealias Function = @Sendable (_ receiver: Any?, _ arguments: [Any?]) throws -> Any?

  /// The selectors Folio answers without registration: key-value coding
  /// (`valueForKey:`, `valueForKeyPath:`) and NSString's `stringByAppendingString:`,
  /// `uppercaseString`, `lowercaseString`, `length`.
  public static let builtInSelectors: Set<String> = [
    "valueForKey:", "valueForKeyPath:", "stringByAppendingString:", "uppercaseString",
    "lowercaseString", "length",
  ]

  private static let registered = Mutex<[String: Function]>([:])

  /// Makes `selector` call `function`, in place of any function registered under it before.
  /// A built-in selector may be replaced too.
  public static func register(_ selector: String, _ function: @escaping Function) {
    registered.withLock { $0[selector] = function }
  }

  /// Forgets the function registered under `selector`; a built-in one answers again.
  public static func unregister(_ selector: String) {
    _ = registered.withLock { $0.removeValue(forKey: selector) }
  }

  /// The number of arguments `selector` takes: one per colon.
  static func arity(of selector: String) -> Int {
    selector.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ":") ? 1 : 0) }
  }

  /// `selector` sent to `receiver` with `arguments`.
  static func call(_ selector: String, on receiver: Any?, _ arguments: [Any?]) throws(QueryError)
    -> Any?
  {
    if let function = registered.withLock({ $0[selector] }) {
      do {
        return try function(receiver, arguments)
      } catch {
        throw QueryError.functionFailed(selector, underlying: error)
      }
    }
    switch (selector, arguments.count) {
    case ("valueForKey:", 1), ("valueForKeyPath:", 1):
      guard let path = arguments[0] as? String else {
        throw QueryError.notText(arguments[0], function: selector)
      }
      guard let receiver else { return nil }
      if selector == "valueForKey:", path.contains(".") {
        throw QueryError.notOneKey(path, function: selector)
      }
      return try KeyPathWalker(path: path).value(from: receiver)
    case ("stringByAppendingString:", 1):
      guard let receiver else { return nil }
      guard let text = receiver as? String else {
        throw QueryError.notText(receiver, function: selector)
      }
      guard let suffix = arguments[0] as? String else {
        throw QueryError.notText(arguments[0], function: selector)
      }
      return text + suffix
    case ("uppercaseString", 0), ("lowercaseString", 0), ("length", 0):
      guard let receiver else { return nil }
      guard let text = receiver as? String else {
        throw QueryError.notText(receiver, function: selector)
      }
      switch selector {
      case "uppercaseString": return text.uppercased()
      case "lowercaseString": return text.lowercased()
      // NSString's length counts UTF-16 units.
      default: return text.utf16.count
      }
    default:
      throw QueryError.unregisteredFunction(selector)
    }
  }
}
