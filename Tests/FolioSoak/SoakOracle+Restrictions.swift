/// Where the soak stops short: states in which the oracle's simple model and Folio's
/// documented behaviour part, for the reason stated at each.
///
/// The oracle goes on predicting the documented behaviour; only the choice of operations
/// changes. The generator does not choose an operation ``isRestricted(_:)`` refuses, and a
/// replay skips one, so shrinking a divergence never walks into a known case either.
extension SoakOracle {
  /// Whether `operation` would reach, in this state, a departure the soak already reported.
  public func isRestricted(_ operation: SoakOperation) -> Bool {
    switch operation {
    case .fetch: return !isFetchSettled
    case .childSave(_, _, _, let link):
      // A child's save is the same change made in the parent only while the parent's
      // relationships agree with their inverses: it pushes each side it changed, keeping the
      // inverse in step, where a refresh (or undo with registration disabled) left sides
      // disagreeing.
      return link != nil && !relationshipsAgree
    default:
      return false
    }
  }

  /// Whether every relationship of every object in the context agrees with its inverse.
  public var relationshipsAgree: Bool {
    for (uid, object) in graph where isInContext(uid) {
      for relationship in SoakSchema.relationships[object.entity] ?? [] {
        guard let inverse = SoakSchema.inverse(of: relationship) else { continue }
        for target in targets(uid, relationship) where isInContext(target) {
          let back = targets(target, inverse)
          if !back.contains(uid) { return false }
        }
      }
    }
    return true
  }

  /// Whether a fetch now finds what ``fetchable`` says in Folio too: before pending changes
  /// are processed, Folio counts an object changed and changed back as changed, as it does
  /// for `updatedObjects`, which the soak compares only after processing; so a fetch that
  /// could meet such an object waits for the end of the turn.
  public var isFetchSettled: Bool {
    !hasUnprocessedChanges
      || !graph.keys.contains { file[$0] == nil && snapshots[$0] != nil && isLive($0) }
  }
}
