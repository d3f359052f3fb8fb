import FolioModel
import FolioQuery
import FolioStores
internal import FolioSupport
import Foundation

/// A predicate said in SQL, as a condition on the rows of one hierarchy table, when SQL gives
/// exactly the answer Folio's evaluator gives over the same objects; otherwise no translation,
/// and the caller evaluates the predicate over the records.
///
/// What translates: `TRUEPREDICATE`, `FALSEPREDICATE`, `AND`, `OR`, `NOT`, and comparisons of
/// one stored attribute of the entity (a single key) with constants:
///
/// - `== nil` and `!= nil` on any attribute (`IS NULL`, `IS NOT NULL`);
/// - `==`, `!=`, `<`, `<=`, `>`, `>=`, `BETWEEN` and `IN` on integer, Boolean, Double and Float
///   attributes with numbers, and on dates with dates: SQLite compares integers and reals by
///   their exact values, as the evaluator does; a Boolean reads as `column <> 0`, as the
///   reader takes any non-zero integer for true;
/// - `==`, `!=` and `IN` on strings, without `[c]` or `[d]`, with constants of ASCII characters
///   other than `K`, `;` and `` ` ``: the evaluator compares strings by canonical equivalence,
///   SQLite by bytes, and only the Kelvin sign, the Greek question mark and the Greek varia
///   are canonically equivalent to ASCII characters (U+212A, U+037E, U+1FEF).
///
/// Every condition is written so that it is never NULL (`x <> 5` alone is NULL for a NULL `x`,
/// and `NOT` of it would drop the row where the evaluator, for which nil differs from 5, keeps
/// it): `x IS NULL OR x <> ?`, `x IS NOT NULL AND x < ?`. Decimals (stored as reals, compared
/// by the evaluator as decimals), string order, string operators, NaN, key paths through
/// relationships, `ANY`, `ALL`, functions and subqueries do not translate.
struct SQLitePredicate {
  /// A value bound to a `?` of ``sql``.
  enum Parameter {
    case integer(Int64)
    case real(Double)
    case text(String)
  }

  /// The condition, with `?` for each parameter in order.
  private(set) var sql = ""
  private(set) var parameters: [Parameter] = []

  /// The columns of the entity's stored attributes, by attribute name.
  private let columns: [String: (attribute: AttributeDescription, column: String)]

  /// `predicate` as a condition on the rows of `entity`'s table; `nil` when SQL cannot say it
  /// exactly as the evaluator would answer it.
  init?(_ predicate: QueryPredicate, entity: SQLiteSchema.Entity, binding: SQLiteBinding) {
    var columns: [String: (AttributeDescription, String)] = [:]
    for column in binding.schema.attributes[entity.name] ?? [] where !column.attribute.isTransient {
      columns[column.attribute.name] = (
        column.attribute,
        Quoting.sqlIdentifier(binding.column(column.column, of: entity.table))
      )
    }
    self.columns = columns
    guard let sql = translate(predicate) else { return nil }
    self.sql = sql
  }

  /// Binds the parameters to `statement`, from index `first` on.
  func bind(to statement: SQLiteStatement, from first: Int) {
    for (offset, parameter) in parameters.enumerated() {
      switch parameter {
      case .integer(let value): statement.bind(value, at: first + offset)
      case .real(let value): statement.bind(value, at: first + offset)
      case .text(let value): statement.bind(value, at: first + offset)
      }
    }
  }

  private mutating func translate(_ predicate: QueryPredicate) -> String? {
    switch predicate {
    case .constant(let holds): return holds ? "1" : "0"
    case .and(let parts), .or(let parts):
      let isAnd = if case .and = predicate { true } else { false }
      guard !parts.isEmpty else { return isAnd ? "1" : "0" }
      var translated: [String] = []
      for part in parts {
        guard let sql = translate(part) else { return nil }
        translated.append(sql)
      }
      return "(" + translated.joined(separator: isAnd ? " AND " : " OR ") + ")"
    case .not(let inner):
      guard let sql = translate(inner) else { return nil }
      return "(NOT \(sql))"
    case .comparison(let comparison):
      return translate(comparison)
    }
  }

  private mutating func translate(_ comparison: QueryComparison) -> String? {
    guard comparison.modifier == .direct else { return nil }
    var op = comparison.operator
    var key: String
    var other: QueryExpression
    switch (comparison.left, comparison.right) {
    case (.keyPath(let path), let right):
      key = path
      other = right
    case (let left, .keyPath(let path)):
      // `5 < amount` is `amount > 5`; IN and the rest do not turn around.
      guard let flipped = Self.flipped(op) else { return nil }
      key = path
      other = left
      op = flipped
    default:
      return nil
    }
    guard let (attribute, column) = columns[key] else { return nil }
    let kind = Kind(attribute.attributeType)
    // `== nil` and `!= nil` hold for any stored attribute.
    if case .constant(.null) = other {
      switch op {
      case .equalTo: return "\(column) IS NULL"
      case .notEqualTo: return "\(column) IS NOT NULL"
      case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .between:
        return "0"
      default: return nil
      }
    }
    guard let kind, comparison.options.isEmpty || kind != .string else { return nil }
    let value = kind == .boolean ? "(\(column) <> 0)" : column
    switch op {
    case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan,
      .greaterThanOrEqualTo:
      guard case .constant(let constant) = other, let parameter = kind.parameter(constant),
        kind != .string || op == .equalTo || op == .notEqualTo
      else { return nil }
      parameters.append(parameter)
      if op == .notEqualTo { return "(\(column) IS NULL OR \(value) <> ?)" }
      return "(\(column) IS NOT NULL AND \(value) \(Self.symbol(op)) ?)"
    case .between:
      guard kind != .string, case .aggregate(let bounds) = other, bounds.count == 2,
        case .constant(let low) = bounds[0], case .constant(let high) = bounds[1],
        let lowParameter = kind.parameter(low), let highParameter = kind.parameter(high)
      else { return nil }
      parameters += [lowParameter, highParameter]
      return "(\(column) IS NOT NULL AND \(value) BETWEEN ? AND ?)"
    case .in:
      guard case .aggregate(let elements) = other else { return nil }
      var hasNil = false
      var listed: [Parameter] = []
      for element in elements {
        guard case .constant(let constant) = element else { return nil }
        if case .null = constant {
          hasNil = true
          continue
        }
        guard let parameter = kind.parameter(constant) else { return nil }
        listed.append(parameter)
      }
      parameters += listed
      let members =
        listed.isEmpty
        ? "0"
        : "(\(column) IS NOT NULL AND \(value) IN ("
          + Array(repeating: "?", count: listed.count).joined(separator: ", ") + "))"
      return hasNil ? "(\(column) IS NULL OR \(members))" : members
    default:
      return nil
    }
  }

  private static func flipped(_ op: QueryComparison.Operator) -> QueryComparison.Operator? {
    switch op {
    case .equalTo, .notEqualTo: return op
    case .lessThan: return .greaterThan
    case .lessThanOrEqualTo: return .greaterThanOrEqualTo
    case .greaterThan: return .lessThan
    case .greaterThanOrEqualTo: return .lessThanOrEqualTo
    default: return nil
    }
  }

  private static func symbol(_ op: QueryComparison.Operator) -> String {
    switch op {
    case .lessThan: return "<"
    case .lessThanOrEqualTo: return "<="
    case .greaterThan: return ">"
    case .greaterThanOrEqualTo: return ">="
    default: return "="
    }
  }

  /// The attributes a comparison translates for, by how SQL holds their values.
  private enum Kind {
    case number, boolean, date, string

    init?(_ type: AttributeType) {
      switch type {
      case .integer16, .integer32, .integer64, .double, .float: self = .number
      case .boolean: self = .boolean
      case .date: self = .date
      case .string: self = .string
      default: return nil
      }
    }

    /// `constant` bound as SQLite compares it with the column as the evaluator compares it
    /// with the attribute's value; `nil` when it would not.
    func parameter(_ constant: QueryValue) -> Parameter? {
      switch (self, constant) {
      case (.number, .integer(let value)), (.boolean, .integer(let value)):
        return .integer(Int64(value))
      case (.number, .boolean(let flag)), (.boolean, .boolean(let flag)):
        return .integer(flag ? 1 : 0)
      case (.number, .double(let value)), (.boolean, .double(let value)):
        return value.isNaN ? nil : .real(value)
      case (.date, .date(let date)):
        let seconds = date.timeIntervalSinceReferenceDate
        return seconds.isNaN ? nil : .real(seconds)
      case (.string, .string(let text)):
        let exact = text.utf8.allSatisfy { byte in
          byte < 0x80 && byte != UInt8(ascii: "K") && byte != UInt8(ascii: ";")
            && byte != UInt8(ascii: "`")
        }
        return exact ? .text(text) : nil
      default:
        return nil
      }
    }
  }
}
