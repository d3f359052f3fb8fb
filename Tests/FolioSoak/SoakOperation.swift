/// A store format the soak saves in.
public enum SoakFormat: String, Sendable, Hashable, CaseIterable, Codable {
  case xml
  case binary = "folio"
  case sqlite

  /// The file name the soak saves to in this format.
  public var fileName: String { "soak.\(rawValue)" }
}

/// How the document's context resolves conflicts at a save: Core Data's five merge policies,
/// by the names undo scripts give them (`merge-policy store-trump`).
public enum SoakMergePolicy: String, Sendable, Hashable, CaseIterable, Codable {
  case error
  case storeTrump = "store-trump"
  case objectTrump = "object-trump"
  case overwrite
  case rollback
}

/// One step of a soak session, applied to Folio and to the oracle alike.
///
/// Objects are named by `uid`, so a step means the same thing after undo, redo or reopening.
/// Most steps act on the document's context; the child and other-context steps make a context
/// of their own for the one step.
public enum SoakOperation: Hashable, Sendable, Codable {
  case insert(entity: String, uid: Int)
  case setAttribute(uid: Int, key: String, value: SoakOracle.Value?)
  case setToOne(uid: Int, key: String, target: Int?)
  /// Adds to a to-many relationship; `index` places the object in an ordered one.
  case add(uid: Int, key: String, target: Int, index: Int?)
  case remove(uid: Int, key: String, target: Int)
  case setToMany(uid: Int, key: String, targets: [Int])
  case delete(uid: Int)
  /// The end of an event-loop turn.
  case endTurn
  /// `processPendingChanges()` without ending the turn.
  case process
  case begin
  case end
  case undo
  /// `undoNestedGroup()`.
  case undoNested
  case redo
  case levels(Int)
  case disable
  case enable
  case rollback
  /// Saves; an untitled document is saved as a file in `format`.
  case save(SoakFormat)
  /// Saves as a file in `format`, which becomes the document's file.
  case saveAs(SoakFormat)
  /// Closes the document and opens its file again.
  case reopen
  /// `reset()` of the document's context; the objects are found again by uid.
  case reset
  /// `refresh(_:mergeChanges:)` of one object.
  case refresh(uid: Int, merge: Bool)
  /// A child context of the document's context sets an attribute (and, with `link`, a to-one
  /// relationship) and saves into the document's context.
  case childSave(uid: Int, key: String, value: SoakOracle.Value?, link: Link?)
  /// A child context sets an attribute, maybe a to-one relationship, maybe deletes an object,
  /// and is discarded without saving.
  case childDiscard(uid: Int, key: String, value: SoakOracle.Value?, link: Link?, delete: Int?)
  /// A new root context on the document's coordinator sets an attribute of a committed object
  /// and saves.
  case otherSet(uid: Int, key: String, value: SoakOracle.Value?)
  /// A new root context sets a to-one relationship of a committed object (to a committed
  /// object, or to nothing) and saves.
  case otherLink(uid: Int, key: String, target: Int?)
  /// A new root context inserts an object, with a name or not, and saves.
  case otherInsert(entity: String, uid: Int, name: String?)
  /// A new root context deletes a committed object (its delete rules apply there) and saves.
  case otherDelete(uid: Int)
  /// The document's context's `mergePolicy`.
  case mergePolicy(SoakMergePolicy)
  /// `mergeChanges(fromContextDidSave:)` with the other contexts' last did-save notification.
  case mergeDidSave
  /// `refreshAllObjects()`.
  case refreshAll
  /// `objects(ofEntity:)` of every entity: a fetch, which registers what other contexts saved.
  case fetch

  /// A to-one relationship to set: `$uid.key = $target` (`nil` for none).
  public struct Link: Hashable, Sendable, Codable {
    public var uid: Int
    public var key: String
    public var target: Int?

    public init(uid: Int, key: String, target: Int?) {
      self.uid = uid
      self.key = key
      self.target = target
    }
  }

  /// The operation's kind, its first word as ``description`` writes it (`insert`, `undo`,
  /// `other-set`).
  var kind: String {
    let word = description.split(separator: " ").first.map(String.init) ?? ""
    return word.hasSuffix(":") ? String(word.dropLast()) : word
  }

  /// The objects the operation names. Each must be live in the document's context for it to
  /// apply, but for `refresh` (in the context, deleted or not) and the other context's steps
  /// (committed).
  var objects: [Int] {
    switch self {
    case .setAttribute(let uid, _, _), .delete(let uid), .refresh(let uid, _),
      .otherSet(let uid, _, _), .otherDelete(let uid):
      [uid]
    case .setToOne(let uid, _, let target), .otherLink(let uid, _, let target):
      [uid] + (target.map { [$0] } ?? [])
    case .add(let uid, _, let target, _), .remove(let uid, _, let target): [uid, target]
    case .setToMany(let uid, _, let targets): [uid] + targets
    case .childSave(let uid, _, _, let link): [uid] + (link?.objects ?? [])
    case .childDiscard(let uid, _, _, let link, let deleted):
      [uid] + (link?.objects ?? []) + (deleted.map { [$0] } ?? [])
    default: []
    }
  }

  /// The uid of the object the operation inserts, if any.
  var insertedUID: Int? {
    switch self {
    case .insert(_, let uid), .otherInsert(_, let uid, _): uid
    default: nil
    }
  }
}

extension SoakOperation.Link {
  var objects: [Int] { [uid] + (target.map { [$0] } ?? []) }

  /// `set $oUID.key = $oTARGET`, as an undo script writes it.
  var scriptLine: String { "set $o\(uid).\(key) = \(target.map { "$o\($0)" } ?? "nil")" }
}

extension SoakOracle.Value: CustomStringConvertible {
  /// The value as an undo script writes it.
  public var description: String {
    switch self {
    case .integer(let number): "\(number)"
    case .double(let number): "\(number)"
    case .string(let text): "\"\(text)\""
    case .boolean(let flag): "\(flag)"
    case .one(let uid): "$o\(uid)"
    case .list(let uids): "[" + uids.map { "$o\($0)" }.joined(separator: ", ") + "]"
    case .set(let uids): "[" + uids.sorted().map { "$o\($0)" }.joined(separator: ", ") + "]"
    }
  }
}

extension SoakOperation: CustomStringConvertible {
  public var description: String {
    switch self {
    case .insert(let entity, let uid): "insert \(entity) $o\(uid)"
    case .setAttribute(let uid, let key, let value):
      "set $o\(uid).\(key) = \(value?.description ?? "nil")"
    case .setToOne(let uid, let key, let target):
      "set $o\(uid).\(key) = \(target.map { "$o\($0)" } ?? "nil")"
    case .add(let uid, let key, let target, let index):
      "add $o\(uid).\(key) $o\(target)" + (index.map { " at \($0)" } ?? "")
    case .remove(let uid, let key, let target): "remove $o\(uid).\(key) $o\(target)"
    case .setToMany(let uid, let key, let targets):
      "set $o\(uid).\(key) = [" + targets.map { "$o\($0)" }.joined(separator: ", ") + "]"
    case .delete(let uid): "delete $o\(uid)"
    case .endTurn: "turn"
    case .process: "process"
    case .begin: "begin"
    case .end: "end"
    case .undo: "undo"
    case .undoNested: "undo-nested"
    case .redo: "redo"
    case .levels(let count): "levels \(count)"
    case .disable: "disable"
    case .enable: "enable"
    case .rollback: "rollback"
    case .save(let format): "save (untitled: as \(format.fileName))"
    case .saveAs(let format): "save as \(format.fileName)"
    case .reopen: "close and open again"
    case .reset: "reset"
    case .refresh(let uid, let merge): merge ? "refresh-merge $o\(uid)" : "refresh $o\(uid)"
    case .childSave(let uid, let key, let value, let link):
      "child-save: " + childChanges(uid, key, value, link, nil) + ", save into the parent"
    case .childDiscard(let uid, let key, let value, let link, let deleted):
      "child-discard: " + childChanges(uid, key, value, link, deleted) + ", discard the child"
    case .otherSet(let uid, let key, let value):
      "other-set: in a new root context, set $o\(uid).\(key) = \(value?.description ?? "nil"), save"
    case .otherLink(let uid, let key, let target):
      "other-link: in a new root context, "
        + Link(uid: uid, key: key, target: target).scriptLine + ", save"
    case .otherInsert(let entity, let uid, let name):
      "other-insert: in a new root context, insert \(entity) $o\(uid)"
        + (name.map { " name=\"\($0)\"" } ?? "") + ", save"
    case .otherDelete(let uid): "other-delete: in a new root context, delete $o\(uid), save"
    case .mergePolicy(let policy): "merge-policy \(policy.rawValue)"
    case .mergeDidSave: "merge-did-save: mergeChanges(fromContextDidSave:) of the last other save"
    case .refreshAll: "refresh-all"
    case .fetch: "fetch: objects(ofEntity:) of every entity"
    }
  }

  private func childChanges(
    _ uid: Int, _ key: String, _ value: SoakOracle.Value?, _ link: Link?, _ deleted: Int?
  ) -> String {
    var changes = ["set $o\(uid).\(key) = \(value?.description ?? "nil")"]
    if let link { changes.append(link.scriptLine) }
    if let deleted { changes.append("delete $o\(deleted)") }
    return changes.joined(separator: ", ")
  }
}
