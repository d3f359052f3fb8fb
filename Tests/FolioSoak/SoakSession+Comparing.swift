import Folio
import Foundation

extension SoakSession {
  /// The live objects of Folio's graph, by uid, with their values as the oracle writes them.
  ///
  /// The objects are the ones the session inserted, opened or found registered, live by their
  /// public state (in a context, not deleted); ``compare(index:processed:registers:)`` checks
  /// now and then that the context holds the same ones. Each value is cast to the one type
  /// its property has: a failing cast from `Any` tries bridging through Foundation, which
  /// would cost most of the comparison.
  func folioGraph() throws -> [Int: SoakOracle.Object] {
    var graph: [Int: SoakOracle.Object] = [:]
    let live = objects.filter { $0.value.managedObjectContext != nil && !$0.value.isDeleted }
    for (uid, object) in live {
      let entity = object.entityName
      var values: [String: SoakOracle.Value] = [:]
      values["uid"] = (try object.value(forKey: "uid") as? Int).map { .integer(Int64($0)) }
      for attribute in SoakSchema.attributes[entity] ?? [] {
        values[attribute.name] = attributeValue(
          try object.value(forKey: attribute.name), kind: attribute.kind)
      }
      for relationship in SoakSchema.relationships[entity] ?? [] {
        let value = try object.value(forKey: relationship.name)
        if !relationship.isToMany {
          if let target = value as? ManagedObject {
            values[relationship.name] = .one(try self.uid(of: target))
          }
        } else if relationship.isOrdered {
          if let targets = value as? [ManagedObject], !targets.isEmpty {
            values[relationship.name] = .list(try targets.map { try self.uid(of: $0) })
          }
        } else if let targets = value as? Set<ManagedObject>, !targets.isEmpty {
          values[relationship.name] = .set(Set(try targets.map { try self.uid(of: $0) }))
        }
      }
      graph[uid] = SoakOracle.Object(entity: entity, values: values)
    }
    return graph
  }

  private func attributeValue(_ value: Any?, kind: SoakSchema.AttributeKind) -> SoakOracle.Value? {
    switch kind {
    case .string: (value as? String).map { .string($0) }
    case .integer32: (value as? Int).map { .integer(Int64($0)) }
    case .double: (value as? Double).map { .double($0) }
    case .boolean: (value as? Bool).map { .boolean($0) }
    }
  }

  /// The uids of every object of every entity the context lists (`objects(ofEntity:)`, which
  /// registers what other contexts committed, as a fetch does): the `fetch` step.
  func sweptObjects() throws -> Set<Int> {
    var swept: Set<Int> = []
    for entity in SoakSchema.entities {
      for object in try document.context.objects(ofEntity: entity, includingSubentities: false) {
        swept.insert(try uid(of: object))
      }
    }
    return swept
  }

  func uid(of object: ManagedObject) throws -> Int {
    if let uid = uids[ObjectIdentifier(object)] { return uid }
    guard case .integer(let uid)? = attributeValue(try object.value(forKey: "uid")) else {
      throw SoakFailure("an object of \(object.entityName) has no uid")
    }
    return Int(uid)
  }

  func attributeValue(_ value: Any?) -> SoakOracle.Value? {
    switch value {
    case let text as String: .string(text)
    case let flag as Bool: .boolean(flag)
    case let number as Double: .double(number)
    case let number as Int32: .integer(Int64(number))
    case let number as Int64: .integer(number)
    case let number as Int: .integer(Int64(number))
    default: nil
    }
  }

  /// Compares the live graphs, the undo manager's state, and — after operations that process
  /// pending changes — `hasChanges` and the document's edited state. After an operation that
  /// `registers` objects, and now and then, it also compares the objects the context holds.
  func compare(index: Int, processed: Bool, registers: Bool) throws {
    if registers || index % 64 == 0 {
      try adoptRegisteredObjects()
      let expected = Set(oracle.graph.keys.filter(oracle.isInContext))
      let found = Set(try document.context.registeredObjects.map(uid))
      if expected != found {
        throw SoakDivergence(
          index: index, kind: "objects",
          details: [
            "the context holds: oracle \(expected.sorted()), Folio \(found.sorted())"
          ],
          expectations: [])
      }
    }
    let expected = oracle.liveObjects
    let found = try folioGraph()
    if expected != found {
      throw graphDivergence(expected: expected, found: found, index: index)
    }
    guard let undo = document.undoManager else { return }
    var details: [String] = []
    var expectations: [String] = []
    if undo.groupingLevel != oracle.groupingLevel {
      details.append("grouping level: oracle \(oracle.groupingLevel), Folio \(undo.groupingLevel)")
      expectations.append("expect grouping-level == \(oracle.groupingLevel)")
    }
    if undo.canUndo != oracle.canUndo {
      details.append("can undo: oracle \(oracle.canUndo), Folio \(undo.canUndo)")
      expectations.append("expect \(oracle.canUndo ? "" : "!")can-undo")
    }
    if undo.undoCount != oracle.undoCount || undo.redoCount != oracle.redoCount {
      details.append(
        "stacks (undo, redo): oracle (\(oracle.undoCount), \(oracle.redoCount)), Folio (\(undo.undoCount), \(undo.redoCount))"
      )
      if (undo.redoCount > 0) != (oracle.redoCount > 0) {
        expectations.append("expect \(oracle.redoCount > 0 ? "" : "!")can-redo")
      }
    }
    if !details.isEmpty {
      throw SoakDivergence(
        index: index, kind: "undo-state", details: details, expectations: expectations)
    }
    guard processed else { return }
    if document.context.hasChanges != oracle.hasChanges {
      throw SoakDivergence(
        index: index, kind: "has-changes",
        details: ["has changes: oracle \(oracle.hasChanges), Folio \(document.context.hasChanges)"],
        expectations: ["expect \(oracle.hasChanges ? "" : "!")has-changes"])
    }
    let context = document.context
    let sets = oracle.changeSets
    let folioSets = (
      inserted: Set(try context.insertedObjects.map(uid)),
      updated: Set(try context.updatedObjects.map(uid)),
      deleted: Set(try context.deletedObjects.map(uid))
    )
    if sets != folioSets {
      throw SoakDivergence(
        index: index, kind: "change-sets",
        details: [
          "inserted: oracle \(sets.inserted.sorted()), Folio \(folioSets.inserted.sorted())",
          "updated: oracle \(sets.updated.sorted()), Folio \(folioSets.updated.sorted())",
          "deleted: oracle \(sets.deleted.sorted()), Folio \(folioSets.deleted.sorted())",
        ],
        expectations: [])
    }
    if oracle.isSavePointComparable, document.isEdited != oracle.isEdited {
      throw SoakDivergence(
        index: index, kind: "is-edited",
        details: ["edited: oracle \(oracle.isEdited), Folio \(document.isEdited)"],
        expectations: [])
    }
  }

  func processesChanges(_ operation: SoakOperation) -> Bool {
    switch operation {
    case .endTurn, .process, .undo, .undoNested, .redo, .save, .saveAs, .rollback, .reopen, .reset:
      true
    default: false
    }
  }

  /// Whether `operation` may register objects other contexts committed (a fetch does, and so
  /// do validating a save, the context's or a child's, and merging another context's save,
  /// which brings in the objects it inserted), or finds them all again.
  func registers(_ operation: SoakOperation) -> Bool {
    switch operation {
    case .save, .saveAs, .childSave, .fetch, .reset, .reopen, .mergeDidSave: true
    default: false
    }
  }

  private func graphDivergence(
    expected: [Int: SoakOracle.Object], found: [Int: SoakOracle.Object], index: Int
  ) -> SoakDivergence {
    var details: [String] = []
    var expectations: [String] = []
    for uid in Set(expected.keys).union(found.keys).sorted() {
      switch (expected[uid], found[uid]) {
      case (let object?, nil):
        details.append("$o\(uid) (\(object.entity)) is live in the oracle only")
        expectations.append("expect !deleted $o\(uid)")
      case (nil, let object?):
        details.append("$o\(uid) (\(object.entity)) is live in Folio only")
        expectations.append("expect deleted $o\(uid)")
      case (let mine?, let theirs?) where mine != theirs:
        for key in Set(mine.values.keys).union(theirs.values.keys).sorted()
        where mine.values[key] != theirs.values[key] {
          let want = mine.values[key]?.description ?? emptyText(mine.entity, key)
          let have = theirs.values[key]?.description ?? emptyText(mine.entity, key)
          details.append("$o\(uid).\(key): oracle \(want), Folio \(have)")
          expectations.append("expect $o\(uid).\(key) == \(want)")
        }
      default: break
      }
    }
    return SoakDivergence(
      index: index, kind: "graph", details: details, expectations: expectations)
  }

  private func emptyText(_ entity: String, _ key: String) -> String {
    SoakSchema.relationship(key, of: entity)?.isToMany == true ? "[]" : "nil"
  }
}
