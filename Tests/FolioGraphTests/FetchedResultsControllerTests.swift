import FolioQuery
import FolioTestSupport
import FolioUndo
import Foundation
import Testing

@testable import Folio
@testable import FolioGraph

/// Tells each delegate call as a line: `will`, `insert section red 1`, `move Ada 1.0>1.1`,
/// `did`. Objects are named by their current `lastName`.
final class ChangeRecorder: FetchedResultsControllerDelegate {
  var lines: [String] = []

  func controllerWillChangeContent(_ controller: FetchedResultsController) {
    lines.append("will")
  }

  func controller(
    _ controller: FetchedResultsController, didChange object: ManagedObject,
    at indexPath: ResultIndexPath?, for type: FetchedResultsChangeType,
    newIndexPath: ResultIndexPath?
  ) {
    lines.append(
      FetchedResultsFixture.line(
        FetchedResultsObjectChange(
          object: object, type: type, indexPath: indexPath, newIndexPath: newIndexPath)))
  }

  func controller(
    _ controller: FetchedResultsController, didChange section: FetchedResultsSection,
    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
  ) {
    lines.append("\(type) section \(section.name) \(sectionIndex)")
  }

  func controllerDidChangeContent(_ controller: FetchedResultsController) {
    lines.append("did")
  }
}

/// Employees in teams (`nickname`), listed by team then `lastName`, in sections by team: Bo in
/// blue, Ada and Cy in red, unless told otherwise. The setup is processed and cannot be undone.
struct FetchedResultsFixture {
  let context: ManagedObjectContext
  let undo: UndoManager
  let loop: ManualEventLoop
  let controller: FetchedResultsController
  let recorder = ChangeRecorder()

  init(
    _ members: [(name: String, team: String?)] = [("Ada", "red"), ("Bo", "blue"), ("Cy", "red")],
    predicate: String? = nil, sectioned: Bool = true
  ) throws {
    (context, undo, loop) = try undoContext()
    let request = FetchRequest(
      entityName: "Employee", predicate: try predicate.map { try QueryPredicate(format: $0) },
      sortDescriptors: [
        QuerySortDescriptor(keyPath: "nickname"), QuerySortDescriptor(keyPath: "lastName"),
      ])
    controller = FetchedResultsController(
      fetchRequest: request, context: context, sectionNameKeyPath: sectioned ? "nickname" : nil)
    for member in members { try add(member.name, team: member.team) }
    loop.endTurn()
    undo.removeAllActions()
    controller.delegate = recorder
    try controller.performFetch()
  }

  @discardableResult
  func add(_ name: String, team: String?) throws -> ManagedObject {
    let employee = try context.insertNewObject(forEntityName: "Employee")
    try employee.setValue(name, forKey: "lastName")
    try employee.setValue(team, forKey: "nickname")
    return employee
  }

  /// The employee whose `lastName` is `name`. Not found by a fetch, which would process the
  /// turn's pending changes.
  func employee(_ name: String) throws -> ManagedObject {
    try #require(context.registeredObjects.first { Self.name($0) == name })
  }

  /// Ends the turn and returns the delegate calls it caused.
  func endTurn() -> [String] {
    recorder.lines.removeAll()
    loop.endTurn()
    return recorder.lines
  }

  /// Runs `body` and returns the delegate calls it caused.
  func reported(_ body: () throws -> Void) rethrows -> [String] {
    recorder.lines.removeAll()
    try body()
    return recorder.lines
  }

  /// The section names, each with its objects' names.
  var layout: [String] {
    (controller.sections ?? []).map { section in
      "\(section.name): " + section.objects.map(Self.name).joined(separator: " ")
    }
  }

  static func name(_ object: ManagedObject) -> String {
    (try? object.value(forKey: "lastName")) as? String ?? "?"
  }

  static func line(_ change: FetchedResultsObjectChange) -> String {
    func path(_ path: ResultIndexPath?) -> String {
      path.map { "\($0.section).\($0.item)" } ?? "-"
    }
    return "\(change.type) \(name(change.object)) \(path(change.indexPath))>"
      + path(change.newIndexPath)
  }

  /// A stream value as the delegate lines it causes.
  static func lines(_ changes: FetchedResultsChanges) -> [String] {
    ["will"]
      + changes.sectionChanges.map { "\($0.type) section \($0.section.name) \($0.sectionIndex)" }
      + changes.objectChanges.map(line) + ["did"]
  }
}

@Suite("Fetched results controller: results")
struct FetchedResultsLayoutTests {
  @Test("sections, index paths and index titles follow the sort and the section key path")
  func sectionsAndPaths() throws {
    let list = try FetchedResultsFixture()
    let controller = list.controller
    #expect(list.layout == ["blue: Bo", "red: Ada Cy"])
    let sections = try #require(controller.sections)
    #expect(sections.map(\.numberOfObjects) == [1, 2])
    #expect(sections.map(\.indexTitle) == ["B", "R"])
    #expect(controller.sectionIndexTitles == ["B", "R"])
    let cy = try list.employee("Cy")
    #expect(try controller.object(at: ResultIndexPath(section: 1, item: 1)) == cy)
    #expect(controller.indexPath(forObject: cy) == ResultIndexPath(section: 1, item: 1))
    #expect(controller.fetchedObjects?.map(FetchedResultsFixture.name) == ["Bo", "Ada", "Cy"])
  }

  @Test("nothing is fetched before performFetch")
  func beforeFetch() throws {
    let context = try makeContext()
    let request = FetchRequest(
      entityName: "Employee", sortDescriptors: [QuerySortDescriptor(keyPath: "lastName")])
    let controller = FetchedResultsController(fetchRequest: request, context: context)
    #expect(controller.fetchedObjects == nil)
    #expect(controller.sections == nil)
    #expect(controller.sectionIndexTitles.isEmpty)
    let error = graphError { _ = try controller.object(at: ResultIndexPath(section: 0, item: 0)) }
    #expect(error?.code == .objectNotFound)
    #expect(
      error?.description
        == "the fetched results controller has no results: call performFetch() first")
  }

  @Test("index titles are uppercased first letters, each once, and name their first section")
  func indexTitles() throws {
    let list = try FetchedResultsFixture([
      ("Ada", "avocado"), ("Bo", "apple"), ("Cy", "banana"), ("Di", nil), ("Ed", "élan"),
    ])
    #expect(list.layout == [": Di", "apple: Bo", "avocado: Ada", "banana: Cy", "élan: Ed"])
    #expect(list.controller.sections?.map(\.indexTitle) == [nil, "A", "A", "B", "É"])
    #expect(list.controller.sectionIndexTitles == ["A", "B", "É"])
    #expect(list.controller.section(forSectionIndexTitle: "B", at: 1) == 3)
    #expect(list.controller.section(forSectionIndexTitle: "Z", at: 0) == nil)
  }

  @Test("a delegate chooses the index titles, nil included, and is asked again at each fetch")
  func customIndexTitles() throws {
    final class Titles: FetchedResultsControllerDelegate {
      var asked: [String] = []
      func controller(
        _ controller: FetchedResultsController, sectionIndexTitleForSectionName sectionName: String
      ) -> String? {
        asked.append(sectionName)
        return sectionName == "blue" ? nil : "#" + sectionName.prefix(2)
      }
    }
    let list = try FetchedResultsFixture([("Ada", "red"), ("Bo", "blue"), ("Cy", "green")])
    let titles = Titles()
    list.controller.delegate = titles
    try list.controller.performFetch()
    #expect(list.controller.sections?.map(\.indexTitle) == [nil, "#gr", "#re"])
    #expect(list.controller.sectionIndexTitles == ["#gr", "#re"])
    #expect(titles.asked == ["blue", "green", "red"])
    try list.add("Di", team: "amber")
    list.loop.endTurn()
    #expect(list.controller.sections?.map(\.indexTitle) == ["#am", nil, "#gr", "#re"])
  }

  @Test("without a section key path one section holds every object, even none")
  func oneSection() throws {
    let list = try FetchedResultsFixture([], sectioned: false)
    #expect(list.layout == [": "])
    #expect(list.controller.sectionIndexTitles.isEmpty)
    try list.add("Ada", team: "red")
    try list.add("Bo", team: nil)
    #expect(list.endTurn() == ["will", "insert Bo ->0.0", "insert Ada ->0.1", "did"])
    #expect(list.layout == [": Bo Ada"])
  }

  @Test("a request without sort descriptors is refused")
  func noSortDescriptors() throws {
    let context = try makeContext()
    let controller = FetchedResultsController(
      fetchRequest: FetchRequest(entityName: "Employee"), context: context)
    let error = graphError { try controller.performFetch() }
    #expect(error?.code == .invalidPredicate)
    #expect(
      error?.description
        == "Employee: a fetched results controller needs a fetch request with at least one sort "
        + "descriptor")
  }

  @Test("objects not grouped by section are refused")
  func sectionsOutOfOrder() throws {
    let list = try FetchedResultsFixture()
    let controller = FetchedResultsController(
      fetchRequest: FetchRequest(
        entityName: "Employee", sortDescriptors: [QuerySortDescriptor(keyPath: "lastName")]),
      context: list.context, sectionNameKeyPath: "nickname")
    let error = graphError { try controller.performFetch() }
    #expect(error?.code == .invalidPredicate)
    #expect(
      error?.description
        == "Employee.nickname: the fetched object at index 2 has an out of order section name "
        + "\"red\": sort by \"nickname\" first")
    #expect(controller.sections == nil)
  }

  @Test(
    "an index path outside the results is an error naming the bounds",
    arguments: [
      (
        ResultIndexPath(section: 1, item: 2),
        "no object at index path [1, 2]: section 1 has 2 objects"
      ),
      (
        ResultIndexPath(section: 2, item: 0), "no object at index path [2, 0]: there are 2 sections"
      ),
      (
        ResultIndexPath(section: -1, item: 0),
        "no object at index path [-1, 0]: there are 2 sections"
      ),
    ])
  func outOfRange(indexPath: ResultIndexPath, message: String) throws {
    let list = try FetchedResultsFixture()
    let error = graphError { _ = try list.controller.object(at: indexPath) }
    #expect(error?.code == .objectNotFound)
    #expect(error?.description == message)
  }

  @Test("a released controller stops watching its context")
  func release() throws {
    let context = try makeContext()
    var controller: FetchedResultsController? = FetchedResultsController(
      fetchRequest: FetchRequest(
        entityName: "Employee", sortDescriptors: [QuerySortDescriptor(keyPath: "lastName")]),
      context: context)
    try controller?.performFetch()
    #expect(context.hasObservers)
    controller = nil
    #expect(!context.hasObservers)
  }

  @Test(
    "the fewest moves keep the heaviest increasing run",
    arguments: [
      ([0, 1, 2], [1, 1, 1], Set([0, 1, 2])),
      ([1, 0], [1, 3], Set([1])),
      ([1, 0], [3, 1], Set([0])),
      ([2, 0, 1, 3], [1, 1, 1, 1], Set([1, 2, 3])),
      ([3, 0, 1, 2], [9, 1, 1, 1], Set([0])),
      ([], [], Set<Int>()),
    ])
  func heaviestRun(values: [Int], weights: [Int], kept: Set<Int>) {
    #expect(FetchedResultsChanges.heaviestIncreasingSubsequence(values, weights: weights) == kept)
  }
}

@Suite("Fetched results controller: changes")
struct FetchedResultsChangeTests {
  @Test("an inserted object is reported at its new index path")
  func insert() throws {
    let list = try FetchedResultsFixture()
    try list.add("Bea", team: "red")
    #expect(list.endTurn() == ["will", "insert Bea ->1.1", "did"])
    #expect(list.layout == ["blue: Bo", "red: Ada Bea Cy"])
  }

  @Test("a deleted object is reported at its old index path")
  func delete() throws {
    let list = try FetchedResultsFixture()
    try list.context.delete(try list.employee("Ada"))
    #expect(list.endTurn() == ["will", "delete Ada 1.0>-", "did"])
    #expect(list.layout == ["blue: Bo", "red: Cy"])
  }

  @Test("a value change that keeps the object in place is an update")
  func update() throws {
    let list = try FetchedResultsFixture()
    try list.employee("Cy").setValue(40, forKey: "age")
    #expect(list.endTurn() == ["will", "update Cy 1.1>1.1", "did"])
    try list.employee("Cy").setValue(41, forKey: "age")
    try list.add("Aba", team: "red")
    #expect(list.endTurn() == ["will", "insert Aba ->1.0", "update Cy 1.1>1.2", "did"])
  }

  @Test("a sort key change within a section is a move of that object only")
  func moveWithinSection() throws {
    let list = try FetchedResultsFixture([("Ada", "red"), ("Bo", "red"), ("Cy", "red")])
    try list.employee("Ada").setValue("Dee", forKey: "lastName")
    #expect(list.endTurn() == ["will", "move Dee 0.0>0.2", "did"])
    try list.employee("Cy").setValue("Al", forKey: "lastName")
    #expect(list.endTurn() == ["will", "move Al 0.1>0.0", "did"])
    #expect(list.layout == ["red: Al Bo Dee"])
  }

  @Test("a section key change moves the object across sections")
  func moveAcrossSections() throws {
    let list = try FetchedResultsFixture()
    try list.employee("Cy").setValue("blue", forKey: "nickname")
    #expect(list.endTurn() == ["will", "move Cy 1.1>0.1", "did"])
    #expect(list.layout == ["blue: Bo Cy", "red: Ada"])
  }

  @Test("a new section value inserts a section, and emptying a section deletes it")
  func sectionInsertAndDelete() throws {
    let list = try FetchedResultsFixture()
    try list.add("Eve", team: "amber")
    #expect(list.endTurn() == ["will", "insert section amber 0", "insert Eve ->0.0", "did"])
    try list.employee("Bo").setValue("green", forKey: "nickname")
    #expect(
      list.endTurn() == [
        "will", "delete section blue 1", "insert section green 1", "move Bo 1.0>1.0", "did",
      ])
    try list.context.delete(try list.employee("Eve"))
    #expect(list.endTurn() == ["will", "delete section amber 0", "delete Eve 0.0>-", "did"])
    #expect(list.layout == ["green: Bo", "red: Ada Cy"])
  }

  @Test("an object that stops or starts matching the predicate is deleted or inserted")
  func predicate() throws {
    let list = try FetchedResultsFixture(predicate: "active == YES")
    try list.employee("Ada").setValue(false, forKey: "active")
    #expect(list.endTurn() == ["will", "delete Ada 1.0>-", "did"])
    try list.employee("Ada").setValue(30, forKey: "age")
    #expect(list.endTurn().isEmpty)
    try list.employee("Ada").setValue(true, forKey: "active")
    #expect(list.endTurn() == ["will", "insert Ada ->1.0", "did"])
  }

  @Test("changes outside the results report nothing")
  func unrelated() throws {
    let list = try FetchedResultsFixture()
    let track = try list.context.insertNewObject(forEntityName: "Track")
    #expect(list.endTurn().isEmpty)
    try track.setValue("Intro", forKey: "title")
    #expect(list.endTurn().isEmpty)
    try list.employee("Ada").setValue("red", forKey: "nickname")
    #expect(list.endTurn().isEmpty)
  }

  @Test("several changes in one turn are reported against the old and new layouts")
  func severalChanges() throws {
    let list = try FetchedResultsFixture()
    try list.context.delete(try list.employee("Bo"))
    try list.add("Abe", team: "red")
    try list.employee("Cy").setValue("Aab", forKey: "lastName")
    try list.employee("Ada").setValue(50, forKey: "age")
    #expect(
      list.endTurn() == [
        "will", "delete section blue 0", "delete Bo 0.0>-", "insert Abe ->0.1",
        "move Aab 1.1>0.0", "update Ada 1.0>0.2", "did",
      ])
    #expect(list.layout == ["red: Aab Abe Ada"])
  }

  @Test("undo of an insert reports a delete, and redo an insert")
  func undoInsert() throws {
    let list = try FetchedResultsFixture()
    try list.add("Bea", team: "red")
    _ = list.endTurn()
    #expect(try list.reported { try list.undo.undo() } == ["will", "delete Bea 1.1>-", "did"])
    #expect(list.layout == ["blue: Bo", "red: Ada Cy"])
    #expect(try list.reported { try list.undo.redo() } == ["will", "insert Bea ->1.1", "did"])
    #expect(list.layout == ["blue: Bo", "red: Ada Bea Cy"])
  }

  @Test("undo of a delete that emptied a section brings the section and the object back")
  func undoDelete() throws {
    let list = try FetchedResultsFixture()
    try list.context.delete(try list.employee("Bo"))
    #expect(list.endTurn() == ["will", "delete section blue 0", "delete Bo 0.0>-", "did"])
    #expect(
      try list.reported { try list.undo.undo() } == [
        "will", "insert section blue 0", "insert Bo ->0.0", "did",
      ])
    #expect(
      try list.reported { try list.undo.redo() } == [
        "will", "delete section blue 0", "delete Bo 0.0>-", "did",
      ])
  }

  @Test("undo and redo of moves and updates report them back and forth")
  func undoMoveAndUpdate() throws {
    let list = try FetchedResultsFixture()
    try list.employee("Ada").setValue("Dee", forKey: "lastName")
    try list.employee("Bo").setValue("red", forKey: "nickname")
    try list.employee("Bo").setValue(33, forKey: "age")
    try list.employee("Cy").setValue(44, forKey: "age")
    #expect(
      list.endTurn() == [
        "will", "delete section blue 0", "move Bo 0.0>0.0", "move Dee 1.0>0.2",
        "update Cy 1.1>0.1", "did",
      ])
    #expect(
      try list.reported { try list.undo.undo() } == [
        "will", "insert section blue 0", "move Bo 0.0>0.0", "move Ada 0.2>1.0",
        "update Cy 0.1>1.1", "did",
      ])
    #expect(list.layout == ["blue: Bo", "red: Ada Cy"])
    try list.undo.redo()
    #expect(list.layout == ["red: Bo Cy Dee"])
  }

  @Test("the change stream delivers each turn's changes as the delegate is told them")
  func stream() async throws {
    let list = try FetchedResultsFixture()
    var changes = list.controller.changes().makeAsyncIterator()
    var told: [[String]] = []
    try list.add("Bea", team: "red")
    told.append(list.endTurn())
    try list.context.insertNewObject(forEntityName: "Track").setValue("x", forKey: "title")
    #expect(list.endTurn().isEmpty)
    try list.employee("Cy").setValue("blue", forKey: "nickname")
    told.append(list.endTurn())
    told.append(try list.reported { try list.undo.undo() })
    var streamed: [[String]] = []
    for _ in told {
      let next = try #require(await changes.next())
      streamed.append(FetchedResultsFixture.lines(next))
    }
    #expect(streamed == told)
    #expect(told[1] == ["will", "move Cy 1.2>0.1", "did"])
  }

  @Test("a stream finishes when its controller goes away")
  func streamFinishes() async throws {
    let context = try makeContext()
    var controller: FetchedResultsController? = FetchedResultsController(
      fetchRequest: FetchRequest(
        entityName: "Employee", sortDescriptors: [QuerySortDescriptor(keyPath: "lastName")]),
      context: context)
    try controller?.performFetch()
    var changes = try #require(controller?.changes()).makeAsyncIterator()
    try context.insertNewObject(forEntityName: "Employee").setValue("Ada", forKey: "lastName")
    context.processPendingChanges()
    controller = nil
    let first = await changes.next()
    #expect(first.map(FetchedResultsFixture.lines) == ["will", "insert Ada ->0.0", "did"])
    #expect(await changes.next() == nil)
  }
}

/// Collects a turn's delegate calls as change values.
final class ChangeCollector: FetchedResultsControllerDelegate {
  var changes = FetchedResultsChanges()
  var turns = 0

  func controllerWillChangeContent(_ controller: FetchedResultsController) {
    changes = FetchedResultsChanges()
  }

  func controller(
    _ controller: FetchedResultsController, didChange object: ManagedObject,
    at indexPath: ResultIndexPath?, for type: FetchedResultsChangeType,
    newIndexPath: ResultIndexPath?
  ) {
    changes.objectChanges.append(
      .init(object: object, type: type, indexPath: indexPath, newIndexPath: newIndexPath))
  }

  func controller(
    _ controller: FetchedResultsController, didChange section: FetchedResultsSection,
    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
  ) {
    changes.sectionChanges.append(.init(section: section, type: type, sectionIndex: sectionIndex))
  }

  func controllerDidChangeContent(_ controller: FetchedResultsController) { turns += 1 }
}

/// `old` with `changes` applied the way a list view applies a batch update: deletes and moves'
/// sources removed by their old paths, then sections and then objects inserted, and moves'
/// destinations placed, by their new paths in ascending order.
func applyBatchUpdate(_ changes: FetchedResultsChanges, to old: [FetchedResultsSection])
  -> [(name: String, objects: [ManagedObject])]
{
  let deletedSections = Set(
    changes.sectionChanges.filter { $0.type == .delete }.map(\.sectionIndex))
  let removed = Set(
    changes.objectChanges.filter { $0.type == .delete || $0.type == .move }
      .compactMap(\.indexPath))
  var sections: [(name: String, objects: [ManagedObject])] = []
  for (index, section) in old.enumerated() where !deletedSections.contains(index) {
    let kept = section.objects.indices.filter {
      !removed.contains(ResultIndexPath(section: index, item: $0))
    }
    sections.append((section.name, kept.map { section.objects[$0] }))
  }
  for change in changes.sectionChanges.filter({ $0.type == .insert })
    .sorted(by: { $0.sectionIndex < $1.sectionIndex })
  {
    sections.insert((change.section.name, []), at: min(change.sectionIndex, sections.count))
  }
  let placed = changes.objectChanges
    .filter { $0.type == .insert || $0.type == .move }
    .compactMap { change in change.newIndexPath.map { (path: $0, object: change.object) } }
    .sorted { $0.path < $1.path }
  for (path, object) in placed where sections.indices.contains(path.section) {
    let count = sections[path.section].objects.count
    sections[path.section].objects.insert(object, at: min(path.item, count))
  }
  return sections
}

@Suite("Fetched results controller: random edits")
struct FetchedResultsRandomTests {
  @Test("each turn's reported changes turn the old sections into the new", arguments: 1...12)
  func batchUpdatesReplay(seed: UInt64) throws {
    var random = SeededGenerator(state: seed)
    let list = try FetchedResultsFixture(predicate: "active == YES")
    let collector = ChangeCollector()
    list.controller.delegate = collector
    let teams: [String?] = ["amber", "blue", "red", nil]
    let names = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus"]
    var live: [ManagedObject] = try ["Ada", "Bo", "Cy"].map { try list.employee($0) }
    var seen: Set<String> = []
    for step in 0..<60 {
      let before = try #require(list.controller.sections)
      let turnsBefore = collector.turns
      if Int.random(in: 0..<6, using: &random) == 0 {
        if Bool.random(using: &random), list.undo.canUndo {
          try list.undo.undo()
        } else if list.undo.canRedo {
          try list.undo.redo()
        }
        live = list.context.registeredObjects.filter {
          $0.entityName == "Employee" && !$0.isDeleted
        }.sorted { $0.objectID.description < $1.objectID.description }
      } else {
        for _ in 0..<Int.random(in: 1...4, using: &random) {
          let name = names.randomElement(using: &random) ?? "Ada"
          let team = teams.randomElement(using: &random) ?? nil
          guard let target = live.randomElement(using: &random) else {
            live.append(try list.add(name, team: team))
            continue
          }
          switch Int.random(in: 0..<6, using: &random) {
          case 0: live.append(try list.add(name, team: team))
          case 1:
            try list.context.delete(target)
            live.removeAll { $0 == target }
          case 2: try target.setValue(name, forKey: "lastName")
          case 3: try target.setValue(team, forKey: "nickname")
          case 4: try target.setValue(Int.random(in: 20...60, using: &random), forKey: "age")
          default:
            let active = try target.value(forKey: "active", as: Bool.self) ?? true
            try target.setValue(!active, forKey: "active")
          }
        }
        list.loop.endTurn()
      }
      let after = try #require(list.controller.sections)
      let expected = after.map { "\($0.name): \($0.objects.map(\.objectID))" }
      if collector.turns == turnsBefore {
        let unchanged = before.map { "\($0.name): \($0.objects.map(\.objectID))" }
        #expect(unchanged == expected, "seed \(seed), step \(step): a change went unreported")
        continue
      }
      let replayed = applyBatchUpdate(collector.changes, to: before).map {
        "\($0.name): \($0.objects.map(\.objectID))"
      }
      #expect(replayed == expected, "seed \(seed), step \(step): \(collector.changes)")
      seen.formUnion(collector.changes.objectChanges.map(\.type.description))
      seen.formUnion(collector.changes.sectionChanges.map { "section \($0.type)" })
      for change in collector.changes.objectChanges where change.type == .update {
        let path = try #require(change.newIndexPath)
        #expect(try list.controller.object(at: path) == change.object, "seed \(seed)")
      }
    }
    #expect(
      seen == ["insert", "delete", "move", "update", "section insert", "section delete"],
      "seed \(seed)")
  }
}
