import FolioStores
import Foundation

/// Core Data's `NSSecureUnarchiveFromData` transformer (`SecureUnarchiveTransformer`): any
/// bytes, read with `value(from:)` as an `NSKeyedArchiver` archive.
///
/// A value that reads is archived again with `data(from:)`, which must take it (the
/// transformer gives only values it archives), and the archive must read back to an equal
/// value, compared through ``ValueDescription``; the harness traps otherwise, or when a value
/// is of a type the transformer does not document.
package enum TransformerFuzzing: FuzzTarget {
  static let transformer = SecureUnarchiveTransformer()

  /// Warms the transformer up, writing and reading a value of every kind it holds.
  package static func prepare() {
    let value: [Any] = [
      "a", 1, 2.5, true, Date(timeIntervalSinceReferenceDate: 0), Data([1]), UUID(),
      URL(string: "https://example.com/") as Any, ["k": 1] as [String: Any],
      Set<AnyHashable>([1, "b"]), [AnyHashable(1): "one"] as [AnyHashable: Any],
    ]
    guard let data = try? transformer.data(from: value) else {
      preconditionFailure("the transformer does not archive its own values")
    }
    run(data)
  }

  /// Archives the transformer writes: a value of every kind it holds, nested collections, and
  /// collections of mixed kinds.
  package static func seeds() -> [(name: String, data: Data)] {
    let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    let base = URL(string: "https://example.com/a/")!
    let values: [(String, Any)] = [
      ("string", "héllo \u{1F600}"), ("integer", Int64.min), ("double", 2.5), ("true", true),
      ("date", Date(timeIntervalSinceReferenceDate: 123_456.789)), ("data", Data([0, 1, 255])),
      ("uuid", uuid), ("url", URL(string: "b?c=1", relativeTo: base)!),
      ("numbers", [0, -1, Int.max, -0.0, Double.nan, Double.infinity, 1e-300, false] as [Any]),
      ("strings", ["name": "Ada", "tags": ["x", "y"], "nested": ["k": 1] as [String: Any]]),
      ("keyed", [AnyHashable(uuid): 1, AnyHashable(7): "seven"] as [AnyHashable: Any]),
      ("set", Set<AnyHashable>(["x", 3, 2.5, uuid])),
      ("nested", [[[["deep"] as [Any]] as [Any]] as [Any], [] as [Any]] as [Any]),
    ]
    return values.map { name, value in
      do {
        return (name: "\(name).bplist", data: try transformer.data(from: value))
      } catch {
        preconditionFailure("the transformer does not archive the seed \(name): \(error)")
      }
    }
  }

  /// Runs one input.
  package static func run(_ input: Data) {
    guard let value = attempt("reading", { try transformer.value(from: input) }) else { return }
    guard let text = ValueDescription.describe(value) else {
      preconditionFailure("the transformer read a value of a type it does not document: \(value)")
    }
    let data: Data
    do {
      data = try transformer.data(from: value)
    } catch {
      preconditionFailure("a value the transformer read is not archived again: \(error)\n\(text)")
    }
    let again: Any
    do {
      again = try transformer.value(from: data)
    } catch {
      preconditionFailure("an archive the transformer wrote does not read: \(error)\n\(text)")
    }
    let textAgain = ValueDescription.describe(again)
    precondition(
      textAgain == text,
      "a value archived again reads back different:\n\(text)\n\(textAgain ?? "(an unknown type)")")
  }
}
