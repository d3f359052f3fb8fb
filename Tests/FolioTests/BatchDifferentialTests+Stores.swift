import Folio
import FolioTestSupport
import Foundation
import Testing

extension BatchDifferentialTests {
  /// A random store of the Soak model in `format` at `url`: owners, items, tags, notes and
  /// badges with random values (some nil) and random links.
  static func randomSoakStore(
    at url: URL, format: any StoreFormat, model: ManagedObjectModel,
    random: inout SeededGenerator
  ) throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(at: url, format: format)
    let context = try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
    var uid: Int64 = 0
    func make(_ entity: String, _ count: Int) throws -> [ManagedObject] {
      try (0..<count).map { _ in
        let object = try context.insertNewObject(forEntityName: entity)
        uid += 1
        try object.setValue(uid, forKey: "uid")
        let names = ["n0", "n1", "n2", "n3", "Kelvin", "Ke\u{301}", "\u{212A}elvin", "n;1"]
        if Int.random(in: 0..<5, using: &random) > 0 {
          try object.setValue(names.randomElement(using: &random), forKey: "name")
        }
        return object
      }
    }
    let owners = try make("Owner", Int.random(in: 4...10, using: &random))
    let items = try make("Item", Int.random(in: 6...20, using: &random))
    let tags = try make("Tag", Int.random(in: 2...5, using: &random))
    let notes = try make("Note", Int.random(in: 2...6, using: &random))
    let badges = try make("Badge", Int.random(in: 0...4, using: &random))
    for owner in owners {
      if Bool.random(using: &random) {
        try owner.setValue(Int.random(in: -2...6, using: &random), forKey: "score")
      }
      if Bool.random(using: &random) {
        try owner.setValue(Bool.random(using: &random), forKey: "flag")
      }
      if Bool.random(using: &random) {
        try owner.setValue(Double(Int.random(in: 0...8, using: &random)) / 2, forKey: "weight")
      }
      try owner.setValue(
        Set(tags.filter { _ in Int.random(in: 0..<3, using: &random) == 0 }), forKey: "tags")
    }
    for item in items {
      if Bool.random(using: &random) {
        try item.setValue(Int.random(in: 0...5, using: &random), forKey: "score")
      }
      if Int.random(in: 0..<3, using: &random) > 0 {
        try item.setValue(owners.randomElement(using: &random), forKey: "owner")
      }
      if Int.random(in: 0..<3, using: &random) == 0 {
        try item.setValue(owners.randomElement(using: &random), forKey: "listedIn")
      }
      try item.setValue(
        Set(tags.filter { _ in Int.random(in: 0..<3, using: &random) == 0 }), forKey: "rankedBy")
    }
    for note in notes where Bool.random(using: &random) {
      try note.setValue(owners.randomElement(using: &random), forKey: "subject")
    }
    for (badge, owner) in zip(badges, owners.shuffled(using: &random)) {
      try badge.setValue(owner, forKey: "holder")
    }
    try context.save()
  }

  /// A random predicate on `entity` of the Soak model: mostly what SQL can say, sometimes
  /// what only an evaluation over the records can.
  static func randomPredicate(for entity: String, random: inout SeededGenerator) throws
    -> QueryPredicate?
  {
    var pushable = [
      "uid < 6", "uid >= 9", "uid BETWEEN {3, 12}", "uid IN {1, 4, 9, 16}", "uid != 5",
      "name == 'n1'", "name != 'n2'", "name IN {'n0', 'n3', nil}", "name == nil",
      "name != nil", "5 > uid", "TRUEPREDICATE", "name == 'Kelvin'",
    ]
    var evaluated = [
      "name BEGINSWITH 'n'", "name ==[c] 'N1'", "name == 'K\u{301}elvin'",
      "modulus:by:(uid, 2) == 0",
    ]
    switch entity {
    case "Owner":
      pushable += [
        "score > 2", "score <= 0", "score == nil", "flag == YES", "flag != NO", "weight < 2.5",
        "score != 3", "NOT (score < 4)",
      ]
      evaluated += ["items.@count > 1", "ANY tags.name == 'n1'", "badge != nil"]
    case "Item":
      pushable += ["score >= 3", "score IN {1, 2}"]
      evaluated += ["owner.score > 2", "listedIn == nil", "rankedBy.@count == 0"]
    default:
      break
    }
    func one() throws -> QueryPredicate {
      let pool = Int.random(in: 0..<4, using: &random) == 0 ? evaluated : pushable
      return try QueryPredicate(format: pool.randomElement(using: &random) ?? "TRUEPREDICATE")
    }
    switch Int.random(in: 0..<8, using: &random) {
    case 0: return nil
    case 1: return .and([try one(), try one()])
    case 2: return .or([try one(), try one()])
    case 3: return .not(try one())
    default: return try one()
    }
  }

  @Test(
    "on random Soak stores, batch deletes and updates leave what the plain path leaves",
    arguments: Array(UInt64(1)...UInt64(12)))
  func randomStores(seed: UInt64) throws {
    let model = try ManagedObjectModel(contentsOf: Self.soakModel)
    var random = SeededGenerator(seed: seed)
    let formats: [any StoreFormat] = [SQLiteStore(), SQLiteStore(), XMLStore(), BinaryStore()]
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    for (index, format) in formats.enumerated() {
      let url = folder.appendingPathComponent("soak-\(index).\(format.fileExtension)")
      try Self.randomSoakStore(at: url, format: format, model: model, random: &random)
      for round in 0..<8 {
        let entity = ["Owner", "Item", "Tag", "Note", "Badge"].randomElement(using: &random)!
        let predicate = try Self.randomPredicate(for: entity, random: &random)
        let operation: Operation
        switch Int.random(in: 0..<3, using: &random) {
        case 0: operation = .delete
        case 1: operation = .update(["name": "batch", "uid": 99])
        default:
          operation = .update(
            ["uid": try QueryExpression(format: "uid * 2"), "name": NSNull()])
        }
        try Self.compare(
          operation, entity: entity, predicate: predicate, url: url, format: format, model: model,
          throughContext: round % 2 == 0,
          label: "seed \(seed), \(format.typeName) \(index), round \(round), \(entity)")
      }
    }
  }
}

extension BatchDifferentialTests {
  /// Predicates for the objects of `entity` in `context` that SQL can say: on an integer,
  /// Boolean, Double or date attribute, or a string one, compared with a value an object holds,
  /// so they select some objects and not all.
  static func corpusPredicates(
    _ entity: EntityDescription, in context: ManagedObjectContext
  ) throws -> [QueryPredicate] {
    let objects = try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name))
    var predicates: [QueryPredicate] = []
    for attribute in entity.allAttributes where !attribute.isTransient {
      let values = try objects.compactMap { try $0.value(forKey: attribute.name) }
      guard let middle = values.dropFirst(values.count / 2).first else { continue }
      switch attribute.attributeType {
      case .integer16, .integer32, .integer64, .double, .float, .date:
        predicates.append(
          .comparison(
            QueryComparison(
              .keyPath(attribute.name), .lessThanOrEqualTo,
              .constant(try #require(QueryValue(middle))))))
      case .boolean:
        predicates.append(
          .comparison(
            QueryComparison(
              .keyPath(attribute.name), .notEqualTo, .constant(try #require(QueryValue(middle))))))
      case .string:
        predicates.append(
          .comparison(
            QueryComparison(
              .keyPath(attribute.name), .equalTo, .constant(try #require(QueryValue(middle))))))
        predicates.append(
          .comparison(QueryComparison(.keyPath(attribute.name), .notEqualTo, .constant(.null))))
      default:
        continue
      }
      if predicates.count >= 3 { break }
    }
    return predicates
  }

  @Test(
    "on the corpus's Core Data stores, batch deletes and updates leave what the plain path leaves",
    arguments: SQLiteCorpus.available)
  func corpus(_ store: SQLiteCorpus.Store) throws {
    let url = try SQLiteCorpus.copy(of: store)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let model = try SQLiteCorpus.model(of: store)
    let format = SQLiteStore(missingExternalData: .readAsNil)
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(at: url, format: format)
    let context = try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
    var compared = 0
    var entities = 0
    // A large store is read several times a comparison: it gets fewer.
    let budget = store.objects > 1000 ? 2 : 5
    for entity in model.entities.sorted(by: { $0.name < $1.name }) where entities < budget {
      let predicates = try Self.corpusPredicates(entity, in: context)
      guard !predicates.isEmpty else { continue }
      entities += 1
      let text = entity.allAttributes.first {
        $0.attributeType == .string && !$0.isTransient && !$0.isDerived
      }
      for (index, predicate) in predicates.enumerated() {
        let operation: Operation =
          index % 2 == 1 || text == nil ? .delete : .update([text!.name: "batch"])
        if try Self.compare(
          operation, entity: entity.name, predicate: predicate, url: url, format: format,
          model: model, throughContext: index % 2 == 0, label: "\(store.file) \(entity.name)")
        {
          compared += 1
        }
      }
    }
    #expect(compared > 0, "\(store.file): no batch could be compared with the plain path")
  }
}
