import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation

/// One of several processes that save the same Expenses store at once, for the tests and the
/// soak of several writers (`FolioSoakRunner writer …`).
///
/// Each writer owns the objects it inserts — people named `wW-pN` and spendings whose content
/// is `wW-sN` — and only it inserts, edits, relinks and deletes them, so after every save it
/// reports it knows exactly what the store must hold of them from then on. Every writer also
/// sets the amount of the shared spendings (`shared-K`, in the store before any writer
/// starts), where their saves conflict; those edits are logged with the value the writer had
/// read, so a checker can tell whether a save overwrote a value its writer never saw.
///
/// The log has one JSON object per line and save: ``LogEntry``.
public struct SharedWriter {
  public var store: URL
  public var model: URL
  public var log: URL
  public var writer: Int
  public var saves: Int
  public var seed: UInt64
  public var policy: MergePolicy
  /// The writer waits for this file to exist before its first save, so writers start together.
  public var go: URL?
  /// The URIs of the objects given permanent IDs before their first save, by label.
  private let obtained = Box<[String: String]>([:])

  public init(
    store: URL, model: URL, log: URL, writer: Int, saves: Int, seed: UInt64, policy: MergePolicy,
    go: URL? = nil
  ) {
    self.store = store
    self.model = model
    self.log = log
    self.writer = writer
    self.saves = saves
    self.seed = seed
    self.policy = policy
    self.go = go
  }

  /// What one save did.
  public struct LogEntry: Codable, Sendable {
    /// The save's number, from 0.
    public var round: Int
    /// Whether the save returned without an error.
    public var saved: Bool
    /// The error's code when it did not (`mergeConflict`, …) and its message.
    public var error: String?
    public var message: String?
    /// After a save that returned: the writer's people (name → their spendings' contents,
    /// sorted) and spendings (content → "amount person").
    public var people: [String: [String]]?
    public var spendings: [String: String]?
    /// The shared spendings' amounts this save set: content → [read, set].
    public var shared: [String: [Double]]
    /// Whether this entry was written before the save, with what the save is to leave of the
    /// writer's own objects: a writer killed during the save leaves this state or the one
    /// before it.
    public var pending: Bool?
    /// After a save that returned: the URIs of the writer's objects that were given permanent
    /// IDs before their first save (label → URI), each checked to be the object's URI now.
    public var permanentIDs: [String: String]?
    /// After a save that returned: how the writer's document had taken other writers' saves
    /// in so far, by road (`journal`, `history`, `versions`, `whole`).
    public var takeIns: [String: Int]?
  }

  public static let formats: [any StoreFormat] = [
    XMLStore(), BinaryStore(), SQLiteStore(), PostgresStore(),
  ]

  public func run() throws {
    let model = try ManagedObjectModel(contentsOf: self.model)
    let document = try Document.open(store, model: model, formats: Self.formats)
    document.context.mergePolicy = policy
    var random = SeededGenerator(seed: seed)
    var next = 0
    if let go {
      while !FileManager.default.fileExists(atPath: go.path) { usleep(1000) }
    }
    let output = try FileHandle(forWritingTo: log)
    defer { try? output.close() }
    for round in 0..<saves {
      if Int.random(in: 0..<10, using: &random) < 3 { try document.mergeChangesFromOtherWriters() }
      let context = document.context
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        try change(context, random: &random, next: &next)
      }
      var shared: [String: [Double]] = [:]
      let sharedObjects = try objects(context, "Spending") { $0.hasPrefix("shared-") }
      if let target = sharedObjects.randomElement(using: &random) {
        let read = try target.value(forKey: "amount") as? Double ?? 0
        // Never the first value (0), nor one another save sets: the checks follow values.
        let set = Double(
          (writer + 1) * 1_000_000 + round * 10 + Int.random(in: 0..<10, using: &random))
        try target.setValue(set, forKey: "amount")
        shared[try label(target)] = [read, set]
      }
      var entry = LogEntry(round: round, saved: false, shared: shared)
      var intent = entry
      intent.pending = true
      (intent.people, intent.spendings) = try ownState(context)
      try output.write(contentsOf: try JSONEncoder().encode(intent) + Data("\n".utf8))
      do {
        try document.save()
        entry.saved = true
        (entry.people, entry.spendings) = try ownState(context)
        entry.permanentIDs = try keptIDs(context)
        let coordinator = document.coordinator
        entry.takeIns = [
          "journal": coordinator.takeInsFromJournal, "history": coordinator.takeInsFromHistory,
          "log": coordinator.takeInsFromLog,
          "versions": coordinator.takeInsByVersions, "whole": coordinator.takeInsOfWholeStore,
        ]
      } catch let error as GraphError {
        entry.error = "\(error.code)"
        entry.message = error.description
        // The shared edit is dropped; the writer's own changes are saved by a later save.
        for object in sharedObjects { try context.refresh(object, mergeChanges: false) }
      }
      try output.write(contentsOf: try JSONEncoder().encode(entry) + Data("\n".utf8))
      usleep(UInt32.random(in: 0..<3000, using: &random))
    }
  }

  /// One random change to the writer's own objects.
  private func change(
    _ context: ManagedObjectContext, random: inout SeededGenerator, next: inout Int
  ) throws {
    let people = try objects(context, "Person") { $0.hasPrefix("w\(writer)-") }
    let spendings = try objects(context, "Spending") { $0.hasPrefix("w\(writer)-") }
    switch Int.random(in: 0..<10, using: &random) {
    case 0, 1:
      let person = try context.insertNewObject(forEntityName: "Person")
      try person.setValue("w\(writer)-p\(next)", forKey: "name")
      try obtainPermanentID(person, context, every: next)
      next += 1
    case 2, 3, 4:
      let spending = try context.insertNewObject(forEntityName: "Spending")
      try spending.setValue("w\(writer)-s\(next)", forKey: "content")
      try spending.setValue(Double(Int.random(in: 0..<1000, using: &random)), forKey: "amount")
      try spending.setValue(people.randomElement(using: &random), forKey: "person")
      try obtainPermanentID(spending, context, every: next)
      next += 1
    case 5, 6:
      guard let spending = spendings.randomElement(using: &random) else { return }
      try spending.setValue(Double(Int.random(in: 0..<1000, using: &random)), forKey: "amount")
    case 7:
      guard let spending = spendings.randomElement(using: &random) else { return }
      try spending.setValue(people.randomElement(using: &random), forKey: "person")
    case 8:
      guard let spending = spendings.randomElement(using: &random) else { return }
      try context.delete(spending)
    default:
      guard let person = people.randomElement(using: &random) else { return }
      try context.delete(person)
    }
    context.processPendingChanges()
  }

  /// Gives every other new object (by its number) its permanent ID before it is saved, as an
  /// editor copying it would, and remembers the URI: the save must keep it.
  private func obtainPermanentID(
    _ object: ManagedObject, _ context: ManagedObjectContext, every number: Int
  ) throws {
    guard number % 2 == 0 else { return }
    try context.obtainPermanentIDs(for: [object])
    obtained.value[try label(object)] = object.objectID.uriRepresentation.absoluteString
  }

  /// The URIs given before the first save of the writer's objects still in the graph; a
  /// problem when an object's URI is not the one it was given.
  private func keptIDs(_ context: ManagedObjectContext) throws -> [String: String] {
    var kept: [String: String] = [:]
    for entity in ["Person", "Spending"] {
      for object in try objects(context, entity, { obtained.value[$0] != nil }) {
        let label = try label(object)
        let now = object.objectID.uriRepresentation.absoluteString
        kept[label] = obtained.value[label] == now ? now : "changed: \(now)"
      }
    }
    return kept
  }

  /// The objects of `entity` in the graph whose label passes `filter`.
  private func objects(
    _ context: ManagedObjectContext, _ entity: String, _ filter: (String) -> Bool
  ) throws -> [ManagedObject] {
    try context.objects(ofEntity: entity).filter { try filter(label($0)) }
      .sorted { try label($0) < label($1) }
  }

  /// The writer's own objects as the log records them.
  private func ownState(_ context: ManagedObjectContext) throws -> (
    [String: [String]], [String: String]
  ) {
    var people: [String: [String]] = [:]
    var spendings: [String: String] = [:]
    for person in try objects(context, "Person", { $0.hasPrefix("w\(writer)-") }) {
      people[try label(person)] = try Self.spendingLabels(of: person)
    }
    for spending in try objects(context, "Spending", { $0.hasPrefix("w\(writer)-") }) {
      spendings[try label(spending)] = try Self.describe(spending)
    }
    return (people, spendings)
  }

  /// A person's name or a spending's content.
  func label(_ object: ManagedObject) throws -> String {
    try object.value(forKey: object.entity.name == "Person" ? "name" : "content") as? String ?? ""
  }

  /// The contents of a person's spendings, sorted.
  public static func spendingLabels(of person: ManagedObject) throws -> [String] {
    let spendings = try person.value(forKey: "spendings") as? Set<ManagedObject> ?? []
    return try spendings.map { try $0.value(forKey: "content") as? String ?? "" }.sorted()
  }

  /// A spending as `amount person`.
  public static func describe(_ spending: ManagedObject) throws -> String {
    let amount = try spending.value(forKey: "amount") as? Double ?? -1
    let person = try (spending.value(forKey: "person") as? ManagedObject)?.value(forKey: "name")
    return "\(amount) \(person as? String ?? "-")"
  }
}

/// A value the writer's methods change without being `mutating`.
private final class Box<Value> {
  var value: Value
  init(_ value: Value) { self.value = value }
}
