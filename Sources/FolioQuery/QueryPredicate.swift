/// A condition on an object, as Core Data's `NSPredicate` states it: parsed from its format
/// syntax, or built in Swift.
///
/// ```swift
/// let adults = try QueryPredicate(format: "age >= %d AND name BEGINSWITH[c] %@", 18, "a")
/// let same: QueryPredicate = .key("age") >= 18 && .key("name").beginsWith("a", .caseInsensitive)
/// try adults.evaluate(with: person)
/// ```
///
/// A predicate is a value: two predicates are equal when their trees are, and ``description``
/// prints the tree back in format syntax that parses to an equal predicate.
public indirect enum QueryPredicate: Sendable, Hashable {
  /// `TRUEPREDICATE` or `FALSEPREDICATE`.
  case constant(Bool)
  /// A comparison of two expressions.
  case comparison(QueryComparison)
  /// Every predicate holds (`AND`, `&&`); an empty list holds.
  case and([QueryPredicate])
  /// Some predicate holds (`OR`, `||`); an empty list does not.
  case or([QueryPredicate])
  /// The predicate does not hold (`NOT`, `!`).
  case not(QueryPredicate)
}

/// A comparison: `ANY spendings.amount >[c] 10`, with its modifier, operator and options.
public struct QueryComparison: Sendable, Hashable {
  /// How the left side is read.
  public enum Modifier: Sendable, Hashable {
    /// The left side as it is.
    case direct
    /// `ANY` (or `SOME`): some element of the left collection compares true.
    case any
    /// `ALL`: every element of the left collection compares true.
    case all
  }

  /// The comparison operator.
  public enum Operator: Sendable, Hashable, CaseIterable {
    /// `==` or `=`.
    case equalTo
    /// `!=` or `<>`.
    case notEqualTo
    /// `<`.
    case lessThan
    /// `<=` or `=<`.
    case lessThanOrEqualTo
    /// `>`.
    case greaterThan
    /// `>=` or `=>`.
    case greaterThanOrEqualTo
    /// `BETWEEN {lower, upper}`, bounds included.
    case between
    /// `IN`: the left value is an element of the right collection (or a substring of it).
    case `in`
    /// `BEGINSWITH`.
    case beginsWith
    /// `ENDSWITH`.
    case endsWith
    /// `CONTAINS`: a substring, or an element of the left collection.
    case contains
    /// `LIKE`, with `*` for any run of characters and `?` for one.
    case like
    /// `MATCHES`: an ICU regular expression matching the whole string.
    case matches
    /// `UTI-CONFORMS-TO`: the left uniform type identifier conforms to the right one. Linux
    /// has no type hierarchy: an identifier conforms to itself only, compared without case.
    case utiConformsTo
    /// `UTI-EQUALS`: the two uniform type identifiers are the same, compared without case.
    case utiEquals

    /// The operator as the format syntax writes it.
    public var symbol: String {
      switch self {
      case .equalTo: return "=="
      case .notEqualTo: return "!="
      case .lessThan: return "<"
      case .lessThanOrEqualTo: return "<="
      case .greaterThan: return ">"
      case .greaterThanOrEqualTo: return ">="
      case .between: return "BETWEEN"
      case .in: return "IN"
      case .beginsWith: return "BEGINSWITH"
      case .endsWith: return "ENDSWITH"
      case .contains: return "CONTAINS"
      case .like: return "LIKE"
      case .matches: return "MATCHES"
      case .utiConformsTo: return "UTI-CONFORMS-TO"
      case .utiEquals: return "UTI-EQUALS"
      }
    }
  }

  /// String comparison options: `[c]`, `[d]`, `[cd]`, `[n]`.
  public struct Options: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: Int
    /// Creates options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `[c]`: letters compare without case, by Unicode case folding.
    public static let caseInsensitive = Options(rawValue: 1)
    /// `[d]`: letters compare without diacritics (`é` is `e`).
    public static let diacriticInsensitive = Options(rawValue: 2)
    /// `[n]`: the strings are already normalized (folded as the application wants them
    /// compared), so they compare as they are. As NSPredicate's, it supersedes `[c]` and `[d]`.
    public static let normalized = Options(rawValue: 4)

    /// `[c]`, `[d]`, `[cd]`, `[n]`, or empty.
    public var symbol: String {
      var text = ""
      if contains(.caseInsensitive) { text += "c" }
      if contains(.diacriticInsensitive) { text += "d" }
      if contains(.normalized) { text += "n" }
      return text.isEmpty ? "" : "[\(text)]"
    }
  }

  /// The left expression.
  public var left: QueryExpression
  /// The operator.
  public var `operator`: Operator
  /// The right expression.
  public var right: QueryExpression
  /// How the left side is read. The default is `.direct`.
  public var modifier: Modifier
  /// String comparison options. The default is none.
  public var options: Options

  /// Creates a comparison.
  public init(
    _ left: QueryExpression, _ operator: Operator, _ right: QueryExpression,
    modifier: Modifier = .direct, options: Options = []
  ) {
    self.left = left
    self.operator = `operator`
    self.right = right
    self.modifier = modifier
    self.options = options
  }
}
