import FolioStores
import FolioTestSupport
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// A store format for tests: records as JSON behind a magic line, written atomically.
struct TestFormat: StoreFormat {
  var typeName: String { "Test" }
  var fileExtension: String { "test" }
  static let magic = Data("FOLIO-TEST\n".utf8)
  /// When set, writes fail after writing a few bytes (like a full disk).
  var failsWrites = false

  struct File: Codable {
    var identifier: String
    var next: Int64
    var records: [Record]
  }

  struct Record: Codable {
    var entity: String
    var id: Int64
    var strings: [String: String]
    var numbers: [String: Int64]
    var links: [String: [Int64]]
  }

  func recognizes(_ prefix: Data) -> Bool { prefix.starts(with: Self.magic) }

  func decode(_ url: URL) throws(StoreError) -> File {
    guard let data = try? Data(contentsOf: url), data.starts(with: Self.magic),
      let file = try? JSONDecoder().decode(File.self, from: data.dropFirst(Self.magic.count))
    else { throw StoreError(.malformedStore, "not a test store", at: .init(file: url.path)) }
    return file
  }

  func readMetadata(from url: URL) throws(StoreError) -> StoreMetadata {
    StoreMetadata(storeType: typeName, identifier: try decode(url).identifier)
  }

  func read(from url: URL, model: ManagedObjectModel) throws(StoreError) -> StoreContents {
    let file = try decode(url)
    let records = file.records.map { record in
      var attributes: [String: AttributeValue] = record.strings.mapValues { .string($0) }
      for (key, number) in record.numbers { attributes[key] = .integer(number) }
      return StoreRecord(
        entityName: record.entity, id: record.id, attributes: attributes,
        relationships: record.links)
    }
    return StoreContents(
      metadata: StoreMetadata(storeType: typeName, identifier: file.identifier), records: records,
      nextObjectID: file.next)
  }

  func write(_ contents: StoreContents, model: ManagedObjectModel, to url: URL) throws(StoreError) {
    let file = File(
      identifier: contents.metadata.identifier, next: contents.nextObjectID,
      records: contents.records.map { record in
        var strings: [String: String] = [:]
        var numbers: [String: Int64] = [:]
        for (key, value) in record.attributes {
          if case .string(let text) = value { strings[key] = text }
          if case .integer(let number) = value { numbers[key] = number }
        }
        return Record(
          entity: record.entityName, id: record.id, strings: strings, numbers: numbers,
          links: record.relationships)
      })
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    guard let body = try? encoder.encode(file) else {
      throw StoreError(.writeFailed, "cannot encode")
    }
    let failing = failsWrites
    try AtomicFile.write(to: url) { handle throws(StoreError) in
      try? handle.write(contentsOf: Self.magic)
      if failing { throw StoreError(.writeFailed, "no space left on device") }
      try? handle.write(contentsOf: body)
    }
  }
}

/// The Track/Playlist part of the test model is all strings, integers and links.
@Suite("The coordinator and saving to a store")
struct CoordinatorTests {
  func openContext(_ url: URL, format: TestFormat = TestFormat()) throws -> ManagedObjectContext {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try graphModel())
    try coordinator.addPersistentStore(at: url, format: format)
    return try ManagedObjectContext(coordinator: coordinator)
  }

  @Test("a missing file is a new store; save writes it; reopening gives the same graph")
  func saveAndReopen() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("music.test")
    let context = try openContext(url)
    let mix = try context.insertNewObject(forEntityName: "Playlist")
    try mix.setValue("Mix", forKey: "name")
    let track = try context.insertNewObject(forEntityName: "Track")
    try track.setValue("Intro", forKey: "title")
    try track.setValue(90, forKey: "seconds")
    try mix.add(track, toKey: "tracks")
    try context.save()
    #expect(FileManager.default.fileExists(atPath: url.path))
    let storeID = try PersistentStoreCoordinator.metadataForPersistentStore(
      at: url, formats: [TestFormat()]
    ).identifier
    #expect(storeID == context.storeIdentifier)
    #expect(
      track.objectID.uriRepresentation.absoluteString.hasPrefix("x-coredata://\(storeID)/Track/p"))

    let reopened = try openContext(url)
    let again = try #require(reopened.object(with: track.objectID))
    #expect(try again.value(forKeyPath: "playlist.name") as? String == "Mix")
    #expect(try again.value(forKey: "seconds", as: Int.self) == 90)
    #expect(!reopened.hasChanges)
  }

  @Test("a save that cannot write changes nothing, in the context or on disk")
  func failedWrite() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("music.test")
    let context = try openContext(url)
    try context.insertNewObject(forEntityName: "Track").setValue("A", forKey: "title")
    try context.save()
    let before = try Data(contentsOf: url)

    let failing = try openContext(url, format: TestFormat(failsWrites: true))
    let track = try failing.insertNewObject(forEntityName: "Track")
    let error = try #require(graphError { try failing.save() })
    #expect(error.code == .store)
    #expect(error.message.hasSuffix("no space left on device"))
    #expect(track.isInserted && track.objectID.isTemporaryID && failing.hasChanges)
    #expect(try Data(contentsOf: url) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["music.test"])
  }

  @Test("a file changed on disk since it was opened is not overwritten")
  func modifiedOnDisk() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("music.test")
    let first = try openContext(url)
    try first.insertNewObject(forEntityName: "Track").setValue("A", forKey: "title")
    try first.save()
    let second = try openContext(url)
    try second.insertNewObject(forEntityName: "Track").setValue("B", forKey: "title")
    try second.save()
    try first.insertNewObject(forEntityName: "Track").setValue("C", forKey: "title")
    let error = try #require(graphError { try first.save() })
    #expect(error.code == .store)
    #expect((error.underlying as? StoreError)?.code == .modifiedOnDisk)
    #expect(try openContext(url).objects(ofEntity: "Track").count == 2)
  }

  @Test("files are recognised by content, not by name")
  func sniffing() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let misnamed = folder.appendingPathComponent("music.xml")
    try (TestFormat.magic + Data("{}".utf8)).write(to: misnamed)
    #expect(
      try PersistentStoreCoordinator.format(of: misnamed, among: [TestFormat()]).typeName == "Test")
    let other = folder.appendingPathComponent("notes.test")
    try Data("hello".utf8).write(to: other)
    do {
      _ = try PersistentStoreCoordinator.format(of: other, among: [TestFormat()])
      Issue.record("an unknown format was accepted")
    } catch {
      #expect(error.code == .unknownFormat)
      #expect(error.description == "\(other.path)@0: not a store of any known format (Test)")
    }
  }

  @Test("an in-memory store saves without a file, and a coordinator holds one store")
  func inMemory() throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try graphModel())
    try coordinator.addInMemoryStore()
    #expect(throws: StoreError.self) { try coordinator.addInMemoryStore() }
    let context = try ManagedObjectContext(coordinator: coordinator)
    try context.insertNewObject(forEntityName: "Track").setValue("A", forKey: "title")
    try context.save()
    let second = try ManagedObjectContext(coordinator: coordinator)
    #expect(try second.objects(ofEntity: "Track").count == 1)
  }
}
