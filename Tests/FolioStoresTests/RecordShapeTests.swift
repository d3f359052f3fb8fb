import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioSQLiteStore
@testable import FolioStores
@testable import FolioXMLStore

/// Both readers build a record of an entity of at most 64 attributes and 64 relationships as a
/// row with shared names and a copy of a template dictionary (sharing one dictionary among the
/// records with a lone to-one target when the whole store is read), and a wider entity's as
/// dictionaries. Every shape must read back as the records written.
@Suite("Store records: every shape reads back from both formats")
struct RecordShapeTests {
  static let wideAttributes = 70
  static let wideRelationships = 66

  /// `Wide` (70 attributes, 66 to-one relationships and a to-many), `Narrow` (5 attributes, a
  /// to-one, a to-many and an ordered to-many) and their `Target`.
  static func model() throws -> ManagedObjectModel {
    var wide = EntityDescription("Wide")
    for index in 0..<wideAttributes {
      wide.attributes.append(
        AttributeDescription("a\(index)", index.isMultiple(of: 2) ? .integer64 : .string))
    }
    for index in 0..<wideRelationships {
      wide.relationships.append(RelationshipDescription("r\(index)", to: "Target"))
    }
    wide.relationships.append(RelationshipDescription("many", to: "Target", toMany: true))
    var narrow = EntityDescription("Narrow")
    for index in 0..<5 {
      narrow.attributes.append(
        AttributeDescription("n\(index)", index.isMultiple(of: 2) ? .integer64 : .string))
    }
    narrow.relationships = [
      RelationshipDescription("one", to: "Target"),
      RelationshipDescription("many", to: "Target", toMany: true),
      RelationshipDescription("list", to: "Target", toMany: true, ordered: true),
    ]
    let target = EntityDescription("Target") { AttributeDescription("label", .string) }
    return try ManagedObjectModel(entities: [wide, narrow, target])
  }

  /// Records in which each attribute and relationship is present or not at random, so that
  /// many sets of columns occur, including none; narrow records' to-one targets repeat.
  static func records(seed: UInt64) -> [StoreRecord] {
    var generator = SeededGenerator(seed: seed)
    var records: [StoreRecord] = []
    let targets = Int64(1)...Int64(30)
    for id in targets {
      records.append(
        StoreRecord(entityName: "Target", id: id, attributes: ["label": .string("target \(id)")]))
    }
    func value(_ index: Int, _ id: Int64) -> AttributeValue {
      index.isMultiple(of: 2) ? .integer(id * 1_000 + Int64(index)) : .string("v\(index)-\(id)")
    }
    func someTargets(_ most: Int) -> [Int64] {
      (0..<Int.random(in: 0...most, using: &generator)).map { _ in
        Int64.random(in: targets, using: &generator)
      }
    }
    var id: Int64 = 100
    for _ in 0..<40 {
      id += 1
      var attributes: [String: AttributeValue] = [:]
      for index in 0..<wideAttributes where Bool.random(using: &generator) {
        attributes["a\(index)"] = value(index, id)
      }
      var relationships: [String: [Int64]] = [:]
      for index in 0..<wideRelationships where Bool.random(using: &generator) {
        relationships["r\(index)"] = [Int64.random(in: targets, using: &generator)]
      }
      let many = Array(Set(someTargets(4))).sorted()
      if !many.isEmpty { relationships["many"] = many }
      records.append(
        StoreRecord(
          entityName: "Wide", id: id, attributes: attributes, relationships: relationships))
    }
    for _ in 0..<300 {
      id += 1
      var attributes: [String: AttributeValue] = [:]
      for index in 0..<5 where Int.random(in: 0..<3, using: &generator) > 0 {
        attributes["n\(index)"] = value(index, id)
      }
      var relationships: [String: [Int64]] = [:]
      if Int.random(in: 0..<4, using: &generator) > 0 {
        relationships["one"] = [Int64.random(in: 1...5, using: &generator)]
      }
      if Bool.random(using: &generator) {
        let many = Array(Set(someTargets(3))).sorted()
        if !many.isEmpty { relationships["many"] = many }
      }
      if Int.random(in: 0..<4, using: &generator) == 0 {
        let list = someTargets(3)
        if !list.isEmpty { relationships["list"] = list }
      }
      records.append(
        StoreRecord(
          entityName: "Narrow", id: id, attributes: attributes, relationships: relationships))
    }
    return records
  }

  /// Collects streamed records, as a context's loader takes them.
  struct Collector: StoreRecordConsumer {
    var records: [StoreRecord] = []
    mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {}
    mutating func consume(_ record: StoreRecord) { records.append(record) }
    mutating func finish() {}
  }

  static let formats: [(name: String, store: any StoreFormat)] = [
    ("xml", XMLStore()), ("folio", BinaryStore()),
  ]

  @Test("records of every shape read back, whole and streamed", arguments: [0, 1])
  func roundTrip(format: Int) throws {
    let (name, store) = Self.formats[format]
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try Self.model()
    for seed in UInt64(1)...3 {
      let records = Self.records(seed: seed)
      let url = folder.appendingPathComponent("shapes-\(seed).\(name)")
      try store.write(
        StoreContents(metadata: StoreMetadata(storeType: name), records: records), model: model,
        to: url)
      let whole = try store.read(from: url, model: model).records
      var collector = Collector()
      try store.read(from: url, model: model, into: &collector)
      for read in [whole, collector.records] {
        let byID = Dictionary(uniqueKeysWithValues: read.map { ($0.id, $0) })
        #expect(read.count == records.count, "seed \(seed)")
        for record in records {
          let found = try #require(byID[record.id], "seed \(seed): record \(record.id) is missing")
          #expect(found == record, "seed \(seed): record \(record.id)")
          #expect(found.attributes == record.attributes, "seed \(seed): record \(record.id)")
          #expect(found.attributeCount == record.attributes.count)
          for (key, value) in record.attributes { #expect(found.attribute(key) == value) }
        }
      }
    }
  }

  /// The SQLite store numbers each hierarchy on its own: its IDs carry their table, so records
  /// are compared by key. It holds no to-many without an inverse: the shapes keep their
  /// to-ones, more than 64 of them in `Wide`.
  @Test("records of every shape read back from a SQLite store, whole and streamed")
  func sqliteRoundTrip() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    var entities = try Self.model().entities
    for index in entities.indices {
      entities[index].relationships.removeAll { $0.isToMany }
    }
    let model = try ManagedObjectModel(entities: entities)
    func byKey(_ record: StoreRecord) -> StoreRecord {
      var relationships = record.relationships.mapValues { $0.map(StoreKeySpace.key(of:)) }
      relationships["many"] = nil
      relationships["list"] = nil
      return StoreRecord(
        entityName: record.entityName, id: StoreKeySpace.key(of: record.id),
        attributes: record.attributes, relationships: relationships)
    }
    for seed in UInt64(1)...3 {
      let records = Self.records(seed: seed).map(byKey)
      let url = folder.appendingPathComponent("shapes-\(seed).sqlite")
      try SQLiteStore().write(
        StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: records),
        model: model, to: url)
      let whole = try SQLiteStore().read(from: url, model: model).records
      var collector = Collector()
      try SQLiteStore().read(from: url, model: model, into: &collector)
      for read in [whole, collector.records] {
        let byID = Dictionary(uniqueKeysWithValues: read.map { (StoreKeySpace.key(of: $0.id), $0) })
        #expect(read.count == records.count, "seed \(seed)")
        for record in records {
          let found = try #require(byID[record.id], "seed \(seed): record \(record.id) is missing")
          #expect(byKey(found) == record, "seed \(seed): record \(record.id)")
        }
      }
    }
  }

  @Test("a record sharing its relationships with others changes alone", arguments: [0, 1])
  func sharedRelationshipsAreValues(format: Int) throws {
    let (name, store) = Self.formats[format]
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try Self.model()
    let records = Self.records(seed: 9)
    let url = folder.appendingPathComponent("shared.\(name)")
    try store.write(
      StoreContents(metadata: StoreMetadata(storeType: name), records: records), model: model,
      to: url)
    var read = try store.read(from: url, model: model).records
    let lone = read.indices.filter {
      read[$0].entityName == "Narrow" && read[$0].relationships == ["one": [3]]
    }
    try #require(lone.count >= 2)
    let untouched = read[lone[1]]
    read[lone[0]].relationships["one"] = [4]
    read[lone[0]].relationships["many"] = [1, 2]
    #expect(read[lone[1]] == untouched)
    #expect(read[lone[1]].relationships == ["one": [3]])
    #expect(read[lone[0]].relationships == ["one": [4], "many": [1, 2]])
  }

  @Test("a composite member given twice in the XML store is refused with its place")
  func compositeMemberTwice() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try XMLStoreSupport.everyTypeModel()
    let url = folder.appendingPathComponent("composite.xml")
    let record = StoreRecord(
      entityName: "Item", id: 1,
      attributes: ["address": .composite(["street": .string("Main"), "number": .integer(3)])])
    try XMLStore().write(
      StoreContents(metadata: StoreMetadata(storeType: "XML"), records: [record]), model: model,
      to: url)
    var lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
    let street = try #require(lines.firstIndex { $0.contains("name=\"street\"") })
    lines.insert(lines[street], at: street + 1)
    try Data(lines.joined(separator: "\n").utf8).write(to: url)
    let error = XMLStoreSupport.storeError { () throws(StoreError) in
      _ = try XMLStore().read(from: url, model: model)
    }
    #expect(error?.code == .malformedStore)
    #expect(
      error?.description
        == "\(url.path):\(street + 2):\(lines[street].prefix { $0 == " " }.count + 1): Item.address: attribute \"address.street\" appears twice in one object of \"Item\""
    )
  }

  /// Objects whose lone to-one reference alternates between two relationships read back, and
  /// the binary reader builds its table of shared relationships once for the block: building
  /// it again at each change of relationship took a time quadratic in the objects.
  @Test("rows alternating between two lone to-one columns build one shared table")
  func alternatingLoneToOneColumns() throws {
    let model = try ManagedObjectModel {
      EntityDescription("Item") {
        RelationshipDescription("a", to: "Target")
        RelationshipDescription("b", to: "Target")
      }
      EntityDescription("Target") { AttributeDescription("label", .string) }
    }
    var records = (Int64(1)...10).map {
      StoreRecord(entityName: "Target", id: $0, attributes: ["label": .string("t\($0)")])
    }
    for id in Int64(11)...2_010 {
      records.append(
        StoreRecord(
          entityName: "Item", id: id,
          relationships: [id.isMultiple(of: 2) ? "a" : "b": [id % 10 + 1]]))
    }
    let body = try BinaryBodyWriter.encode(records, model: model)
    let (read, builds) = try BinaryParallelReadTests.readCountingTables(
      body, model: model, parallelRows: .max)
    #expect(Set(read) == Set(records))
    #expect(builds == 1)
  }
}
