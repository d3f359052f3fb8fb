import FolioData
import FolioSQLiteStore
import FolioTestSupport
import Foundation
import Testing

enum NotesV1: VersionedSchema {
  static let versionIdentifier = Schema.Version(1, 0, 0)
  static var models: [any PersistentModel.Type] { [Note.self] }

  @Model final class Note {
    var title: String
    var body: String
    init(title: String, body: String) {
      self.title = title
      self.body = body
    }
  }
}

enum NotesV2: VersionedSchema {
  static let versionIdentifier = Schema.Version(2, 0, 0)
  static var models: [any PersistentModel.Type] { [Note.self] }

  @Model final class Note {
    @Attribute(originalName: "title") var heading: String
    var body: String
    var pinned: Bool?
    init(heading: String, body: String) {
      self.heading = heading
      self.body = body
    }
  }
}

enum NotesV3: VersionedSchema {
  static let versionIdentifier = Schema.Version(3, 0, 0)
  static var models: [any PersistentModel.Type] { [Note.self] }

  @Model final class Note {
    var heading: String
    var body: String
    var pinned: Bool?
    var words: Int = 0
    init(heading: String, body: String) {
      self.heading = heading
      self.body = body
    }
  }
}

enum NotesPlan: SchemaMigrationPlan {
  static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
  static var stages: [MigrationStage] {
    [
      .lightweight(fromVersion: NotesV1.self, toVersion: NotesV2.self),
      .custom(
        fromVersion: NotesV2.self, toVersion: NotesV3.self,
        willMigrate: { context in
          // Before: in the old version, notes without a body are removed.
          try context.delete(
            model: NotesV2.Note.self, where: #Predicate { $0.body == "" })
        },
        didMigrate: { context in
          // After: in the new version, each note's words are counted.
          for note in try context.fetch(FetchDescriptor<NotesV3.Note>()) {
            note.words = note.body.split(separator: " ").count
          }
        }),
    ]
  }
}

@Suite("VersionedSchema and SchemaMigrationPlan")
struct VersionedSchemaTests {
  @Test("a store of the first version opens in the last, through a lightweight and a custom stage")
  func migratesThroughStages() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("notes.store")
    do {
      let container = try ModelContainer(
        for: Schema(versionedSchema: NotesV1.self), configurations: [ModelConfiguration(url: url)])
      let context = ModelContext(container)
      context.insert(NotesV1.Note(title: "Groceries", body: "eggs milk bread"))
      context.insert(NotesV1.Note(title: "Empty", body: ""))
      context.insert(NotesV1.Note(title: "Idea", body: "a store on a server"))
      try context.save()
    }
    let container = try ModelContainer(
      for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self,
      configurations: ModelConfiguration(url: url))
    let notes = try ModelContext(container).fetch(
      FetchDescriptor<NotesV3.Note>(sortBy: [SortDescriptor(\.heading)]))
    // The renamed attribute kept its values; the empty note went before the last stage, and the
    // words were counted after it.
    #expect(notes.map(\.heading) == ["Groceries", "Idea"])
    #expect(notes.map(\.words) == [3, 5])
    #expect(notes.allSatisfy { $0.pinned == nil })
    // Opened again, nothing is left to migrate.
    let again = try ModelContainer(
      for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self,
      configurations: ModelConfiguration(url: url))
    #expect(try ModelContext(again).fetchCount(FetchDescriptor<NotesV3.Note>()) == 2)
  }

  @Test("a new store is made with the last version, with nothing to migrate")
  func newStore() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("notes.store")
    let container = try ModelContainer(
      for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self,
      configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    context.insert(NotesV3.Note(heading: "First", body: "one two"))
    try context.save()
    #expect(FileManager.default.fileExists(atPath: url.path))
    // The store names the version that wrote it, as SwiftData's do.
    let metadata = try SQLiteStore().readMetadata(from: url)
    #expect(metadata.modelVersionIdentifiers == ["\(NotesV3.versionIdentifier)"])
    // A schema with no version is 1.0.0, as in SwiftData.
    let plain = folder.appendingPathComponent("plain.store")
    let other = ModelContext(
      try ModelContainer(
        for: NotesV1.Note.self, configurations: ModelConfiguration(url: plain)))
    other.insert(NotesV1.Note(title: "t", body: "b"))
    try other.save()
    #expect(try SQLiteStore().readMetadata(from: plain).modelVersionIdentifiers == ["1.0.0"])
  }

  @Test("a store no version of the plan wrote is refused, naming the versions")
  func unknownVersion() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("trips.store")
    do {
      let container = try ModelContainer(
        for: Trip.self, configurations: ModelConfiguration(url: url))
      let context = ModelContext(container)
      context.insert(Trip(name: "Alps", code: "A1", start: .now))
      try context.save()
    }
    #expect {
      _ = try ModelContainer(
        for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self,
        configurations: ModelConfiguration(url: url))
    } throws: { error in
      "\(error)".contains("match none of 1.0.0, 2.0.0, 3.0.0")
    }
  }
}
