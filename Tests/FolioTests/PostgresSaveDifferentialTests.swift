import Folio
import FolioPostgresStore
import FolioTestSupport
import Foundation
import Testing

/// A PostgreSQL document and a SQLite store, one row writer saving both in place through their
/// own statements, given the same random edits of the Soak model (values, to-ones, a
/// many-to-many, an ordered one-to-many and an ordered many-to-many, inserts, deletions): after
/// every save, each read afresh holds the same objects, values and relationships, ordered ones
/// in their order.
@Suite(
  "PostgreSQL saves in place, against SQLite's",
  .enabled(if: PostgresTestServer.isAvailable, "FOLIO_TEST_POSTGRES_URL unset"))
struct PostgresSaveDifferentialTests {
  static let entities = ["Owner", "Item", "Tag", "Note", "Badge"]

  /// Every object of `document` as a line: entity, uid, values, and related objects by uid,
  /// ordered relationships in order.
  static func state(_ document: Document) throws -> [String] {
    var lines: [String] = []
    for entity in entities {
      for object in try document.context.objects(ofEntity: entity) {
        var line = "\(entity) \(try uid(object))"
        for attribute in object.entity.allAttributes.map(\.name).sorted() where attribute != "uid" {
          line += " \(attribute)=\(String(describing: try object.value(forKey: attribute)))"
        }
        for relationship in object.entity.allRelationships.sorted(by: { $0.name < $1.name }) {
          let value = try object.value(forKey: relationship.name)
          let uids: [Int64]
          if let list = value as? [ManagedObject] {
            uids = try list.map(uid)
          } else if let set = value as? Set<ManagedObject> {
            uids = try set.map(uid).sorted()
          } else if let one = value as? ManagedObject {
            uids = [try uid(one)]
          } else {
            uids = []
          }
          line += " \(relationship.name)=\(uids)"
        }
        lines.append(line)
      }
    }
    return lines.sorted()
  }

  /// An object's `uid`, unique among the objects of both stores.
  static func uid(_ object: ManagedObject) throws -> Int64 {
    let value = try object.value(forKey: "uid")
    let uid = value as? Int64 ?? (value as? Int).map(Int64.init)
    try #require(uid != nil, "uid \(String(describing: value))")
    return uid ?? -1
  }

  /// The objects of `entity` in `document`, by uid.
  static func objects(_ entity: String, in document: Document) throws -> [Int64: ManagedObject] {
    var result: [Int64: ManagedObject] = [:]
    for object in try document.context.objects(ofEntity: entity) {
      result[try uid(object)] = object
    }
    return result
  }

  /// One random edit, chosen once and made the same in each of `documents`.
  static func edit(_ documents: [Document], random: inout SeededGenerator, next: inout Int64)
    throws
  {
    // The uids each entity has, the same in every document.
    var uids: [String: [Int64]] = [:]
    for entity in entities {
      uids[entity] = try objects(entity, in: documents[0]).keys.sorted()
    }
    func some(_ entity: String) -> Int64? { uids[entity]?.randomElement(using: &random) }
    func subset(_ entity: String) -> [Int64] {
      (uids[entity] ?? []).filter { _ in Int.random(in: 0..<3, using: &random) == 0 }
        .shuffled(using: &random)
    }
    let choice = Int.random(in: 0..<9, using: &random)
    let entity = entities.randomElement(using: &random) ?? "Owner"
    let name = ["n0", "n1", "Kelvin", "n;1"].randomElement(using: &random) ?? "n0"
    let (owner, item, tag, badge) = (some("Owner"), some("Item"), some("Tag"), some("Badge"))
    let (items, tags) = (subset("Item"), subset("Tag"))
    var victim = some(entity)
    // An owner with a badge, or a tag with owners, is kept by its Deny rule; an owner with
    // notes (or a badge whose holder has some) would leave them naming it (No Action), which a
    // store read afresh cannot show.
    if choice == 8, let object = try objects(entity, in: documents[0])[victim ?? -1] {
      func related(_ key: String) throws -> Bool {
        let value = try object.value(forKey: key)
        return value is ManagedObject || !(value as? Set<ManagedObject> ?? []).isEmpty
      }
      let kept =
        switch entity {
        case "Owner": try related("badge") || related("notes")
        case "Tag": try related("owners")
        // Its holder goes with it (Cascade), notes and all.
        case "Badge":
          try (object.value(forKey: "holder") as? ManagedObject)?.value(forKey: "notes")
            as? Set<ManagedObject> ?? [] != []
        default: false
        }
      if kept { victim = nil }
    }
    next += 1
    for document in documents {
      func find(_ entity: String, _ uid: Int64?) throws -> ManagedObject? {
        guard let uid else { return nil }
        return try objects(entity, in: document)[uid]
      }
      func all(_ entity: String, _ uids: [Int64]) throws -> [ManagedObject] {
        let found = try objects(entity, in: document)
        return uids.compactMap { found[$0] }
      }
      let context = document.context
      switch choice {
      case 0:
        let object = try context.insertNewObject(forEntityName: entity)
        try object.setValue(next, forKey: "uid")
        try object.setValue(name, forKey: "name")
      case 1: try find(entity, victim)?.setValue(name, forKey: "name")
      case 2: try find("Item", item)?.setValue(try find("Owner", owner), forKey: "owner")
      case 3: try find("Owner", owner)?.setValue(Set(try all("Tag", tags)), forKey: "tags")
      case 4: try find("Owner", owner)?.setValue(try all("Item", items), forKey: "list")
      case 5: try find("Tag", tag)?.setValue(try all("Item", items), forKey: "ranked")
      case 6: try find("Badge", badge)?.setValue(try find("Owner", owner), forKey: "holder")
      case 7: try find("Item", item)?.setValue(Set(try all("Tag", tags)), forKey: "rankedBy")
      default:
        if let object = try find(entity, victim) { try context.delete(object) }
      }
      context.processPendingChanges()
    }
  }

  @Test(
    "the same random edits saved in place leave both stores holding the same graph",
    arguments: Array(UInt64(1)...UInt64(5)))
  func randomEdits(seed: UInt64) throws {
    let model = try ManagedObjectModel(contentsOf: BatchDifferentialTests.soakModel)
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let sqlite = folder.appendingPathComponent("soak.sqlite")
    let postgres = PostgresTestServer.document("save-differential-\(seed)")
    defer { try? PostgresStore.dropSchema(at: postgres) }
    for (url, format) in [(sqlite, SQLiteStore() as any StoreFormat), (postgres, PostgresStore())] {
      var random = SeededGenerator(seed: seed)
      try BatchDifferentialTests.randomSoakStore(
        at: url, format: format, model: model, random: &random)
    }
    let documents = [
      try Document.open(sqlite, model: model, formats: [SQLiteStore()]),
      try Document.open(postgres, model: model, formats: [PostgresStore()]),
    ]
    #expect(try Self.state(documents[0]) == Self.state(documents[1]), "seed \(seed) at first")
    var random = SeededGenerator(seed: seed + 100)
    var next: Int64 = 10_000
    for round in 0..<30 {
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        try Self.edit(documents, random: &random, next: &next)
      }
      for document in documents { try document.save() }
      let fresh = [
        try Document.open(sqlite, model: model, formats: [SQLiteStore()]),
        try Document.open(postgres, model: model, formats: [PostgresStore()]),
      ]
      let expected = try Self.state(documents[0])
      // One line an object: the uids tell them apart.
      #expect(Set(expected).count == expected.count, "seed \(seed), round \(round)")
      #expect(try Self.state(fresh[0]) == expected, "seed \(seed), round \(round): SQLite")
      #expect(try Self.state(fresh[1]) == expected, "seed \(seed), round \(round): PostgreSQL")
    }
  }
}
