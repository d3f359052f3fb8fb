import FolioGraph
import FolioModel
import FolioUndo
import Foundation

// The undo benchmark: the standalone undo manager at 10,000 / 100,000 / 1,000,000
// closure registrations in groups of 10 (ns per registration, undone and redone action, bytes
// per registration), memory under `levelsOfUndo = 100`, and the context on its undo manager
// (ns per attribute change through processPendingChanges to its registration, ns per undone
// change, one 100,000-object turn undone). Targets: 250 ns per standalone registration, undo
// and redo; 500 ns per context change; 64 B per recorded change beyond its old value; 50 ms
// for the 100,000-object turn.

/// A target whose changes register their inverse, as an editor's model objects do.
final class Counter {
  var value = 0
  let undo: UndoManager
  init(undo: UndoManager) { self.undo = undo }

  func add(_ amount: Int) {
    value += amount
    try? undo.registerUndo(withTarget: self) { counter in counter.add(-amount) }
  }
}

/// Registration, undo and redo of `registrations` closures in groups of 10, on a fresh undo
/// manager each round. A round of 10,000 takes a few milliseconds, at the mercy of one
/// scheduler tick, so small sizes run several rounds (about 1,000,000 registrations in all, at
/// most 25 rounds) and report each figure's median; bytes come from the first round.
func standaloneUndo(registrations: Int) throws -> [Case] {
  let rounds = min(25, max(1, 1_000_000 / max(registrations, 1)))
  var registering: [Double] = []
  var undoing: [Double] = []
  var redoing: [Double] = []
  var bytes = 0.0
  for round in 0..<rounds {
    let undo = UndoManager()
    undo.groupsByEvent = false
    let counter = Counter(undo: undo)
    let before = baseline()
    var start = now()
    for group in 0..<(registrations / 10) {
      undo.beginUndoGrouping()
      for step in 0..<10 { counter.add(group * 10 + step) }
      try undo.endUndoGrouping()
    }
    registering.append(perOperation(since: start, count: registrations))
    if round == 0 { bytes = Double(memory().peak - before) / Double(registrations) }
    let total = counter.value
    start = now()
    while undo.undoCount > 0 { try undo.undo() }
    undoing.append(perOperation(since: start, count: registrations))
    guard counter.value == 0, undo.redoCount == registrations / 10 else {
      throw BenchmarkFailure("undo did not restore the counter")
    }
    start = now()
    while undo.redoCount > 0 { try undo.redo() }
    redoing.append(perOperation(since: start, count: registrations))
    guard counter.value == total else {
      throw BenchmarkFailure("redo did not restore the counter")
    }
  }
  let suffix = rounds > 1 ? " (median of \(rounds) rounds)" : ""
  return [
    Case(title: "registration" + suffix, value: median(registering), unit: "ns", limit: 250),
    Case(title: "undone action" + suffix, value: median(undoing), unit: "ns", limit: 250),
    Case(title: "redone action" + suffix, value: median(redoing), unit: "ns", limit: 250),
    Case(title: "bytes per registration (peak RSS growth)", value: bytes, unit: "B"),
  ]
}

/// The middle value of `values` (the mean of the two middle ones for an even count).
func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return 0 }
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func boundedUndo() throws -> [Case] {
  let undo = UndoManager()
  undo.groupsByEvent = false
  undo.levelsOfUndo = 100
  let counter = Counter(undo: undo)
  let before = baseline()
  for group in 0..<100_000 {
    undo.beginUndoGrouping()
    for step in 0..<10 { counter.add(group + step) }
    try undo.endUndoGrouping()
  }
  guard undo.undoCount == 100 else { throw BenchmarkFailure("levelsOfUndo did not hold") }
  let growth = Double(memory().peak - before) / 1_048_576
  return [
    Case(
      title: "1,000,000 registrations, levelsOfUndo 100: peak RSS growth", value: growth,
      unit: "MiB")
  ]
}

func contextUndo() throws -> [Case] {
  let objectCount = 100_000
  let loop = ManualEventLoop()
  let undo = UndoManager(eventLoop: loop)
  let context = ManagedObjectContext(model: try itemModel(), undoManager: undo)
  undo.disableUndoRegistration()
  let items = try (0..<objectCount).map { _ in try context.insertNewObject(forEntityName: "Item") }
  try context.save()
  loop.endTurn()
  try undo.enableUndoRegistration()
  // Many small turns: each sets one attribute on 100 objects.
  let changes = 1_000_000
  var start = now()
  for index in 0..<changes {
    try items[index % objectCount].setValue(index, forKey: "quantity")
    if index % 100 == 99 { loop.endTurn() }
  }
  loop.endTurn()
  let perChange = perOperation(since: start, count: changes)
  start = now()
  while undo.undoCount > 0 { try undo.undo() }
  let perUndone = perOperation(since: start, count: changes)
  guard try items[5].value(forKey: "quantity") == nil, !context.hasChanges else {
    throw BenchmarkFailure("undoing every turn did not restore the saved graph")
  }
  undo.removeAllActions()
  // One turn that changes every object once; its size on the undo stack.
  let before = baseline()
  for (index, item) in items.enumerated() { try item.setValue(index, forKey: "quantity") }
  loop.endTurn()
  let recordedBytes = Double(undo.recordedBytes) / Double(objectCount)
  let rssBytes = Double(memory().peak - before) / Double(objectCount)
  start = now()
  try undo.undo()
  let bigUndo = Double(now() - start) / 1_000_000
  guard try items[objectCount - 1].value(forKey: "quantity") == nil else {
    throw BenchmarkFailure("the big turn was not undone")
  }
  let oldValue = Double(MemoryLayout<Int64>.size + 16)  // an integer slot
  return [
    Case(
      title: "attribute change through processPendingChanges", value: perChange, unit: "ns",
      limit: 500),
    Case(title: "undone change", value: perUndone, unit: "ns", limit: 500),
    Case(
      title: "recorded change beyond its old value (undo manager's estimate)",
      value: recordedBytes - oldValue, unit: "B", limit: 64),
    Case(title: "one 100,000-object turn: peak RSS per changed object", value: rssBytes, unit: "B"),
    Case(
      title: "undo one turn that changed 100,000 objects", value: bigUndo, unit: "ms", limit: 50),
  ]
}
