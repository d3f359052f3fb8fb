/// SplitMix64: a small, seedable random number generator, so that a failing case can be replayed
/// from the seed the test prints.
public struct SeededGenerator: RandomNumberGenerator {
  /// The generator's whole state; the seed, before the first number.
  public var state: UInt64

  /// A generator that starts from `seed`.
  public init(seed: UInt64) { state = seed }

  /// A generator that starts from `state`.
  public init(state: UInt64) { self.state = state }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
