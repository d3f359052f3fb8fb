import Foundation

/// One floating-point attribute of an entity's objects, as a column: the values of the objects
/// in table order beside their rows, so that a comparison scans contiguous doubles instead of
/// visiting each object.
///
/// A context builds one on first use and keeps it while its `indexVersion` (objects inserted, deleted,
/// revived; rollback, reset) and `valueVersion` (any slot written) are those it was built at;
/// any change rebuilds it at the next fetch. A nil value is stored as a NaN: the two compare
/// alike (unordered, so only `!=` holds). Objects removed from the graph are left out; the
/// flags a request excludes (deleted, or inserted for the saved state) are checked on the
/// matches, since a save changes flags without touching values.
package final class AttributeColumn {
  package let indexVersion: Int
  package let valueVersion: Int
  package let rows: [Int32]
  package let values: [Double]

  package init(indexVersion: Int, valueVersion: Int, rows: [Int32], values: [Double]) {
    self.indexVersion = indexVersion
    self.valueVersion = valueVersion
    self.rows = rows
    self.values = values
  }

  /// The rows whose value is `op` to `constant`, compared as evaluation compares two doubles
  /// (IEEE 754: a NaN, or a nil, is unordered).
  package func rows(where op: QueryComparison.Operator, _ constant: Double) -> [Int32] {
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
