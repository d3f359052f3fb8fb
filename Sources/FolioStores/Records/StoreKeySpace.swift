/// Record IDs of stores that number each entity hierarchy on its own, as Core Data's SQLite
/// stores do (`Z_PK` is unique within a hierarchy's table, not across the store).
///
/// Such a store's record ID is its key space (the hierarchy root's entity number) in the bits
/// above the lowest 40, and the key within the space below them: unique across the store, as
/// records need, and the key is what object URIs show (`…/Book/p3`). Stores that number
/// every object in one sequence (XML, binary) use space 0, where an ID is its key.
public enum StoreKeySpace {
  /// How many low bits hold the key within a space: keys up to about 1.1 trillion.
  public static let keyBits = 40

  /// The largest key a space holds.
  public static let maximumKey: Int64 = (1 << keyBits) - 1

  /// The record ID of key `key` in space `space`.
  @inlinable @inline(__always)
  public static func id(space: Int, key: Int64) -> Int64 { Int64(space) << keyBits | key }

  /// The space of record ID `id`.
  @inlinable @inline(__always)
  public static func space(of id: Int64) -> Int { Int(id >> keyBits) }

  /// The key within its space of record ID `id`.
  @inlinable @inline(__always)
  public static func key(of id: Int64) -> Int64 { id & maximumKey }
}
