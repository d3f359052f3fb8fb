import Folio
import FolioTestSupport
import Foundation
import Testing

/// Another writer's saves to an XML or binary store taken in from the store's change journal
/// (only the objects its saves changed are read) against the slow twin, the whole file read
/// anew: after every save the document that took them in holds what a fresh open shows.
@Suite("Taking in other writers' saves from the change journal")
struct JournalTakeInTests {
  static let formats: [any StoreFormat] = [XMLStore(), BinaryStore()]

  static func metadata(_ document: Document) -> StoreMetadata? {
    document.coordinator.persistentStores.first?.metadata
  }

  @Test(
    "every save taken in from the journal leaves what a fresh open shows",
    arguments: [(0, 1), (1, 2), (0, 3), (1, 4)] as [(Int, UInt64)])
  func differential(format index: Int, seed: UInt64) throws {
    let format = Self.formats[index]
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Library.store")
    let model = try ManagedObjectModel(contentsOf: VersionTakeInTests.library)
    let setup = try Document(model: model)
    var random = SeededGenerator(seed: seed)
    var next = 0
    for _ in 0..<60 { try VersionTakeInTests.change(setup, random: &random, next: &next) }
    try setup.save(to: url, format: format)
    let watcher = try Document.open(url, model: model, formats: [format])
    let writer = try Document.open(url, model: model, formats: [format])
    for round in 0..<40 {
      // One to three saves before the watcher looks: it follows them one after another.
      for _ in 0..<Int.random(in: 1...3, using: &random) {
        for _ in 0..<Int.random(in: 1...5, using: &random) {
          try VersionTakeInTests.change(writer, random: &random, next: &next)
        }
        try writer.save()
      }
      try watcher.mergeChangesFromOtherWriters()
      // The watcher saves changes of its own now and then, which the writer takes in.
      if Int.random(in: 0..<4, using: &random) == 0 {
        try VersionTakeInTests.change(watcher, random: &random, next: &next)
        try watcher.save()
        try writer.mergeChangesFromOtherWriters()
      }
      let fresh = try Document.open(url, model: model, formats: [format])
      let context = "\(format.typeName) seed \(seed), round \(round)"
      #expect(
        try VersionTakeInTests.state(watcher) == VersionTakeInTests.state(fresh), "\(context)")
      #expect(Self.metadata(watcher) == Self.metadata(fresh), "\(context)")
      #expect(watcher.context.brokenInvariants() == [], "\(context)")
    }
    // The fast road was the one taken, every time, by both.
    #expect(watcher.coordinator.takeInsFromJournal == 40)
    #expect(watcher.coordinator.takeInsOfWholeStore == 0)
    #expect(writer.coordinator.takeInsOfWholeStore == 0)
  }

  @Test("the Expenses differential of the history take-in holds from the journal too")
  func expenses() throws {
    for format in Self.formats {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      try HistoryTakeInTests.takeIns(
        seed: 5, at: folder.appendingPathComponent("Expenses.store"), format: format,
        expecting: \.takeInsFromJournal
      ) { _, _ in }
    }
  }

  /// A store of Expenses with `people` people, its watcher and its writer.
  static func documents(_ format: any StoreFormat, people: Int, in folder: URL) throws -> (
    url: URL, model: ManagedObjectModel, watcher: Document, writer: Document
  ) {
    let url = folder.appendingPathComponent("Expenses.store")
    let model = try ManagedObjectModel(contentsOf: HistoryTakeInTests.model)
    let setup = try Document(model: model)
    for index in 0..<people {
      try setup.context.insertNewObject(forEntityName: "Person").setValue(
        "p\(index)", forKey: "name")
    }
    try setup.save(to: url, format: format)
    return (
      url, model, try Document.open(url, model: model, formats: [format]),
      try Document.open(url, model: model, formats: [format])
    )
  }

  static func rename(_ document: Document, _ from: String, to name: String) throws {
    let people = try document.context.objects(ofEntity: "Person")
    try people.first { try $0.value(forKey: "name") as? String == from }?.setValue(
      name, forKey: "name")
    try document.save()
  }

  @Test(
    "a write that keeps no journal, or a journal lost or cut short, makes the file be read whole")
  func fallbacks() throws {
    for format in Self.formats {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let (url, model, watcher, writer) = try Self.documents(format, people: 3, in: folder)
      let journal = try ChangeJournal.path(for: url)
      func look(_ expected: [String], road: KeyPath<PersistentStoreCoordinator, Int>, _ count: Int)
        throws
      {
        try watcher.mergeChangesFromOtherWriters()
        let fresh = try Document.open(url, model: model, formats: [format])
        #expect(try HistoryTakeInTests.state(watcher) == HistoryTakeInTests.state(fresh))
        #expect(try HistoryTakeInTests.state(watcher) == expected.sorted())
        #expect(watcher.coordinator[keyPath: road] == count, "\(format.typeName)")
      }
      try Self.rename(writer, "p0", to: "a")
      try look(["Person a []", "Person p1 []", "Person p2 []"], road: \.takeInsFromJournal, 1)
      // New metadata written without a save: no entry leads to that file.
      var metadata = try #require(Self.metadata(writer))
      metadata.userInfo["note"] = .string("set aside")
      try PersistentStoreCoordinator.setMetadata(
        metadata, forPersistentStoreAt: url, formats: [format])
      try look(["Person a []", "Person p1 []", "Person p2 []"], road: \.takeInsOfWholeStore, 1)
      #expect(Self.metadata(watcher)?.userInfo["note"] == .string("set aside"))
      // From that file on, the writer's saves are followed again.
      try Self.rename(writer, "p1", to: "b")
      try look(["Person a []", "Person b []", "Person p2 []"], road: \.takeInsFromJournal, 2)
      #expect(Self.metadata(watcher)?.userInfo["note"] == .string("set aside"))
      // A journal whose last entry is cut short (a writer killed while it wrote it) is started
      // anew by the next save, and followed.
      let handle = try #require(FileHandle(forWritingAtPath: journal))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data([9, 0, 0, 0, 1, 2, 3]))
      try handle.close()
      try Self.rename(writer, "p2", to: "c")
      try look(["Person a []", "Person b []", "Person c []"], road: \.takeInsFromJournal, 3)
      // A journal removed costs a whole read.
      try Self.rename(writer, "a", to: "d")
      try FileManager.default.removeItem(atPath: journal)
      try look(["Person b []", "Person c []", "Person d []"], road: \.takeInsOfWholeStore, 2)
      #expect(watcher.coordinator.takeInsFromJournal == 3)
    }
  }

  @Test(
    "a save that changed more than an eighth of the objects leaves no entry: the file is read whole"
  )
  func bigSave() throws {
    for format in Self.formats {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let (url, model, watcher, writer) = try Self.documents(format, people: 600, in: folder)
      let people = try writer.context.objects(ofEntity: "Person")
      func renameSome(_ count: Int, _ prefix: String) throws {
        for person in people.prefix(count) {
          try person.setValue(
            prefix + (person.value(forKey: "name") as? String ?? ""), forKey: "name")
        }
        try writer.save()
        try watcher.mergeChangesFromOtherWriters()
        let fresh = try Document.open(url, model: model, formats: [format])
        #expect(try HistoryTakeInTests.state(watcher) == HistoryTakeInTests.state(fresh))
      }
      try renameSome(70, "a")
      #expect(watcher.coordinator.takeInsFromJournal == 1)
      try renameSome(80, "b")
      #expect(watcher.coordinator.takeInsOfWholeStore == 1)
      try renameSome(3, "c")
      #expect(watcher.coordinator.takeInsFromJournal == 2)
    }
  }

  @Test(
    "a save over a file taken as it is, unread, leaves no entry: its objects are not what that file holds"
  )
  func acceptedFile() throws {
    for format in Self.formats {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let (url, model, watcher, writer) = try Self.documents(format, people: 2, in: folder)
      // The watcher changes p1 and saves; the writer keeps its own version of the file.
      try Self.rename(watcher, "p1", to: "watcher's")
      writer.coordinator.persistentStores.first?.acceptFileOnDisk()
      try Self.rename(writer, "p0", to: "writer's")
      // The writer's save wrote over the watcher's: a journal entry from the watcher's file
      // would claim only p0 changed.
      try watcher.mergeChangesFromOtherWriters()
      let fresh = try Document.open(url, model: model, formats: [format])
      #expect(try HistoryTakeInTests.state(fresh) == ["Person p1 []", "Person writer's []"])
      #expect(try HistoryTakeInTests.state(watcher) == HistoryTakeInTests.state(fresh))
      #expect(watcher.coordinator.takeInsFromJournal == 0)
    }
  }
  @Test(
    "a journal path that is a FIFO or a folder: saves stand, nothing waits, others read the file whole"
  )
  func oddJournalPaths() throws {
    for format in Self.formats {
      for kind in ["fifo", "folder"] {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (url, model, watcher, writer) = try Self.documents(format, people: 2, in: folder)
        let journal = try ChangeJournal.path(for: url)
        try? FileManager.default.removeItem(atPath: journal)
        if kind == "fifo" {
          #expect(mkfifo(journal, 0o644) == 0)
        } else {
          try FileManager.default.createDirectory(
            atPath: journal, withIntermediateDirectories: false)
        }
        try Self.rename(writer, "p0", to: "a")
        try watcher.mergeChangesFromOtherWriters()
        let fresh = try Document.open(url, model: model, formats: [format])
        #expect(try HistoryTakeInTests.state(fresh) == ["Person a []", "Person p1 []"])
        #expect(try HistoryTakeInTests.state(watcher) == HistoryTakeInTests.state(fresh))
        #expect(watcher.coordinator.takeInsOfWholeStore == 1, "\(format.typeName) \(kind)")
      }
    }
  }
  @Test("an entry naming a target of another entity is not placed: the file is read whole")
  func targetOfAnotherEntity() throws {
    for format in Self.formats {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let (url, model, watcher, writer) = try Self.documents(format, people: 2, in: folder)
      let known = try #require(FileStamp(of: url))
      try Self.rename(writer, "p0", to: "a")
      let current = try #require(FileStamp(of: url))
      let metadata = try #require(Self.metadata(writer))
      let ids = try writer.context.objects(ofEntity: "Person").compactMap {
        Int64($0.objectID.uriRepresentation.lastPathComponent.dropFirst())
      }
      // A person whose spendings are the other person: each record fits the model alone.
      let record = StoreRecord(
        entityName: "Person", id: ids[0], attributes: ["name": .string("a")],
        relationships: ["spendings": [ids[1]]])
      var changes = StoreChanges(nextObjectID: 100) { _ in nil }
      changes.updated = [(record, record)]
      ChangeJournal.record(
        changes, metadata: metadata, objectCount: 10, from: known, to: current, for: url)
      try watcher.mergeChangesFromOtherWriters()
      let fresh = try Document.open(url, model: model, formats: [format])
      #expect(try HistoryTakeInTests.state(watcher) == HistoryTakeInTests.state(fresh))
      #expect(watcher.coordinator.takeInsOfWholeStore == 1, "\(format.typeName)")
      #expect(watcher.coordinator.takeInsFromJournal == 0, "\(format.typeName)")
      #expect(watcher.context.brokenInvariants() == [])
    }
  }
}
