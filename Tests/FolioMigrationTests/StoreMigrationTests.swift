import FolioBinaryStore
import FolioMigration
import FolioModel
import FolioSQLiteStore
import FolioStores
import FolioTestSupport
import FolioXMLStore
import Foundation
import Testing

/// Writes a model bundle `Library.xcdatamodeld` of `versions` into `folder`, the last current.
func writeBundle(_ versions: [(String, ManagedObjectModel)], in folder: URL) throws -> URL {
  let bundle = folder.appendingPathComponent("Library.xcdatamodeld")
  for (name, model) in versions {
    let version = bundle.appendingPathComponent("\(name).xcdatamodel")
    try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
    try model.xcodeModelXML().write(
      to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
  }
  let current = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(versions.last?.0 ?? "").xcdatamodel</string></dict></plist>
    """
  try current.write(
    to: bundle.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
  return bundle
}

/// The library bundle's versions; "Library 10" sorts after "Library 2" by its number.
func libraryBundle(in folder: URL) throws -> ModelBundle {
  let url = try writeBundle(
    [
      ("Library 1", try libraryVersion1()), ("Library 2", try libraryVersion2()),
      ("Library 10", try libraryVersion3()),
    ], in: folder)
  return try ModelBundle(contentsOf: url)
}

let storeFormats: [(String, any StoreFormat)] = [
  ("xml", XMLStore()), ("folio", BinaryStore()), ("sqlite", SQLiteStore()),
]

@Suite("Migrating store files")
struct StoreMigrationTests {
  /// A folder with a version 1 store of `format` and the library bundle.
  func setUp(_ format: any StoreFormat, extension name: String) throws -> (
    folder: URL, store: URL, bundle: ModelBundle
  ) {
    let folder = try makeTemporaryFolder()
    let bundle = try libraryBundle(in: folder)
    let store = folder.appendingPathComponent("library.\(name)")
    var metadata = StoreMetadata(storeType: format.typeName)
    metadata.userInfo["owner"] = .string("Ada")
    try format.write(
      StoreContents(metadata: metadata, records: libraryRecords()),
      model: bundle.versions[0].model, to: store)
    return (folder, store, bundle)
  }

  @Test("versions sort by the numbers in their names")
  func versionOrder() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let bundle = try libraryBundle(in: folder)
    #expect(bundle.versions.map(\.name) == ["Library 1", "Library 2", "Library 10"])
    #expect(bundle.versionIndex(named: "Library 2.xcdatamodel") == 1)
  }

  @Test(
    "a store two versions behind migrates through each, object by object", arguments: [0, 1, 2])
  func stagedMigration(format index: Int) throws {
    let (name, format) = storeFormats[index]
    let (folder, store, bundle) = try setUp(format, extension: name)
    defer { try? FileManager.default.removeItem(at: folder) }
    let migration = try StoreMigration(storeAt: store, format: format, bundle: bundle)
    #expect(migration.plan.steps.map(\.destination.name) == ["Library 2", "Library 10"])
    #expect(migration.plan.steps.allSatisfy { $0.isInferred })
    let before = try format.read(from: store, model: bundle.versions[0].model).records
    let report = try migration.run()
    // The original stays beside it, named after the version it was in (a SQLite store as a
    // copy of its database, the others as the very file).
    #expect(report.backup?.lastPathComponent == "library.\(name).backup-Library 1")
    let kept = try format.read(
      from: try #require(report.backup), model: bundle.versions[0].model
    ).records
    #expect(Set(kept) == Set(before))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
        "Library.xcdatamodeld", "library.\(name)", "library.\(name).backup-Library 1",
      ])
    // The file now opens with the newest version, and its metadata names it.
    let newest = bundle.versions[2].model
    let metadata = try format.readMetadata(from: store)
    #expect(
      bundle.version(matchingVersionHashes: metadata.modelVersionHashes)?.name == "Library 10")
    #expect(metadata.userInfo["owner"] == .string("Ada"))
    let records = try format.read(from: store, model: newest).records
    let books = records.filter { $0.entityName == "Book" }.sorted {
      ($0.attribute("title")?.modelText ?? "") < ($1.attribute("title")?.modelText ?? "")
    }
    #expect(books.map { $0.attribute("title") } == [.string("Engines"), .string("Notes")])
    #expect(books.map { $0.attribute("hexColor") } == [.string("#ff0000"), nil])
    #expect(books.map { $0.attribute("pages") } == [.integer(300), .integer(120)])
    #expect(books.map { $0.attribute("price") } == [.double(12.5), nil])
    #expect(books.map { $0.attribute("rating") } == [.integer(5), .integer(3)])
    let writers = records.filter { $0.entityName == "Writer" }
    #expect(writers.count == 1)
    #expect(writers.first?.attribute("name") == .string("Ada"))
    #expect(Set(writers.first?.relationships["books"] ?? []) == Set(books.map(\.id)))
    for book in books { #expect(book.relationships["authors"] == writers.map(\.id)) }
    let tags = records.filter { $0.entityName == "Tag" }
    #expect(tags.count == 1)
    #expect(Set(tags.first?.relationships["books"] ?? []) == Set(books.map(\.id)))
    #expect(records.filter { $0.entityName == "Note" }.isEmpty)
    #expect(records.count == 4)
  }

  @Test("a dry run says what each step does and loses, and leaves the file as it was")
  func dryRun() throws {
    let (folder, store, bundle) = try setUp(XMLStore(), extension: "xml")
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = try Data(contentsOf: store)
    let migration = try StoreMigration(storeAt: store, format: XMLStore(), bundle: bundle)
    let report = try migration.dryRun()
    #expect(try Data(contentsOf: store) == before)
    let text = report.description
    #expect(text.hasPrefix("Migrating from Library 1 to Library 10 in 2 steps."))
    #expect(text.contains("Step 1: Library 1 → Library 2, inferred (lightweight)"))
    #expect(text.contains("Book.hexColor: renamed from color (inferred)"))
    #expect(text.contains("NoteTo: Note → nothing (remove), 1 object"))
    #expect(text.contains("lost: Note.text of 1 object"))
    #expect(text.contains("Step 2: Library 2 → Library 10"))
    #expect(report.steps[1].objectsAfter == ["Book": 2, "Writer": 1, "Tag": 1])
  }

  @Test("a failure in a later step leaves the original byte for byte, and no other file")
  func failureMidway() throws {
    let (folder, store, bundle) = try setUp(BinaryStore(), extension: "folio")
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = try Data(contentsOf: store)
    // The second step's mapping puts a title where a number goes.
    var mapping = try MappingModel.inferred(
      from: bundle.versions[1].model, to: bundle.versions[2].model)
    let book = try #require(mapping.entityMappings.firstIndex { $0.name == "BookToBook" })
    let pages = try #require(
      mapping.entityMappings[book].attributeMappings.firstIndex { $0.name == "pages" })
    mapping.entityMappings[book].attributeMappings[pages].valueExpression = .keyPath(
      .variable("source"), "title")
    let migration = try StoreMigration(
      storeAt: store, format: BinaryStore(), bundle: bundle,
      mappings: [
        .init(sourceVersion: "Library 2", destinationVersion: "Library 10", mapping: mapping)
      ])
    #expect(!migration.plan.steps[1].isInferred)
    do {
      try migration.run()
      Issue.record("the migration succeeded")
    } catch {
      #expect(error.code == .invalidValue)
      #expect(error.message.hasPrefix("Library 2 → Library 10: "))
    }
    #expect(try Data(contentsOf: store) == before)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
        "Library.xcdatamodeld", "library.folio",
      ])
  }

  // A SQLite store is written through, in one SQLite transaction, not replaced by a file: its
  // failures are SQLite's, and SQLiteCrashSafetyTests kills the write at each of its steps.
  @Test(
    "a write that fails at any step leaves the original byte for byte, and no other file",
    arguments: [0, 1])
  func failedWrites(format index: Int) throws {
    let (name, format) = storeFormats[index]
    let plans: [(FaultPlan, String)] = [
      (FaultPlan(failingWriteCall: 1, writeError: ENOSPC), "No space left on device"),
      (FaultPlan(fsyncError: EIO), "cannot flush the new file to disk"),
      (FaultPlan(renameError: EACCES), "cannot replace the file (Permission denied)"),
    ]
    for (plan, words) in plans {
      let (folder, store, bundle) = try setUp(format, extension: name)
      defer { try? FileManager.default.removeItem(at: folder) }
      let before = try Data(contentsOf: store)
      let migration = try StoreMigration(storeAt: store, format: format, bundle: bundle)
      var failure: MigrationError?
      AtomicFile.$faults.withValue(plan) {
        do { try migration.run() } catch { failure = error as? MigrationError }
      }
      let error = try #require(failure, "\(words)")
      #expect(error.code == .storeFailed, "\(words)")
      #expect((error.underlying as? StoreError)?.code == .writeFailed, "\(words)")
      #expect(error.message.contains(words), "\(error)")
      #expect(try Data(contentsOf: store) == before, "\(words)")
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
          "Library.xcdatamodeld", "library.\(name)",
        ], "\(words)")
      // Without the fault, the migration goes through.
      try migration.run()
      #expect(try Data(contentsOf: store) != before)
    }
  }

  @Test("a cancelled migration writes nothing")
  func cancellation() throws {
    let (folder, store, bundle) = try setUp(SQLiteStore(), extension: "sqlite")
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = try Data(contentsOf: store)
    let migration = try StoreMigration(storeAt: store, format: SQLiteStore(), bundle: bundle)
    var reports = 0
    do {
      try migration.run(
        progress: { _ in reports += 1 },
        isCancelled: { reports >= 2 })
      Issue.record("the migration was not cancelled")
    } catch {
      #expect(error.code == .cancelled)
    }
    #expect(reports >= 2)
    #expect(try Data(contentsOf: store) == before)
    #expect(!FileManager.default.fileExists(atPath: store.path + ".backup"))
  }

  @Test("the original is kept as a backup named after its version, beside a file of that name")
  func keptBackup() throws {
    let (folder, store, bundle) = try setUp(XMLStore(), extension: "xml")
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = try Data(contentsOf: store)
    // A file already named like the backup is left alone.
    let taken = URL(fileURLWithPath: store.path + ".backup-Library 1")
    try Data("mine".utf8).write(to: taken)
    let migration = try StoreMigration(
      storeAt: store, format: XMLStore(), bundle: bundle, to: "Library 2")
    let report = try migration.run()
    #expect(report.backup?.lastPathComponent == "library.xml.backup-Library 1-2")
    #expect(try Data(contentsOf: try #require(report.backup)) == before)
    #expect(try Data(contentsOf: taken) == Data("mine".utf8))
    #expect(try Data(contentsOf: store) != before)
  }

  @Test("a migration told to keep no backup leaves only the migrated store")
  func noBackup() throws {
    let (folder, store, bundle) = try setUp(XMLStore(), extension: "xml")
    defer { try? FileManager.default.removeItem(at: folder) }
    var migration = try StoreMigration(storeAt: store, format: XMLStore(), bundle: bundle)
    migration.keepsBackup = false
    let report = try migration.run()
    #expect(report.backup == nil)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
        "Library.xcdatamodeld", "library.xml",
      ])
  }

  @Test("a store no version wrote, or a version the bundle lacks, is refused by name")
  func unknownVersions() throws {
    let (folder, store, bundle) = try setUp(XMLStore(), extension: "xml")
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect {
      _ = try StoreMigration(storeAt: store, format: XMLStore(), bundle: bundle, to: "Library 7")
    } throws: { error in
      (error as? MigrationError)?.code == .unknownVersion
        && "\(error)".contains("Library 1, Library 2, Library 10")
    }
    let other = try ModelBundle(
      contentsOf: try writeBundle(
        [("Other", try ManagedObjectModel { EntityDescription("X") {} })],
        in: folder.appendingPathComponent("other")))
    #expect {
      _ = try StoreMigration(storeAt: store, format: XMLStore(), bundle: other)
    } throws: { error in
      (error as? MigrationError)?.code == .unknownVersion
    }
  }

  @Test("a step back goes the other way through the bundle, and names the change it cannot make")
  func stepBack() throws {
    let (folder, store, bundle) = try setUp(XMLStore(), extension: "xml")
    defer { try? FileManager.default.removeItem(at: folder) }
    try StoreMigration(storeAt: store, format: XMLStore(), bundle: bundle).run()
    #expect {
      _ = try StoreMigration(storeAt: store, format: XMLStore(), bundle: bundle, to: "Library 1")
    } throws: { error in
      guard let error = error as? MigrationError else { return false }
      // Library 10 → Library 2 infers; Library 2 → Library 1 narrows the page count.
      return error.code == .needsMapping
        && error.message.hasPrefix("the step from Library 2 to Library 1 needs a mapping model")
        && error.message.contains("Book.pages: type changed from Integer 64 to Integer 16")
    }
  }

  @Test("a store already of the destination version is left as it is")
  func nothingToDo() throws {
    let (folder, store, bundle) = try setUp(XMLStore(), extension: "xml")
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = try Data(contentsOf: store)
    let migration = try StoreMigration(
      storeAt: store, format: XMLStore(), bundle: bundle, to: "Library 1")
    let report = try migration.run()
    #expect(report.steps.isEmpty)
    #expect(report.description.contains("already of version Library 1"))
    #expect(try Data(contentsOf: store) == before)
  }
}
