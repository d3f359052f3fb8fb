import Folio
import FolioTestSupport
import Foundation
import Testing

@Suite("SQLite store: the corpus's Core Data stores as documents")
struct SQLiteCorpusDocumentTests {
  let formats: [any StoreFormat] = [
    SQLiteStore(missingExternalData: .readAsNil), XMLStore(), BinaryStore(),
  ]

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
    "a one-object edit of each corpus store is saved in place, and the file stays sound",
    arguments: SQLiteCorpus.available)
  func editsInPlace(_ store: SQLiteCorpus.Store) throws {
    let url = try SQLiteCorpus.copy(of: store)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let model = try SQLiteCorpus.model(of: store)
    let document = try Document.open(url, model: model, formats: formats)
    let context = document.context
    // The first object with an optional string attribute whose save validates.
    var edited = false
    search: for entity in model.entities where !entity.isAbstract {
      guard
        let attribute = entity.allAttributes.first(where: {
          $0.attributeType == .string && $0.isOptional && !$0.isTransient && !$0.isDerived
        })
      else { continue }
      for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name))
      where object.entityName == entity.name {
        try object.setValue("edited by Folio", forKey: attribute.name)
        do {
          try document.save()
          edited = true
          break search
        } catch {
          context.rollback()
        }
      }
    }
    #expect(edited, "no object of \(store.file) could be edited and saved")
    guard edited else { return }
    let reopened = try Document.open(url, model: model, formats: formats)
    #expect(canonicalGraph(reopened.context) == canonicalGraph(context))
    let check = try run(
      URL(fileURLWithPath: "/usr/bin/sqlite3"), [url.path, "PRAGMA integrity_check"])
    #expect(check.standardOutput == "ok\n")
  }
}
