import Folio
import FolioTestSupport
import Foundation
import Testing

@Suite("SQLite store: the corpus's Core Data stores as documents")
struct SQLiteCorpusDocumentTests {
  let formats: [any StoreFormat] = [
    SQLiteStore(missingExternalData: .readAsNil), XMLStore(), BinaryStore(),
  ]

  /// Edits the first object with an optional string attribute whose save validates, setting
  /// that attribute to `text`, and saves `document`; whether one was found.
  static func editAndSave(_ document: Document, model: ManagedObjectModel, to text: String)
    throws -> Bool
  {
    let context = document.context
    for entity in model.entities where !entity.isAbstract {
      guard
        let attribute = entity.allAttributes.first(where: {
          $0.attributeType == .string && $0.isOptional && !$0.isTransient && !$0.isDerived
        })
      else { continue }
      for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name))
      where object.entityName == entity.name {
        try object.setValue(text, forKey: attribute.name)
        do {
          try document.save()
          return true
        } catch {
          context.rollback()
        }
      }
    }
    return false
  }

  @Test(
    "every corpus store opens as a document, converts to XML, binary and SQLite and back without loss",
    arguments: SQLiteCorpus.available)
  func converts(_ store: SQLiteCorpus.Store) throws {
    let url = try SQLiteCorpus.copy(of: store)
    let folder = url.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try SQLiteCorpus.model(of: store)
    let document = try Document.open(url, model: model, formats: formats)
    let original = canonicalGraph(document.context)
    #expect(original.count == store.objects)
    for (name, format) in [
      ("copy.xml", XMLStore() as any StoreFormat), ("copy.folio", BinaryStore()),
      ("copy.sqlite", SQLiteStore()),
    ] {
      let target = folder.appendingPathComponent(name)
      try document.save(to: target, format: format)
      let reopened = try Document.open(target, model: model, formats: formats)
      #expect(canonicalGraph(reopened.context) == original, "\(name)")
    }
    let written = folder.appendingPathComponent("copy.sqlite")
    let check = try run(
      URL(fileURLWithPath: "/usr/bin/sqlite3"), [written.path, "PRAGMA integrity_check"])
    #expect(check.standardOutput == "ok\n")
  }

  @Test(
    "another document's edit of each corpus store is taken in by row versions as a fresh open reads it",
    arguments: SQLiteCorpus.available)
  func takesInByVersions(_ store: SQLiteCorpus.Store) throws {
    let url = try SQLiteCorpus.copy(of: store)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let model = try SQLiteCorpus.model(of: store)
    let watcher = try Document.open(url, model: model, formats: formats)
    let writer = try Document.open(url, model: model, formats: formats)
    let edited = try Self.editAndSave(writer, model: model, to: "edited by another document")
    #expect(edited, "no object of \(store.file) could be edited and saved")
    try watcher.mergeChangesFromOtherWriters()
    let fresh = try Document.open(url, model: model, formats: formats)
    #expect(canonicalGraph(watcher.context) == canonicalGraph(fresh.context))
    #expect(watcher.coordinator.takeInsByVersions == (edited ? 1 : 0))
    #expect(watcher.coordinator.takeInsOfWholeStore == 0)
  }

  @Test(
    "another document's edit of each corpus store, as XML and binary, is taken in from the change journal as a fresh open reads it",
    arguments: SQLiteCorpus.available)
  func takesInFromJournal(_ store: SQLiteCorpus.Store) throws {
    let url = try SQLiteCorpus.copy(of: store)
    let folder = url.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try SQLiteCorpus.model(of: store)
    let source = try Document.open(url, model: model, formats: formats)
    for (name, format) in [
      ("copy.xml", XMLStore() as any StoreFormat), ("copy.folio", BinaryStore()),
    ] {
      let target = folder.appendingPathComponent(name)
      try source.save(to: target, format: format)
      let watcher = try Document.open(target, model: model, formats: formats)
      let writer = try Document.open(target, model: model, formats: formats)
      let edited = try Self.editAndSave(writer, model: model, to: "edited by another document")
      #expect(edited, "no object of \(store.file) could be edited and saved as \(name)")
      try watcher.mergeChangesFromOtherWriters()
      let fresh = try Document.open(target, model: model, formats: formats)
      #expect(canonicalGraph(watcher.context) == canonicalGraph(fresh.context), "\(name)")
      #expect(watcher.coordinator.takeInsFromJournal == (edited ? 1 : 0), "\(name)")
      #expect(watcher.coordinator.takeInsOfWholeStore == 0, "\(name)")
    }
  }

  @Test(
    "a one-object edit of each corpus store is saved in place, and the file stays sound",
    arguments: SQLiteCorpus.available)
  func editsInPlace(_ store: SQLiteCorpus.Store) throws {
    let url = try SQLiteCorpus.copy(of: store)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let model = try SQLiteCorpus.model(of: store)
    let document = try Document.open(url, model: model, formats: formats)
    let edited = try Self.editAndSave(document, model: model, to: "edited by Folio")
    #expect(edited, "no object of \(store.file) could be edited and saved")
    guard edited else { return }
    let reopened = try Document.open(url, model: model, formats: formats)
    #expect(canonicalGraph(reopened.context) == canonicalGraph(document.context))
    let check = try run(
      URL(fileURLWithPath: "/usr/bin/sqlite3"), [url.path, "PRAGMA integrity_check"])
    #expect(check.standardOutput == "ok\n")
  }

  @Test(
    "every corpus store opens without its model: the one cached in it, or one inferred from its schema",
    arguments: SQLiteCorpus.available)
  func opensWithoutModel(_ store: SQLiteCorpus.Store) throws {
    let url = try SQLiteCorpus.copy(of: store)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let cached = try SQLiteStore().readModel(from: url)
    // Every store written since 2011 caches its model (Z_MODELCACHE); the three older ones
    // in the corpus do not.
    let old = ["thepost", "hwaxxer", "designatednerd"].contains { store.folder.hasPrefix($0) }
    #expect((cached == nil) == old, "\(store.folder)/\(store.file)")
    let model = try cached ?? SQLiteStore.inferModel(from: url)
    let document = try Document.open(url, model: model, formats: formats)
    #expect(document.context.registeredObjects.count == store.objects)
    // The cached model is the one that wrote the store: the same entities, and the same
    // graph as with the model from Xcode's files.
    if cached != nil {
      let withModel = try Document.open(
        url, model: try SQLiteCorpus.model(of: store), formats: formats)
      #expect(canonicalGraph(document.context) == canonicalGraph(withModel.context))
    }
  }
}
