import FolioModel

/// How a save resolves a conflict: an object the context changed or deleted whose committed row
/// another context changed since this one read it.
///
/// Core Data's five policies (`NSMergePolicy`). A property is *changed here* when the object's
/// value differs from its snapshot (the row as the context read it), *changed there* when the
/// committed row's value differs from the snapshot.
///
/// | policy | attribute or to-one changed on both sides | changed on one side only | to-many |
/// |---|---|---|---|
/// | ``error`` | the save fails | — | — |
/// | ``mergeByPropertyStoreTrump`` | the committed value | that side's value | both sides' additions and removals |
/// | ``mergeByPropertyObjectTrump`` | the context's value | that side's value | both sides' additions and removals |
/// | ``overwrite`` | the context's value | the context's value | the context's set |
/// | ``rollback`` | the committed value | the committed value | the committed set |
///
/// A relationship is always saved with both sides agreeing: moving an object to a new owner
/// takes it from the owner the committed state gives it, whoever set that. Where the policy
/// keeps a conflicting object's side of an edge, the other object's side of that edge takes its
/// committed value after the save too, so the context never holds two sides that disagree. An object another
/// context deleted stays deleted under every policy but ``error`` (the context's changes to it
/// are dropped); an object deleted here is deleted under every policy but ``rollback``, which
/// brings it back with its committed values.
///
/// The policies resolve uniqueness-constraint conflicts at a save too, as Core Data's do: an
/// object inserted with a saved object's unique values merges into it (an upsert; see
/// ``ManagedObjectContext/save()``).
public enum MergePolicy: Sendable, Hashable, CaseIterable {
  /// Refuse the save with `GraphError.mergeConflict`, listing every conflict (Core Data's
  /// `NSErrorMergePolicy`, the default).
  case error
  /// Merge property by property; where both sides changed a property, the committed value wins
  /// (`NSMergeByPropertyStoreTrumpMergePolicy`).
  case mergeByPropertyStoreTrump
  /// Merge property by property; where both sides changed a property, the context's value wins
  /// (`NSMergeByPropertyObjectTrumpMergePolicy`).
  case mergeByPropertyObjectTrump
  /// Save the context's objects whole, over whatever was committed
  /// (`NSOverwriteMergePolicy`).
  case overwrite
  /// Drop the context's changes to conflicting objects; they take the committed values
  /// (`NSRollbackMergePolicy`).
  case rollback
}

/// One object whose save conflicts with what another context committed: its values as the
/// context read them, as committed now, and as the context would save them.
///
/// The counterpart of Core Data's `NSMergeConflict`. Each dictionary holds the properties whose
/// values differ among the three; a relationship's value is the IDs of its targets.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
  /// The conflicting object.
  public var objectID: ManagedObjectID
  /// The values the context read (its snapshot).
  public var snapshot: [String: ConflictValue]
  /// The values committed now; `nil` when another context deleted the object.
  public var committed: [String: ConflictValue]?
  /// The values the context would save; `nil` when the context deleted the object.
  public var pending: [String: ConflictValue]?
  /// The row's version when the context read it, and now (0 once deleted): Core Data's
  /// `oldVersionNumber` and `newVersionNumber`.
  public var snapshotVersion: Int
  public var committedVersion: Int

  /// `ID: key read …, committed …, pending …` per differing property.
  public var description: String {
    var text = "\(objectID) (version \(snapshotVersion) read, \(committedVersion) committed)"
    if committed == nil { text += ": deleted by another context" }
    if pending == nil { text += ": deleted in this context" }
    for key in snapshot.keys.sorted() {
      let read = snapshot[key]?.description ?? "nil"
      let now = committed.map { $0[key]?.description ?? "nil" } ?? "deleted"
      let mine = pending.map { $0[key]?.description ?? "nil" } ?? "deleted"
      text += "\n    \(key): read \(read), committed \(now), pending \(mine)"
    }
    return text
  }
}

/// A property value in a ``MergeConflict``.
public enum ConflictValue: Sendable, Hashable, CustomStringConvertible {
  /// No value.
  case null
  /// An attribute's value.
  case attribute(AttributeValue)
  /// A relationship's targets, by ID (one for a to-one).
  case objects([ManagedObjectID])

  public var description: String {
    switch self {
    case .null: "nil"
    case .attribute(let value): value.modelText
    case .objects(let ids): "[" + ids.map(\.description).joined(separator: ", ") + "]"
    }
  }
}
