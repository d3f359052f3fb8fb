import FolioModel
import FolioQuery
import Foundation

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
