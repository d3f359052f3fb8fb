/// A note about where part of a model came from, which equality and hashing ignore.
///
/// Model values are `Hashable` so that two models can be compared field by field: a model read
/// from a file, written out and read again must equal the first. Where each part was declared
/// (file and line) legitimately differs between two files describing the same model, so each
/// description keeps its locations in a `SourceNote`, whose `==` is always `true` and whose hash
/// is empty. Every other stored field takes part in the synthesized conformances, so a field
/// added later is compared without anyone having to remember it.
struct SourceNote<Value: Sendable>: Sendable, Hashable {
  var value: Value

  init(_ value: Value) { self.value = value }

  static func == (lhs: Self, rhs: Self) -> Bool { true }
  func hash(into hasher: inout Hasher) {}
}
