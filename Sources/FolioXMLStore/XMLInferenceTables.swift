import FolioStores

#if canImport(Glibc)
  import Glibc
#endif

/// Texts by number: each distinct sequence of bytes gets the next number, found again by a hash
/// of its bytes, so that a text read millions of times is compared, not copied into a `String`.
struct ByteInterner {
  private var bytes: [UInt8] = []
  /// Text `n` is `bytes[starts[n]..<starts[n + 1]]`.
  private var starts: [Int] = [0]
  /// Each slot holds a text's number, or -1; the table is never more than half full.
  private var slots = [Int](repeating: -1, count: 64)

  /// How many texts there are.
  var count: Int { starts.count - 1 }

  /// The number of `text`, new if it is new.
  mutating func number(of text: UnsafeBufferPointer<UInt8>) -> Int {
    let hash = Self.hash(text)
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while true {
      let entry = slots[slot]
      if entry < 0 { break }
      if matches(entry, text) { return entry }
      slot = (slot + 1) & mask
    }
    let number = count
    bytes.append(contentsOf: text)
    starts.append(bytes.count)
    slots[slot] = number
    if count * 2 > slots.count { grow() }
    return number
  }

  /// The number of `text`, new if it is new.
  mutating func number(of text: String) -> Int {
    var text = text
    return text.withUTF8 { number(of: $0) }
  }

  /// Text `number`, as a string.
  func string(_ number: Int) -> String {
    String(decoding: bytes[starts[number]..<starts[number + 1]], as: UTF8.self)
  }

  private func matches(_ number: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
    let start = starts[number]
    guard starts[number + 1] - start == text.count else { return false }
    return bytes.withUnsafeBufferPointer { stored in
      guard let base = stored.baseAddress, let other = text.baseAddress else { return true }
      return memcmp(base + start, other, text.count) == 0
    }
  }

  private mutating func grow() {
    slots = [Int](repeating: -1, count: slots.count * 2)
    let mask = slots.count - 1
    for number in 0..<count {
      let hash = bytes.withUnsafeBufferPointer { stored in
        Self.hash(UnsafeBufferPointer(rebasing: stored[starts[number]..<starts[number + 1]]))
      }
      var slot = Int(truncatingIfNeeded: hash) & mask
      while slots[slot] >= 0 { slot = (slot + 1) & mask }
      slots[slot] = number
    }
  }

  /// FNV-1a, then mixed so that the low bits the table uses depend on every byte.
  private static func hash(_ text: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return (hash ^ (hash >> 29)) &* 0xbf58_476d_1ce4_e5b9
  }
}

/// The entities of objects by the numbers of their IDs: in an array where the numbers are
/// dense (Core Data's `z1`, `z2`…), in a dictionary where they are not.
struct ObjectEntityTable {
  /// Entity + 1 of the object numbered by the index; 0 where there is none.
  private var dense: [Int32] = []
  private var sparse: [Int64: Int32] = [:]
  /// The further entities of IDs that objects of several entities share.
  private var more: [Int64: [Int]] = [:]
  private var objects = 0

  /// Records an object numbered `number` of the entity `entity`.
  mutating func add(_ number: Int64, entity: Int) {
    objects += 1
    guard first(number) == nil else {
      more[number, default: []].append(entity)
      return
    }
    let value = Int32(truncatingIfNeeded: entity + 1)
    if number >= 0, number < dense.count {
      dense[Int(number)] = value
    } else if number >= 0, number < max(1 << 16, 4 * Int64(objects)) {
      dense += [Int32](repeating: 0, count: max(Int(number) + 1, 2 * dense.count) - dense.count)
      dense[Int(number)] = value
    } else {
      sparse[number] = value
    }
  }

  /// The entity of the first object numbered `number`.
  func first(_ number: Int64) -> Int? {
    let value: Int32
    if number >= 0, number < dense.count {
      value = dense[Int(number)]
    } else {
      value = sparse[number] ?? 0
    }
    return value == 0 ? nil : Int(value) - 1
  }

  /// Each object's number and entity: for each number, the first object's, then the others'
  /// in the order they were added.
  func forEach(_ body: (Int64, Int) -> Void) {
    let hasMore = !more.isEmpty
    for (number, value) in dense.enumerated() where value != 0 {
      body(Int64(number), Int(value) - 1)
      guard hasMore else { continue }
      for entity in more[Int64(number)] ?? [] { body(Int64(number), entity) }
    }
    for (number, value) in sparse {
      body(number, Int(value) - 1)
      for entity in more[number] ?? [] { body(number, entity) }
    }
  }

  /// Whether one of the further objects numbered `number` is of `entity`.
  func hasMore(_ number: Int64, of entity: Int) -> Bool {
    more[number]?.contains(entity) == true
  }
}

/// Numbers by keys of two 64-bit halves, in an open-addressing table hashed by multiplication:
/// for keys met millions of times, cheaper than a `Dictionary`'s seeded hashing. Keys come
/// from the file, but only as numbers the scan gave out in order, so they cannot be chosen to
/// collide.
struct PairTable {
  private var firsts = [UInt64](repeating: 0, count: 64)
  private var seconds = [UInt64](repeating: 0, count: 64)
  /// Each slot's value plus one; 0 for an empty slot.
  private var values = [Int32](repeating: 0, count: 64)
  private var count = 0

  /// The value of the key (`first`, `second`), if it has one.
  func value(_ first: UInt64, _ second: UInt64) -> Int32? {
    let mask = values.count - 1
    var slot = Self.slot(first, second, mask: mask)
    while values[slot] != 0 {
      if firsts[slot] == first, seconds[slot] == second { return values[slot] - 1 }
      slot = (slot + 1) & mask
    }
    return nil
  }

  /// Gives the key (`first`, `second`), which has no value yet, the value `value` (0 or more).
  mutating func insert(_ value: Int32, _ first: UInt64, _ second: UInt64) {
    if (count + 1) * 2 > values.count { grow() }
    let mask = values.count - 1
    var slot = Self.slot(first, second, mask: mask)
    while values[slot] != 0 { slot = (slot + 1) & mask }
    firsts[slot] = first
    seconds[slot] = second
    values[slot] = value + 1
    count += 1
  }

  private mutating func grow() {
    let old = (firsts, seconds, values)
    firsts = [UInt64](repeating: 0, count: old.2.count * 2)
    seconds = firsts
    values = [Int32](repeating: 0, count: old.2.count * 2)
    count = 0
    for slot in old.2.indices where old.2[slot] != 0 {
      insert(old.2[slot] - 1, old.0[slot], old.1[slot])
    }
  }

  private static func slot(_ first: UInt64, _ second: UInt64, mask: Int) -> Int {
    let mixed = (first &* 0x9e37_79b9_7f4a_7c15) ^ (second &* 0xc2b2_ae3d_27d4_eb4f)
    return Int(truncatingIfNeeded: mixed >> 32 ^ mixed) & mask
  }
}
