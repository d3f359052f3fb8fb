import FolioTestSupport
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel
@testable import FolioUndo

/// A canonical text of the graph: every object in it (deleted ones are on their way out and
/// left out), its attributes and its relationships (ordered ones in order, others sorted).
func snapshot(_ context: ManagedObjectContext) -> String {
  var lines: [String] = []
  for case let object? in context.table where object.flags.isDisjoint(with: [.removed, .deleted]) {
    var line = "\(object.row) \(object.entityName)"
    for (slot, property) in object.layout.properties.enumerated() {
      switch property.kind {
      case .attribute(let attribute):
        let text =
          object.slots[slot].attributeValue(as: attribute.attributeType)?.modelText ?? "nil"
        line += " \(property.name)=\(text)"
      case .relationship(let relationship):
        var rows = context.primitiveTargets(of: object, slot: slot)
        if !relationship.isOrdered { rows.sort() }
        line += " \(property.name)=\(rows)"
      case .fetched:
        break
      }
    }
    lines.append(line)
  }
  return lines.joined(separator: "\n")
}

@Suite("Random edit sequences")
struct RandomEditTests {
  static let concrete = [
    "Company", "Employee", "Badge", "Project", "Playlist", "Track", "Node", "Note",
  ]

  /// Applies one random edit; returns a description for failure reports.
  func randomEdit(
    _ context: ManagedObjectContext, _ undo: UndoManager, _ loop: ManualEventLoop,
    _ random: inout SeededGenerator
  ) throws -> String {
    let live = context.table.compactMap { $0 }.filter {
      $0.flags.isDisjoint(with: [.removed, .deleted])
    }
    let choice = Int.random(in: 0..<100, using: &random)
    if live.isEmpty || choice < 20 {
      let entity = Self.concrete[Int.random(in: 0..<Self.concrete.count, using: &random)]
      try context.insertNewObject(forEntityName: entity)
      return "insert \(entity)"
    }
    let object = live[Int.random(in: 0..<live.count, using: &random)]
    switch choice {
    case 20..<45:
      let attributes = object.layout.properties.compactMap(\.attribute).filter {
        [.string, .integer16, .integer32, .double, .boolean].contains($0.attributeType)
      }
      guard let attribute = attributes.randomElement(using: &random) else { return "skip" }
      let value: Any?
      switch attribute.attributeType {
      case .string:
        value = Bool.random(using: &random) ? nil : "s\(Int.random(in: 0..<5, using: &random))"
      case .boolean: value = Bool.random(using: &random)
      case .double: value = Double(Int.random(in: 0..<5, using: &random))
      default: value = Int.random(in: 16..<20, using: &random)
      }
      try object.setValue(value, forKey: attribute.name)
      return "set \(object.row).\(attribute.name)"
    case 45..<80:
      let relationships = object.layout.properties.compactMap(\.relationship)
      guard let relationship = relationships.randomElement(using: &random) else { return "skip" }
      let candidates = live.filter { $0.layout.isKind(of: relationship.destination) }
      if relationship.isToMany {
        guard let target = candidates.randomElement(using: &random) else { return "skip" }
        if Bool.random(using: &random) {
          let count =
            (try? object.value(forKey: relationship.name)).flatMap(KeyPathEvaluator.elements(of:))?
            .count ?? 0
          try object.add(
            target, toKey: relationship.name,
            at: relationship.isOrdered ? Int.random(in: 0...count, using: &random) : nil)
          return "add \(target.row) to \(object.row).\(relationship.name)"
        }
        try object.remove(target, fromKey: relationship.name)
        return "remove \(target.row) from \(object.row).\(relationship.name)"
      }
      let target = Bool.random(using: &random) ? candidates.randomElement(using: &random) : nil
      try object.setValue(target, forKey: relationship.name)
      return "set \(object.row).\(relationship.name) = \(target.map { "\($0.row)" } ?? "nil")"
    case 80..<88:
      try context.delete(object)
      return "delete \(object.row)"
    case 88..<94:
      loop.endTurn()
      return "turn"
    case 94..<96:
      undo.beginUndoGrouping()
      return "begin"
    case 96:
      do {
        try context.save()
        return "save"
      } catch {
        return "save refused"
      }
    default:
      if undo.groupingLevel > 1 { try undo.endUndoGrouping() }
      return "end"
    }
  }

  func closeEverything(_ undo: UndoManager, _ loop: ManualEventLoop) throws {
    while undo.groupingLevel > 1 { try undo.endUndoGrouping() }
    loop.endTurn()
    while undo.groupingLevel > 0 { try undo.endUndoGrouping() }
  }

  @Test("undo all restores the start, redo all the end, with inverses consistent at every step")
  func undoAllRedoAll() throws {
    let sequences = 2_000
    let model = try graphModel()
    for seed in 1...UInt64(sequences) {
      var random = SeededGenerator(state: seed)
      let (context, undo, loop) = try undoContext(model: model)
      // A saved starting graph.
      for _ in 0..<6 { _ = try randomEdit(context, undo, loop, &random) }
      try closeEverything(undo, loop)
      context.processPendingChanges()
      undo.removeAllActions()
      let start = snapshot(context)
      let startSets = (context.insertedObjects, context.updatedObjects, context.deletedObjects)
      var log: [String] = []
      for _ in 0..<Int.random(in: 5..<40, using: &random) {
        log.append(try randomEdit(context, undo, loop, &random))
        let problems = context.brokenInvariants()
        guard problems.isEmpty else {
          Issue.record("seed \(seed) after \(log): \(problems)")
          return
        }
      }
      try closeEverything(undo, loop)
      let end = snapshot(context)
      while undo.canUndo { try undo.undo() }
      // A save in between changes which sets objects are in (undoing a saved insertion
      // deletes the object); without one, the sets must be the start's exactly.
      let setsMatch =
        log.contains("save")
        || (context.insertedObjects == startSets.0 && context.updatedObjects == startSets.1
          && context.deletedObjects == startSets.2)
      guard snapshot(context) == start, context.brokenInvariants().isEmpty, setsMatch else {
        Issue.record(
          "seed \(seed): undo all did not restore the start after \(log)\nstart:\n\(start)\nnow:\n\(snapshot(context))\nsets then: \(startSets)\nsets now: \((context.insertedObjects, context.updatedObjects, context.deletedObjects))"
        )
        return
      }
      while undo.canRedo { try undo.redo() }
      guard snapshot(context) == end, context.brokenInvariants().isEmpty else {
        Issue.record(
          "seed \(seed): redo all did not restore the end after \(log)\nend:\n\(end)\nnow:\n\(snapshot(context))\n\(context.brokenInvariants())"
        )
        return
      }
    }
  }
}
