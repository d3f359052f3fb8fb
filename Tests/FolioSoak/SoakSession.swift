import Folio
import Foundation

/// Where Folio and the oracle first disagreed.
public struct SoakDivergence: Error, CustomStringConvertible {
  /// The index of the operation after which they disagreed.
  public var index: Int
  /// What disagreed: `graph`, `outcome`, `has-changes`, `is-edited`, `undo-state`. Shrinking
  /// keeps the kind.
  public var kind: String
  /// The differences, one per line.
  public var details: [String]
  /// `expect` lines that hold for the oracle and fail for Folio.
  public var expectations: [String]

  public var description: String {
    "after operation \(index), \(kind) differs:\n  " + details.joined(separator: "\n  ")
  }
}

/// One soak session: a Folio document and the oracle, driven by the same operations and
/// compared after each one.
public final class SoakSession {
  let model: ManagedObjectModel
  let folder: URL
  public let oracle = SoakOracle()
  var document: Document
  var loop = ManualEventLoop()
  var objects: [Int: ManagedObject] = [:]
  /// The uid of each object, so comparing does not read it back for every relationship target.
  var uids: [ObjectIdentifier: Int] = [:]
  /// The file the document was last saved to, and its format.
  public private(set) var file: SoakFormat?
  /// The undo script of the operations applied so far, with the oracle's outcomes.
  public internal(set) var script: [String]
  /// How many operations ``script`` could not express: an `add` at an index of an ordered
  /// relationship that still holds deleted objects (a `set` of the whole order cannot name
  /// them). The script then shows the operation as a comment.
  public internal(set) var inexpressible = 0
  /// How many operations ran, and how many were skipped because they named objects that are
  /// not live.
  public private(set) var counts: [String: Int] = [:]
  /// The last did-save notification of another root context; `nil` after reopening.
  var lastDidSave: ObjectIDChanges?
  /// How many child and other contexts the script made, for their names.
  var contextCount = 0
  /// What the last `fetch` found, in the oracle and in Folio.
  var fetched: (expected: Set<Int>, found: Set<Int>) = ([], [])

  static let formats: [any StoreFormat] = [XMLStore(), BinaryStore(), SQLiteStore()]

  /// A new, untitled document on `model`, saving into `folder`.
  public init(model: ManagedObjectModel, folder: URL, modelPath: String) throws {
    self.model = model
    self.folder = folder
    document = try Document(model: model, eventLoop: loop)
    script = ["model \(modelPath)", "new"]
  }

  // MARK: Applying

  /// Applies `operation` to both sides and compares them.
  ///
  /// - Returns: `false` when the operation did not apply (it names an object that is not
  ///   live, or reopens an untitled document) and was skipped.
  /// - Throws: ``SoakDivergence``.
  @discardableResult
  public func apply(_ operation: SoakOperation, index: Int) throws -> Bool {
    guard isApplicable(operation) else { return skip() }
    counts[operation.kind, default: 0] += 1
    let line = scriptLine(for: operation)
    let expected = Result { () throws(SoakFailure) in try applyToOracle(operation) }
    let found = Result { try applyToFolio(operation) }
    writeScript(line, for: operation, outcome: expected)
    if case .failure(let failure) = expected {
      counts["\(operation.kind) (refused: \(failure.code))", default: 0] += 1
    } else if operation.kind == "save", oracle.resolvedConflicts > 0 {
      counts["\(operation.kind) (conflicts: \(oracle.mergePolicy.rawValue))", default: 0] += 1
    }
    switch (expected, found) {
    case (.success, .success): break
    case (.failure(let failure), .failure(let error)) where failure.code == code(of: error): break
    default:
      let oracleText = (try? expected.get()).map { "succeeds" } ?? "fails with \(expected)"
      let folioText = (try? found.get()).map { "succeeds" } ?? "fails: \(found)"
      throw SoakDivergence(
        index: index, kind: "outcome",
        details: ["\(operation): the oracle \(oracleText), Folio \(folioText)"], expectations: [])
    }
    if case .fetch = operation, fetched.expected != fetched.found {
      throw SoakDivergence(
        index: index, kind: "fetch",
        details: [
          "a fetch finds: oracle \(fetched.expected.sorted()), Folio \(fetched.found.sorted())"
        ],
        expectations: [])
    }
    // hasChanges and isEdited are read only once pending changes are processed (isEdited
    // processes them itself).
    let processed = (try? expected.get()) != nil && processesChanges(operation)
    try compare(index: index, processed: processed, registers: registers(operation))
    return true
  }

  /// Whether `operation` can apply in the session's state: the objects it names are live in
  /// the context (or, for `refresh`, in it; for another context's step, committed), a new
  /// object's uid is new, and what it reopens or merges exists.
  func isApplicable(_ operation: SoakOperation) -> Bool {
    if oracle.isRestricted(operation) {
      counts["restricted", default: 0] += 1
      return false
    }
    return switch operation {
    case .insert(_, let uid): !oracle.isKnown(uid)
    case .otherInsert(_, let uid, _): file != nil && !oracle.isKnown(uid)
    case .otherSet(let uid, _, _), .otherDelete(let uid):
      file != nil && oracle.file[uid] != nil
    case .otherLink(let uid, _, let target):
      file != nil && oracle.file[uid] != nil && target.map { oracle.file[$0] != nil } ?? true
    case .reopen: file != nil
    case .refresh(let uid, _): oracle.isInContext(uid)
    case .mergeDidSave: oracle.lastOtherSave != nil
    default: operation.objects.allSatisfy(oracle.isLive) || isOnDeletedObject(operation)
    }
  }

  /// Setting an attribute of, or deleting again, an object deleted since the save: it is still
  /// in the context.
  private func isOnDeletedObject(_ operation: SoakOperation) -> Bool {
    switch operation {
    case .setAttribute(let uid, _, _), .delete(let uid): oracle.isDeletedInContext(uid)
    default: false
    }
  }

  private func skip() -> Bool {
    counts["skipped", default: 0] += 1
    return false
  }

  func applyToOracle(_ operation: SoakOperation) throws(SoakFailure) {
    switch operation {
    case .insert(let entity, let uid): oracle.insert(entity, uid: uid)
    case .setAttribute(let uid, let key, let value): oracle.setAttribute(uid, key, value)
    case .setToOne(let uid, let key, let target): oracle.setToOne(uid, key, target)
    case .add(let uid, let key, let target, let index): oracle.add(uid, key, target, at: index)
    case .remove(let uid, let key, let target): oracle.remove(uid, key, target)
    case .setToMany(let uid, let key, let targets): oracle.setToMany(uid, key, targets)
    case .delete(let uid): oracle.delete(uid)
    case .endTurn: oracle.endTurn()
    case .process: oracle.processPendingChanges()
    case .begin: oracle.beginGroup()
    case .end: try oracle.endGroup()
    case .undo: try oracle.undo()
    case .undoNested: try oracle.undoNestedGroup()
    case .redo: try oracle.redo()
    case .levels(let count): oracle.setLevelsOfUndo(count)
    case .disable: oracle.disableUndoRegistration()
    case .enable: try oracle.enableUndoRegistration()
    case .rollback: oracle.rollback()
    case .save: try oracle.save(asNewFile: file == nil)
    case .saveAs: try oracle.save(asNewFile: true)
    case .reopen: oracle.reopen()
    case .reset: oracle.reset()
    case .refresh(let uid, let merge): oracle.refresh(uid, merge: merge)
    case .childSave(let uid, let key, let value, let link):
      oracle.childSave(uid, key, value, link: link)
    case .childDiscard: break
    case .otherSet(let uid, let key, let value): oracle.otherSet(uid, key, value)
    case .otherLink(let uid, let key, let target): oracle.otherLink(uid, key, target)
    case .otherInsert(let entity, let uid, let name):
      oracle.otherInsert(entity, uid: uid, name: name)
    case .otherDelete(let uid): try oracle.otherDelete(uid)
    case .mergePolicy(let policy): oracle.setMergePolicy(policy)
    case .mergeDidSave: oracle.mergeOtherSave()
    case .refreshAll: oracle.refreshAll()
    case .fetch: fetched.expected = oracle.fetch()
    }
  }

  func applyToFolio(_ operation: SoakOperation) throws {
    let context = document.context
    let undo = context.undoManager
    switch operation {
    case .insert(let entity, let uid):
      let object = try context.insertNewObject(forEntityName: entity)
      try object.setValue(Int64(uid), forKey: "uid")
      objects[uid] = object
      uids[ObjectIdentifier(object)] = uid
    case .setAttribute(let uid, let key, let value):
      try object(uid).setValue(value.map(folioValue), forKey: key)
    case .setToOne(let uid, let key, let target):
      try object(uid).setValue(target.map { try object($0) }, forKey: key)
    case .add(let uid, let key, let target, let index):
      try object(uid).add(try object(target), toKey: key, at: index)
    case .remove(let uid, let key, let target):
      try object(uid).remove(try object(target), fromKey: key)
    case .setToMany(let uid, let key, let targets):
      try object(uid).setValue(try targets.map { try object($0) }, forKey: key)
    case .delete(let uid): try context.delete(try object(uid))
    case .endTurn: loop.endTurn()
    case .process: context.processPendingChanges()
    case .begin: undo?.beginUndoGrouping()
    case .end: try undo?.endUndoGrouping()
    case .undo: try undo?.undo()
    case .undoNested: try undo?.undoNestedGroup()
    case .redo: try undo?.redo()
    case .levels(let count): undo?.levelsOfUndo = count
    case .disable: undo?.disableUndoRegistration()
    case .enable: try undo?.enableUndoRegistration()
    case .rollback: context.rollback()
    case .save(let format):
      if file == nil {
        try saveAs(format)
      } else {
        try document.save()
      }
    case .saveAs(let format): try saveAs(format)
    case .reopen:
      guard let file else { return }
      loop = ManualEventLoop()
      document = try Document.open(
        folder.appendingPathComponent(file.fileName), model: model, formats: Self.formats,
        eventLoop: loop)
      lastDidSave = nil
      try findObjects()
    default:
      try applyAcrossContexts(operation)
    }
  }

  private func saveAs(_ format: SoakFormat) throws {
    try document.save(to: folder.appendingPathComponent(format.fileName), formats: Self.formats)
    file = format
  }

  func object(_ uid: Int) throws -> ManagedObject {
    guard let object = objects[uid] else { throw SoakFailure("no object \(uid)") }
    return object
  }

  func folioValue(_ value: SoakOracle.Value) -> Any {
    switch value {
    case .integer(let number): Int32(number)
    case .double(let number): number
    case .string(let text): text
    case .boolean(let flag): flag
    default: preconditionFailure("\(value) is not an attribute value")
    }
  }

  /// The undo-script code of a Folio error.
  func code(of error: any Error) -> String {
    if let error = error as? UndoError { return error.code.rawValue }
    if let error = error as? GraphError {
      switch error.code {
      case .deny: return "deny"
      case .validation: return "validation"
      case .mergeConflict: return "merge-conflict"
      default: return "graph: \(error)"
      }
    }
    return "\(type(of: error)): \(error)"
  }
}
