import FolioModel
import FolioQuery
import Foundation

/// One floating-point attribute of an entity's objects, as a column: the values of the objects
/// in table order beside their rows, so that a comparison scans contiguous doubles instead of
/// visiting each object.
///
/// Built on first use and kept while the context's `indexVersion` (objects inserted, deleted,
/// revived; rollback, reset) and `valueVersion` (any slot written) are those it was built at;
/// any change rebuilds it at the next fetch. A nil value is stored as a NaN: the two compare
/// alike (unordered, so only `!=` holds). Objects removed from the graph are left out; the
/// flags a request excludes (deleted, or inserted for the saved state) are checked on the
/// matches, since a save changes flags without touching values.
final class AttributeColumn {
  let indexVersion: Int
  let valueVersion: Int
  let rows: [Int32]
  let values: [Double]

  init(indexVersion: Int, valueVersion: Int, rows: [Int32], values: [Double]) {
    self.indexVersion = indexVersion
    self.valueVersion = valueVersion
    self.rows = rows
    self.values = values
  }

  /// The rows whose value is `op` to `constant`, compared as evaluation compares two doubles
  /// (IEEE 754: a NaN, or a nil, is unordered).
  func rows(where op: QueryComparison.Operator, _ constant: Double) -> [Int32] {
    var found: [Int32] = []
    rows.withUnsafeBufferPointer { rows in
      values.withUnsafeBufferPointer { values in
        func collect(_ test: (Double) -> Bool) {
          for index in 0..<values.count where test(values[index]) {
            found.append(rows[index])
          }
        }
        switch op {
        case .equalTo: collect { $0 == constant }
        case .notEqualTo: collect { $0 != constant }
        case .lessThan: collect { $0 < constant }
        case .lessThanOrEqualTo: collect { $0 <= constant }
        case .greaterThan: collect { $0 > constant }
        case .greaterThanOrEqualTo: collect { $0 >= constant }
        default: preconditionFailure("AttributeColumn scans only the six comparisons")
        }
      }
    }
    return found
  }
}

extension ManagedObjectContext {
  /// The comparison `request` makes, when a column can answer it: one stored Double or Float
  /// attribute against a number a double holds exactly, with one of the six comparisons.
  func columnComparison<Result>(_ request: FetchRequest<Result>, layout: EntityLayout)
    -> (slot: Int, op: QueryComparison.Operator, constant: Double)?
  {
    guard case .comparison(let comparison)? = request.predicate,
      let (slot, type, constant) = FetchPlan.simple(comparison, layout: layout),
      type == .double || type == .float, comparison.options.isEmpty,
      [
        .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan,
        .greaterThanOrEqualTo,
      ].contains(comparison.operator)
    else { return nil }
    switch constant {
    case .double(let number): return (slot, comparison.operator, number)
    case .integer(let number) where number.magnitude <= 1 << 53:
      // Exactly a double, so comparing doubles is comparing the exact values.
      return (slot, comparison.operator, Double(number))
    default: return nil
    }
  }

  /// The column of `slot` over objects of `layout` (and its subentities when asked), rebuilt
  /// when stale.
  func attributeColumn(layout: EntityLayout, slot: Int, includesSubentities: Bool)
    -> AttributeColumn
  {
    let key = layout.index << 25 | slot << 1 | (includesSubentities ? 1 : 0)
    if let column = attributeColumns[key], column.indexVersion == indexVersion,
      column.valueVersion == valueVersion
    {
      return column
    }
    // Written into preallocated memory, with no call in the loop: the objects are then only
    // read (no retain and release, whose atomic writes would stop the processor from loading
    // the next objects while it waits for this one's slots).
    let capacity = table.count
    var count = 0
    var values: [Double] = []
    let rows = [Int32](unsafeUninitializedCapacity: capacity) { rows, rowCount in
      values = [Double](unsafeUninitializedCapacity: capacity) { values, valueCount in
        table.withUnsafeBufferPointer { objects in
          for case let object? in objects where !object.flags.contains(.removed) {
            guard
              includesSubentities
                ? object.layout.isKind(of: layout.index) : object.layout === layout
            else { continue }
            rows[count] = object.row
            values[count] = object.slots.real(at: slot) ?? .nan
            count += 1
          }
        }
        valueCount = count
      }
      rowCount = count
    }
    let column = AttributeColumn(
      indexVersion: indexVersion, valueVersion: valueVersion, rows: rows, values: values)
    attributeColumns[key] = column
    return column
  }
}
