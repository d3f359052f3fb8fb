/// A least-significant-digit radix sort of positions by unsigned keys: stable, so positions
/// with equal keys keep their order, and linear — one counting pass and one scatter pass per
/// 11-bit digit of the keys' `bits` low bits, skipping digits every key shares.
enum RadixSort {
  static let digitBits = 11

  /// The positions of `keys` ordered by key, ties in position order.
  static func stableOrder(of keys: [UInt64], bits: Int) -> [Int] {
    let count = keys.count
    guard count > 1, bits > 0 else { return Array(0..<count) }
    precondition(count <= Int(UInt32.max), "at most 2^32 - 1 keys")
    let radix = 1 << digitBits
    let mask = UInt64(radix - 1)
    var order = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
      for index in 0..<count { buffer[index] = UInt32(index) }
      initialized = count
    }
    var scratch = [UInt32](repeating: 0, count: count)
    var counts = [Int](repeating: 0, count: radix)
    keys.withUnsafeBufferPointer { keys in
      var shift = 0
      while shift < bits {
        let digitShift = UInt64(shift)
        shift += digitBits
        counts.withUnsafeMutableBufferPointer { counts in
          counts.update(repeating: 0)
          for key in keys { counts[Int((key >> digitShift) & mask)] += 1 }
          // A digit every key shares moves nothing.
          guard !counts.contains(count) else { return }
          var total = 0
          for digit in 0..<radix {
            let here = counts[digit]
            counts[digit] = total
            total += here
          }
          order.withUnsafeBufferPointer { order in
            scratch.withUnsafeMutableBufferPointer { scratch in
              for position in order {
                let digit = Int((keys[Int(position)] >> digitShift) & mask)
                scratch[counts[digit]] = position
                counts[digit] += 1
              }
            }
          }
          swap(&order, &scratch)
        }
      }
    }
    return order.map { Int($0) }
  }
}
