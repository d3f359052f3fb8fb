import Foundation

/// What a derived attribute is computed from: the forms Core Data's derived attributes take.
///
/// - a key path, collection operators included: `author.name`, `posts.@count`,
///   `items.@sum.price`;
/// - `now()`: the time of the save;
/// - a string function of a key path: `lowercase:(title)`, `uppercase:(title)`,
///   `canonical:(title)` (case and diacritics folded, as Core Data's `[cd]` comparisons fold
///   them).
///
/// An attribute keeps its expression as text (``AttributeDescription/derivationExpression``);
/// reading a model checks the text parses.
public enum DerivationExpression: Sendable, Hashable, CustomStringConvertible {
  /// The value at a key path of the object.
  case keyPath(String)
  /// The time of the save.
  case now
  /// A string function of the value at a key path.
  case function(StringFunction, String)

  /// The string functions a derivation can apply.
  public enum StringFunction: String, Sendable, Hashable, CaseIterable {
    case lowercase
    case uppercase
    /// Lower case, without diacritics: what Core Data compares for `[cd]`.
    case canonical
  }

  /// Parses `text`; `nil` when it is none of the forms above.
  public init?(parsing text: String) {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if trimmed == "now()" {
      self = .now
      return
    }
    for function in StringFunction.allCases {
      let prefix = "\(function.rawValue):("
      if trimmed.hasPrefix(prefix), trimmed.hasSuffix(")") {
        let inner = String(trimmed.dropFirst(prefix.count).dropLast())
          .trimmingCharacters(in: .whitespaces)
        guard Self.isKeyPath(inner) else { return nil }
        self = .function(function, inner)
        return
      }
    }
    guard Self.isKeyPath(trimmed) else { return nil }
    self = .keyPath(trimmed)
  }

  /// Whether `text` is a key path: names and `@operators` separated by dots.
  private static func isKeyPath(_ text: String) -> Bool {
    let steps = text.split(separator: ".", omittingEmptySubsequences: false)
    guard !steps.isEmpty else { return false }
    return steps.allSatisfy { step in
      isName(step.hasPrefix("@") ? step.dropFirst() : step[...])
    }
  }

  /// Whether `name` can name a property: letters, digits and underscores, not starting with a
  /// digit (what Xcode allows, and what Swift takes as an identifier).
  package static func isName(_ name: Substring) -> Bool {
    guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else {
      return false
    }
    return name.unicodeScalars.allSatisfy {
      $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0)
        || ("0"..."9").contains($0) || $0.value > 0x7F
    }
  }

  /// The expression as Core Data writes it.
  public var description: String {
    switch self {
    case .keyPath(let path): path
    case .now: "now()"
    case .function(let function, let path): "\(function.rawValue):(\(path))"
    }
  }
}
