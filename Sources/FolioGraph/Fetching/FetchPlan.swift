import FolioModel
import FolioQuery
import Foundation

/// How a fetch finds its matches: from an attribute index, by comparing stored values
/// directly, or by evaluating the predicate through key paths.
///
/// A predicate is evaluated in general by reading key paths, one object at a time — correct for
/// every predicate, but slow for the common simple ones. The plan recognises comparisons of one
/// attribute with a constant (`amount > 10`, `name == "Ada"`) and compares the stored slot
/// values directly, with the same results — also through to-one relationships
/// (`person.name == "Ada"`), following each object's targets as a key path would; an equality
/// on an attribute the model indexes
/// (`indexed="YES"`, or the first element of a fetch index) is answered from a hash index built
/// on first use and rebuilt after a change to that attribute or to which objects exist. Anything
/// else falls back to evaluation.
enum FetchPlan {
  /// A compiled test of one object, or `nil` when the predicate needs evaluation.
  typealias Test = (ManagedObject) -> Bool

  /// A test of one stored value.
  typealias ValueTest = (Slot) -> Bool

  /// A direct test for `predicate` on objects of `layout`, if it has a shape the plan knows;
  /// `layouts` are every entity's, for key paths through relationships.
  static func compile(_ predicate: QueryPredicate, layout: EntityLayout, layouts: [EntityLayout])
    -> Test?
  {
    switch predicate {
    case .constant(let value):
      return { _ in value }
    case .and(let parts):
      let tests = parts.compactMap { compile($0, layout: layout, layouts: layouts) }
      guard tests.count == parts.count else { return nil }
      return { object in tests.allSatisfy { $0(object) } }
    case .or(let parts):
      let tests = parts.compactMap { compile($0, layout: layout, layouts: layouts) }
      guard tests.count == parts.count else { return nil }
      return { object in tests.contains { $0(object) } }
    case .not(let inner):
      guard let test = compile(inner, layout: layout, layouts: layouts) else { return nil }
      return { !test($0) }
    case .comparison(let comparison):
      return compile(comparison, layout: layout, layouts: layouts)
    }
  }

  /// The to-one slots a key path follows from `layout`'s objects, in turn, and the slot and
  /// type of the stored attribute it ends at, when it is such a path (`person.name`).
  static func attributePath(_ key: String, layout: EntityLayout, layouts: [EntityLayout])
    -> (steps: [Int], slot: Int, type: AttributeType)?
  {
    guard !key.contains("@") else { return nil }
    var steps: [Int] = []
    var current = layout
    let names = key.split(separator: ".", omittingEmptySubsequences: false)
    for name in names.dropLast() {
      guard let slot = current.slotByName[String(name)],
        let relationship = current.properties[slot].relationship, !relationship.isToMany,
        !relationship.description.isTransient, layouts.indices.contains(relationship.destination)
      else { return nil }
      steps.append(slot)
      current = layouts[relationship.destination]
    }
    guard let last = names.last, let slot = current.slotByName[String(last)],
      let attribute = current.properties[slot].attribute, !attribute.isTransient
    else { return nil }
    return (steps, slot, attribute.attributeType)
  }

  /// The slot and constant of `attribute OP constant`, when the comparison is one.
  static func simple(_ comparison: QueryComparison, layout: EntityLayout)
    -> (slot: Int, type: AttributeType, constant: QueryValue)?
  {
    guard comparison.modifier == .direct,
      case .keyPath(let key) = comparison.left, !key.contains("."), !key.contains("@"),
      case .constant(let constant) = comparison.right,
      let slot = layout.slotByName[key], let attribute = layout.properties[slot].attribute,
      !attribute.isTransient
    else { return nil }
    return (slot, attribute.attributeType, constant)
  }

  private static func compile(
    _ comparison: QueryComparison, layout: EntityLayout, layouts: [EntityLayout]
  ) -> Test? {
    guard comparison.modifier == .direct, case .keyPath(let key) = comparison.left,
      case .constant(let constant) = comparison.right,
      let (steps, slot, type) = attributePath(key, layout: layout, layouts: layouts),
      let test = valueTest(comparison, type: type, constant: constant)
    else { return nil }
    guard !steps.isEmpty else { return { object in test(object.slots[slot]) } }
    // A target that is not there makes the value nil, as it makes the key path's.
    return { object in
      var current = object
      for step in steps {
        guard case .object(let row) = current.slots[step], let context = current.owner,
          let next = context.object(atRow: row)
        else { return test(.null) }
        current = next
      }
      return test(current.slots[slot])
    }
  }

  /// The test of a stored value of `type` for `comparison` with `constant`, if it is one the
  /// plan compares directly.
  private static func valueTest(
    _ comparison: QueryComparison, type: AttributeType, constant: QueryValue
  ) -> ValueTest? {
    let op = comparison.operator
    if type == .string, case .string(let text) = constant,
      [.contains, .beginsWith, .endsWith].contains(op)
    {
      return stringTest(op: op, text: text, options: comparison.options)
    }
    guard comparison.options.isEmpty else { return nil }
    if type.isInteger || type == .double || type == .float {
      return numericTest(op: op, constant: constant)
    }
    if type == .string, case .string(let text) = constant, op == .equalTo || op == .notEqualTo {
      let wanted = op == .equalTo
      return { value in
        if case .string(let value) = value { return (value == text) == wanted }
        return !wanted
      }
    }
    return nil
  }

  /// `CONTAINS`, `BEGINSWITH`, `ENDSWITH` with their `[cd]` options, the constant folded
  /// once; a `nil` value never matches, as in evaluation, and the search itself is
  /// evaluation's own (`finds(_:in:)`: an empty needle is found nowhere).
  private static func stringTest(
    op: QueryComparison.Operator, text: String, options: QueryComparison.Options
  ) -> ValueTest {
    let needle = options.fold(text)
    return { value in
      guard case .string(let value) = value else { return false }
      return op.finds(needle, in: options.fold(value))
    }
  }

  /// `attribute OP number` on stored integers and doubles, compared exactly as evaluation
  /// compares numbers: integers with integers and doubles by their exact values, and a NaN
  /// (or a nil) unordered, so that only `!=` holds for it.
  private static func numericTest(op: QueryComparison.Operator, constant: QueryValue)
    -> ValueTest?
  {
    guard
      [
        .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan,
        .greaterThanOrEqualTo,
      ].contains(op)
    else { return nil }
    switch constant {
    case .integer(let number):
      return { value in
        switch value {
        case .integer(let value): return holds(op, QueryValues.order3(Int(value), number))
        case .real(let value):
          return holds(op, QueryValues.compare(number, value).map(QueryValues.reversed))
        default: return holds(op, nil)
        }
      }
    case .double(let number):
      return { value in
        switch value {
        case .integer(let value): return holds(op, QueryValues.compare(Int(value), number))
        case .real(let value): return holds(op, QueryValues.compare(value, number))
        default: return holds(op, nil)
        }
      }
    default:
      return nil
    }
  }

  /// Whether `op` holds for a stored value in `order` to the constant; `nil` for a nil or a
  /// NaN on either side.
  @inline(__always)
  private static func holds(_ op: QueryComparison.Operator, _ order: ComparisonResult?) -> Bool {
    switch op {
    case .equalTo: return order == .orderedSame
    case .notEqualTo: return order != .orderedSame
    case .lessThan: return order == .orderedAscending
    case .lessThanOrEqualTo: return order == .orderedAscending || order == .orderedSame
    case .greaterThan: return order == .orderedDescending
    default: return order == .orderedDescending || order == .orderedSame
    }
  }
}

/// A hash index of one attribute's values over an entity's objects (subentities included).
final class AttributeIndex {
  /// The context's index version when the index was built.
  let version: Int
  let rows: [IndexKey: [Int32]]

  init(version: Int, rows: [IndexKey: [Int32]]) {
    self.version = version
    self.rows = rows
  }
}

/// A value as an index keys it: numbers by value, so `3` and `3.0` find each other.
///
/// Numbers are keyed as doubles, so integers beyond 2⁵³ may share a key with their
/// neighbours; the index only narrows the rows, and the comparison's compiled test, which
/// compares exactly, decides each of them.
enum IndexKey: Hashable {
  case number(Double)
  case string(String)
  case boolean(Bool)

  init?(_ slot: Slot) {
    switch slot {
    case .integer(let value): self = .number(Double(value))
    case .real(let value): self = .number(value)
    case .string(let value): self = .string(value)
    case .boolean(let value): self = .boolean(value)
    default: return nil
    }
  }

  init?(_ constant: QueryValue) {
    switch constant {
    case .integer(let value): self = .number(Double(value))
    case .double(let value): self = .number(value)
    case .string(let value): self = .string(value)
    case .boolean(let value): self = .boolean(value)
    default: return nil
    }
  }
}
