// Shared by the store readers: what the records of one entity have in common, built once.

/// The names of the rows of one entity's records, one ``RecordNames`` per set of columns
/// present (as bits), in column order, shared by every record with that set.
package struct RowNamesCache {
  package let names: [String]
  @usableFromInline var cache: [UInt64: RecordNames] = [:]
  @usableFromInline var mask: UInt64 = 0
  @usableFromInline var current: RecordNames?

  package init(names: [String]) {
    self.names = names
  }

  /// The names of the columns in `mask`, which is not 0.
  @inlinable @inline(__always)
  package mutating func names(for mask: UInt64) -> RecordNames {
    if mask == self.mask, let current { return current }
    return lookUp(mask)
  }

  @usableFromInline
  mutating func lookUp(_ mask: UInt64) -> RecordNames {
    self.mask = mask
    let found =
      cache[mask]
      ?? RecordNames(names.indices.filter { mask & (1 << UInt64($0)) != 0 }.map { names[$0] })
    cache[mask] = found
    current = found
    return found
  }
}

/// A dictionary holding the keys of some columns, and each key's index in it.
package struct KeyedTemplate<Value> {
  package var dictionary: [String: Value] = [:]
  /// Each column's key's index in `dictionary`, or its end index for a column left out.
  package var slots: [Dictionary<String, Value>.Index] = []
}

/// The templates of one entity's relationship dictionaries, by the set of columns present (as
/// bits): a record's dictionary is a copy of its template with the values set by index, with
/// no key hashed.
package struct TemplateCache<Value> {
  package let keys: [String]
  package let placeholder: Value
  private var cache: [UInt64: KeyedTemplate<Value>] = [:]
  @usableFromInline var mask: UInt64 = 0
  /// The template of the last set selected.
  package private(set) var current = KeyedTemplate<Value>()

  package init(keys: [String], placeholder: Value) {
    self.keys = keys
    self.placeholder = placeholder
  }

  /// Makes the template of the columns in `mask`, which is not 0, the current one.
  @inlinable @inline(__always)
  package mutating func select(_ mask: UInt64) {
    if mask != self.mask { load(mask) }
  }

  @usableFromInline
  mutating func load(_ mask: UInt64) {
    self.mask = mask
    if let cached = cache[mask] {
      current = cached
      return
    }
    func contains(_ column: Int) -> Bool { mask & (1 << UInt64(column)) != 0 }
    var dictionary = [String: Value](minimumCapacity: mask.nonzeroBitCount)
    for (column, key) in keys.enumerated() where contains(column) {
      dictionary[key] = placeholder
    }
    let slots = keys.indices.map { column in
      contains(column)
        ? dictionary.index(forKey: keys[column]) ?? dictionary.endIndex : dictionary.endIndex
    }
    current = KeyedTemplate(dictionary: dictionary, slots: slots)
    cache[mask] = current
  }
}
