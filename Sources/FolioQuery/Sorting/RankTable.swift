import Foundation

/// A sort key as the ranking tells values apart: equality, and a 64-bit hash that equal keys
/// share — a multiply or a pass over a few bytes, where `Hasher` (SipHash, seeded per process)
/// costs several times as much per key. Collisions cost a comparison, never a wrong rank.
protocol RankKey: Equatable {
  var rankHash: UInt64 { get }
}

/// Spreads `bits` over all 64 bits (Fibonacci hashing: the top bits pick the bucket).
@inline(__always)
func spread(_ bits: UInt64) -> UInt64 { bits &* 0x9E37_79B9_7F4A_7C15 }

extension Int: RankKey {
  var rankHash: UInt64 { spread(UInt64(bitPattern: Int64(self))) }
}

/// A string told apart from others by its UTF-8 bytes: equal bytes are equal strings, and
/// hashing bytes skips the canonical normalization that hashing a `String` does.
struct UTF8Key: RankKey {
  let string: String

  static func == (lhs: UTF8Key, rhs: UTF8Key) -> Bool {
    lhs.string.utf8.elementsEqual(rhs.string.utf8)
  }

  /// FNV-1a over the bytes, spread.
  var rankHash: UInt64 {
    var string = string
    return string.withUTF8 { bytes in
      var hash: UInt64 = 0xCBF2_9CE4_8422_2325
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
      return spread(hash ^ UInt64(bytes.count))
    }
  }
}

/// The distinct keys of one ranking, each given an ID in order of first appearance: open
/// addressing with linear probing over a power-of-two table kept at most half full.
struct RankTable<Key: RankKey> {
  /// Per bucket: 0 when empty, else the key's ID + 1.
  private var buckets = [UInt32](repeating: 0, count: 1 << 10)
  private var shift: UInt64 = 64 - 10
  private var keys: [Key] = []
  private var hashes: [UInt64] = []

  /// The ID of `key`, and whether it is new (then the next ID, in order of first appearance).
  mutating func id(of key: Key) -> (id: UInt32, isNew: Bool) {
    let hash = key.rankHash
    let mask = buckets.count - 1
    var bucket = Int(truncatingIfNeeded: hash >> shift)
    while true {
      let entry = buckets[bucket]
      if entry == 0 { break }
      let id = Int(entry - 1)
      if hashes[id] == hash, keys[id] == key { return (UInt32(id), false) }
      bucket = (bucket + 1) & mask
    }
    let id = UInt32(keys.count)
    keys.append(key)
    hashes.append(hash)
    buckets[bucket] = id + 1
    if keys.count * 2 > buckets.count { grow() }
    return (id, true)
  }

  private mutating func grow() {
    buckets = [UInt32](repeating: 0, count: buckets.count * 2)
    shift -= 1
    let mask = buckets.count - 1
    for (id, hash) in hashes.enumerated() {
      var bucket = Int(truncatingIfNeeded: hash >> shift)
      while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
      buckets[bucket] = UInt32(id + 1)
    }
  }
}

/// Each element's rank in one sort level: equal keys share a rank, and comparing ranks
/// compares keys in the level's order (nil first ascending, last descending).
struct RankColumn {
  var ranks: [UInt32]
  /// The largest rank.
  var largest: UInt32
}

/// A double that orders as sort descriptors order numbers, a total order: by value, with every
/// NaN equal to every other, after every number below zero and before zero and the rest.
struct SortableDouble: Comparable, RankKey {
  var value: Double

  static func < (lhs: SortableDouble, rhs: SortableDouble) -> Bool {
    if lhs.value < rhs.value { return true }
    guard lhs.value.isNaN || rhs.value.isNaN else { return false }
    return QueryValues.sortOrder(lhs.value, rhs.value) == .orderedAscending
  }

  static func == (lhs: SortableDouble, rhs: SortableDouble) -> Bool {
    lhs.value == rhs.value || (lhs.value.isNaN && rhs.value.isNaN)
  }

  /// Equal values hash alike: every NaN as one, and -0.0 as 0.0.
  var rankHash: UInt64 {
    spread(value.isNaN ? Double.nan.bitPattern : value == 0 ? 0 : value.bitPattern)
  }
}
