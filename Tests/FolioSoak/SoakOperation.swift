/// A store format the soak saves in.
public enum SoakFormat: String, Sendable, Hashable, CaseIterable, Codable {
  case xml
  case binary = "folio"

  /// The file name the soak saves to in this format.
  public var fileName: String { "soak.\(rawValue)" }
}

/// One step of a soak session, applied to Folio and to the oracle alike.
///
/// Objects are named by `uid`, so a step means the same thing after undo, redo or reopening.
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

  /// The operation's kind, its first word as ``description`` writes it (`insert`, `undo`).
  var kind: String { description.split(separator: " ").first.map(String.init) ?? "" }

  /// The objects the operation names: each must be live for it to apply.
  var objects: [Int] {
    switch self {
    case .setAttribute(let uid, _, _), .delete(let uid): [uid]
    case .setToOne(let uid, _, let target): [uid] + (target.map { [$0] } ?? [])
    case .add(let uid, _, let target, _), .remove(let uid, _, let target): [uid, target]
    case .setToMany(let uid, _, let targets): [uid] + targets
    default: []
    }
  }
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
    }
  }
}
