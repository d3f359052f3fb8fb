import Folio
import FolioTestSupport
import Foundation
import Testing

/// Every attribute type and relationship kind a SQLite store holds: an abstract root with two
/// subentities (one table, `Z_ENT` per row), one-to-one, one-to-many (ordered and not),
/// many-to-many (reflexive and ordered on one side, across a hierarchy), and a to-one without
/// an inverse into a hierarchy (with its entity column).
func shelfModel() throws -> ManagedObjectModel {
  var cover = AttributeDescription("cover", .binaryData)
  cover.allowsExternalBinaryDataStorage = true
  return try ManagedObjectModel {
    EntityDescription("Item", isAbstract: true) {
      AttributeDescription("title", .string)
      AttributeDescription("created", .date)
      RelationshipDescription("tags", to: "Tag", inverse: "items", toMany: true)
    }
    EntityDescription("Book", parent: "Item") {
      AttributeDescription("pages", .integer16, isOptional: false, defaultValue: .integer(0))
      AttributeDescription("isbn", .integer32)
      AttributeDescription("sales", .integer64)
      AttributeDescription("price", .decimal)
      AttributeDescription("rating", .float)
      AttributeDescription("weight", .double)
      AttributeDescription("inPrint", .boolean)
      AttributeDescription("code", .uuid)
      AttributeDescription("link", .uri)
      cover
      AttributeDescription("blob", .binaryData)
      AttributeDescription("extra", .transformable)
      RelationshipDescription("author", to: "Person", inverse: "books")
      RelationshipDescription(
        "chapters", to: "Chapter", inverse: "book", toMany: true, ordered: true,
        deleteRule: .cascade)
      RelationshipDescription(
        "sequels", to: "Book", inverse: "prequels", toMany: true, ordered: true)
      RelationshipDescription("prequels", to: "Book", inverse: "sequels", toMany: true)
    }
    EntityDescription("Magazine", parent: "Item") {
      AttributeDescription("issue", .integer32)
    }
    EntityDescription("Person") {
      AttributeDescription("name", .string)
      RelationshipDescription("books", to: "Book", inverse: "author", toMany: true)
      RelationshipDescription("passport", to: "Passport", inverse: "holder")
      RelationshipDescription("favorite", to: "Item")
    }
    EntityDescription("Passport") {
      AttributeDescription("number", .string)
      RelationshipDescription("holder", to: "Person", inverse: "passport")
    }
    EntityDescription("Chapter") {
      AttributeDescription("title", .string)
      RelationshipDescription("book", to: "Book", inverse: "chapters")
    }
    EntityDescription("Tag") {
      AttributeDescription("name", .string)
      RelationshipDescription("items", to: "Item", inverse: "tags", toMany: true)
    }
  }
}

/// The graph of `context` as sorted lines that name no object ID: each object by its entity
/// and attribute values, each relationship by its targets' descriptions (in order for an
/// ordered one), so graphs read from different formats compare equal when nothing was lost.
func canonicalGraph(_ context: ManagedObjectContext) -> [String] {
  let records = context.persistentRecords()
  var label: [Int64: String] = [:]
  for record in records {
    let values = record.attributes.keys.sorted().map { key in
      "\(key)=\(record.attributes[key].map { "\($0)" } ?? "nil")"
    }
    label[record.id] = record.entityName + "{" + values.joined(separator: ", ") + "}"
  }
  let model = context.persistentStoreCoordinator?.managedObjectModel
  return records.map { record in
    var line = label[record.id] ?? ""
    for name in record.relationships.keys.sorted() {
      var targets = (record.relationships[name] ?? []).map { label[$0] ?? "?" }
      let ordered =
        model?.entity(named: record.entityName)?.relationship(named: name)?.isOrdered ?? false
      if !ordered { targets.sort() }
      line += " \(name)=[" + targets.joined(separator: "; ") + "]"
    }
    return line
  }.sorted()
}

@Suite("SQLite store: documents")
struct SQLiteDocumentTests {
  /// A document holding one of everything, saved as SQLite at `url`.
  func makeShelf(at url: URL, loop: ManualEventLoop) throws -> Document {
    let document = try Document(model: try shelfModel(), eventLoop: loop)
    let context = document.context
    func insert(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
      let object = try context.insertNewObject(forEntityName: entity)
      for (key, value) in values { try object.setValue(value, forKey: key) }
      return object
    }
    let ada = try insert("Person", ["name": "Ada"])
    let bob = try insert("Person", ["name": "Bob"])
    _ = try insert("Passport", ["number": "X1", "holder": ada])
    let dune = try insert(
      "Book",
      [
        "title": "Dune", "created": Date(timeIntervalSinceReferenceDate: 123_456.25),
        "pages": Int16(412), "isbn": Int32(-7), "sales": Int64.max,
        "price": try #require(Decimal(string: "12.5")),
        "rating": Float(4.25), "weight": 0.1, "inPrint": true,
        "code": try #require(UUID(uuidString: "D9B36DBE-1137-4623-9B8A-42FD754F69EA")),
        "link": try #require(URL(string: "https://example.com/dune?x=1")),
        "cover": Data([0xFF, 0xD8, 0, 1]),
        "blob": Data(), "extra": Data("archived".utf8), "author": ada,
      ])
    let messiah = try insert("Book", ["title": "Messiah", "pages": Int16(256), "author": ada])
    let children = try insert("Book", ["title": "Children", "inPrint": false])
    let weekly = try insert("Magazine", ["title": "Weekly", "issue": Int32(7)])
    for title in ["One", "Two", "Three"] {
      _ = try insert("Chapter", ["title": title, "book": dune])
    }
    try dune.setValue([messiah, children], forKey: "sequels")
    try bob.setValue(weekly, forKey: "favorite")
    try ada.setValue(dune, forKey: "favorite")
    let classic = try insert("Tag", ["name": "classic"])
    let scifi = try insert("Tag", ["name": "sci-fi"])
    try classic.setValue(Set([dune, weekly]), forKey: "items")
    try scifi.setValue(Set([dune, messiah, children]), forKey: "items")
    loop.endTurn()
    try document.save(to: url, format: SQLiteStore())
    return document
  }

  @Test("every attribute type and relationship kind survives a save to SQLite and a reopen")
  func roundTrip() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = fixture.url("shelf.sqlite")
    let document = try makeShelf(at: url, loop: fixture.loop)
    let reopened = try Document.open(url, model: document.model, formats: [SQLiteStore()])
    let before = canonicalGraph(document.context)
    #expect(before.count == 12)
    #expect(canonicalGraph(reopened.context) == before)
    let check = try run(
      URL(fileURLWithPath: "/usr/bin/sqlite3"), [url.path, "PRAGMA integrity_check"])
    #expect(check.standardOutput == "ok\n")
  }

  @Test("a store read on a second thread, in small batches, opens into the same graph")
  func readAhead() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = fixture.url("shelf.sqlite")
    let document = try makeShelf(at: url, loop: fixture.loop)
    var ahead = SQLiteStore()
    ahead.readAheadThreshold = 1
    ahead.readAheadBatch = 3
    let reopened = try Document.open(url, model: document.model, formats: [ahead])
    #expect(canonicalGraph(reopened.context) == canonicalGraph(document.context))
    #expect(reopened.context.brokenInvariants().isEmpty)
  }

  @Test("an object's URI is its Z_PK, before and after the store is reopened")
  func uris() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = fixture.url("shelf.sqlite")
    let document = try makeShelf(at: url, loop: fixture.loop)
    let reopened = try Document.open(url, model: document.model, formats: [SQLiteStore()])
    let request = FetchRequest<ManagedObject>(entityName: "Chapter")
    for chapter in try reopened.context.fetch(request) {
      let uri = chapter.objectID.uriRepresentation
      #expect(uri.lastPathComponent.hasPrefix("p"))
      let number = try #require(Int64(uri.lastPathComponent.dropFirst()))
      #expect(number < 100)
      let id = try #require(reopened.context.managedObjectID(forURIRepresentation: uri))
      #expect(reopened.context.object(with: id) === chapter)
    }
  }

  /// `sql` run by the sqlite3 tool on the file at `url`: its output.
  func sqlite(_ url: URL, _ sql: String) throws -> String {
    try run(URL(fileURLWithPath: "/usr/bin/sqlite3"), [url.path, sql]).standardOutput
  }

  func inode(_ url: URL) throws -> Int? {
    (try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? NSNumber)?
      .intValue
  }

  @Test(
    "a reference a deletion leaves behind (no inverse) stays in the file, as Core Data leaves it, and reopens as nothing"
  )
  func referenceLeftByDeletion() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = fixture.url("shelf.sqlite")
    let model = try makeShelf(at: url, loop: fixture.loop).model
    let document = try Document.open(url, model: model, formats: [SQLiteStore()])
    let request = FetchRequest<ManagedObject>(
      entityName: "Magazine", predicate: try QueryPredicate(format: "title == 'Weekly'"))
    let weekly = try #require(try document.context.fetch(request).first)
    let key = try sqlite(url, "SELECT Z_PK FROM ZITEM WHERE ZTITLE = 'Weekly'")
    try document.context.delete(weekly)
    try document.save()
    // Bob's favorite has no inverse: the deletion leaves his row naming the gone one.
    #expect(try sqlite(url, "SELECT ZFAVORITE FROM ZPERSON WHERE ZNAME = 'Bob'") == key)
    #expect(try sqlite(url, "SELECT count(*) FROM ZITEM WHERE ZTITLE = 'Weekly'") == "0\n")
    let reopened = try Document.open(url, model: model, formats: [SQLiteStore()])
    let people = FetchRequest<ManagedObject>(
      entityName: "Person", predicate: try QueryPredicate(format: "name == 'Bob'"))
    let bob = try #require(try reopened.context.fetch(people).first)
    #expect(try bob.value(forKey: "favorite") == nil)
    // Ada's favorite is still there, and still hers.
    let ada = try #require(
      try reopened.context.fetch(
        FetchRequest<ManagedObject>(
          entityName: "Person", predicate: try QueryPredicate(format: "name == 'Ada'"))
      ).first)
    #expect(
      try (ada.value(forKey: "favorite") as? ManagedObject)?.value(forKey: "title") as? String
        == "Dune")
    // A file written whole from it holds no such reference.
    let copy = fixture.url("shelf.xml")
    try reopened.save(to: copy, format: XMLStore())
    let again = try Document.open(copy, model: model, formats: [XMLStore()])
    #expect(canonicalGraph(again.context) == canonicalGraph(reopened.context))
  }

  @Test("a one-object edit is saved in place: that row changes, its Z_OPT goes up, nothing else")
  func oneObjectEdit() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = fixture.url("shelf.sqlite")
    let model = try makeShelf(at: url, loop: fixture.loop).model
    let document = try Document.open(url, model: model, formats: [SQLiteStore()])
    let before = try sqlite(url, "SELECT Z_PK, Z_OPT, ZTITLE FROM ZITEM ORDER BY Z_PK")
    let node = try inode(url)
    let request = FetchRequest<ManagedObject>(
      entityName: "Book", predicate: try QueryPredicate(format: "title == 'Dune'"))
    let dune = try #require(try document.context.fetch(request).first)
    try dune.setValue("Dune (1965)", forKey: "title")
    try document.save()
    #expect(try inode(url) == node)
    let after = try sqlite(url, "SELECT Z_PK, Z_OPT, ZTITLE FROM ZITEM ORDER BY Z_PK")
    let changed = zip(before.split(separator: "\n"), after.split(separator: "\n")).filter {
      $0 != $1
    }
    #expect(changed.count == 1)
    #expect(changed.first?.1.hasSuffix("|2|Dune (1965)") == true)
    let reopened = try Document.open(url, model: model, formats: [SQLiteStore()])
    #expect(canonicalGraph(reopened.context) == canonicalGraph(document.context))
  }

  @Test(
    "inserts, deletes, reordered and changed relationships are saved in place and read back")
  func manyEdits() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = fixture.url("shelf.sqlite")
    let model = try makeShelf(at: url, loop: fixture.loop).model
    let document = try Document.open(url, model: model, formats: [SQLiteStore()])
    let context = document.context
    func one(_ entity: String, _ predicate: String) throws -> ManagedObject {
      let request = FetchRequest<ManagedObject>(
        entityName: entity, predicate: try QueryPredicate(format: predicate))
      return try #require(try context.fetch(request).first)
    }
    let dune = try one("Book", "title == 'Dune'")
    let messiah = try one("Book", "title == 'Messiah'")
    let children = try one("Book", "title == 'Children'")
    let bob = try one("Person", "name == 'Bob'")
    let maxBefore = try sqlite(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Chapter'")
    // Reorder an ordered one-to-many and an ordered many-to-many.
    let chapters = try #require(try dune.value(forKey: "chapters") as? [ManagedObject])
    try dune.setValue(Array(chapters.reversed()), forKey: "chapters")
    try dune.setValue([children, messiah], forKey: "sequels")
    // A deletion that nullifies a to-one into a hierarchy and leaves join tables.
    try context.delete(try one("Magazine", "title == 'Weekly'"))
    // An insert with an ordered list, a to-one and a many-to-many.
    let heretics = try context.insertNewObject(forEntityName: "Book")
    try heretics.setValue("Heretics", forKey: "title")
    try heretics.setValue(bob, forKey: "author")
    try heretics.add(dune, toKey: "prequels")
    let intro = try context.insertNewObject(forEntityName: "Chapter")
    try intro.setValue("Intro", forKey: "title")
    try heretics.setValue([intro], forKey: "chapters")
    try heretics.setValue(Set([try one("Tag", "name == 'classic'")]), forKey: "tags")
    // A one-to-one moved, a to-one without inverse set.
    try bob.setValue(try one("Passport", "number == 'X1'"), forKey: "passport")
    try bob.setValue(heretics, forKey: "favorite")
    let node = try inode(url)
    try document.save()
    #expect(try inode(url) == node)
    #expect(try sqlite(url, "PRAGMA integrity_check") == "ok\n")
    // Z_MAX moved past the new chapter's key, and new keys are never below it.
    let maxAfter = try sqlite(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Chapter'")
    #expect(maxAfter == (try sqlite(url, "SELECT max(Z_PK) FROM ZCHAPTER")))
    #expect(try #require(Int(maxAfter.dropLast())) > (try #require(Int(maxBefore.dropLast()))))
    let reopened = try Document.open(url, model: model, formats: [SQLiteStore()])
    #expect(canonicalGraph(reopened.context) == canonicalGraph(document.context))
    // A save with no changes leaves the file alone.
    let stamp = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]
    try reopened.save()
    #expect(
      try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
        == stamp as? Date)
  }

  @Test("a save fires Core Data's derived-attribute triggers, whose SQL functions Folio defines")
  func coreDataTriggers() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = fixture.url("shelf.sqlite")
    let model = try makeShelf(at: url, loop: fixture.loop).model
    // As Core Data writes them for a derived attribute: update the column, then tell Core
    // Data's row cache through its SQL function.
    _ = try sqlite(
      url,
      """
      ALTER TABLE ZPERSON ADD COLUMN ZTITLECOUNT INTEGER;
      CREATE TRIGGER Z_DA_ZITEM_Book_title_PARAMETER_UPDATE AFTER UPDATE OF ZTITLE ON ZITEM
      BEGIN
        UPDATE ZPERSON SET ZTITLECOUNT = coalesce(ZTITLECOUNT, 0) + 1 WHERE Z_PK = NEW.ZAUTHOR;
        SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZPERSON', 0, NEW.ZAUTHOR, 1, 1);
      END;
      """)
    let document = try Document.open(url, model: model, formats: [SQLiteStore()])
    let request = FetchRequest<ManagedObject>(
      entityName: "Book", predicate: try QueryPredicate(format: "title == 'Dune'"))
    let dune = try #require(try document.context.fetch(request).first)
    try dune.setValue("Dune, again", forKey: "title")
    try document.save()
    #expect(try sqlite(url, "SELECT ZTITLECOUNT FROM ZPERSON WHERE ZNAME = 'Ada'") == "1\n")
  }

  @Test(
    "in place, nothing committed is lost: two contexts' saves, a reset, a refresh, a child's save")
  func contextsKeepCommitted() throws {
    let fixture = try DocumentFixture()
    defer { fixture.remove() }
    let url = fixture.url("shelf.sqlite")
    let model = try makeShelf(at: url, loop: fixture.loop).model
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(at: url, format: SQLiteStore())
    let first = try ManagedObjectContext(coordinator: coordinator)
    let second = try ManagedObjectContext(coordinator: coordinator)
    func book(_ title: String, in context: ManagedObjectContext) throws -> ManagedObject {
      let request = FetchRequest<ManagedObject>(
        entityName: "Book", predicate: try QueryPredicate(format: "title == %@", title))
      return try #require(try context.fetch(request).first)
    }
    // Each context saves its own change; the second keeps what the first committed.
    try book("Dune", in: first).setValue(Int16(500), forKey: "pages")
    try first.save()
    let tag = try second.insertNewObject(forEntityName: "Tag")
    try tag.setValue("new", forKey: "name")
    try tag.setValue(Set([try book("Messiah", in: second)]), forKey: "items")
    try second.save()
    // A reset forgets the context's objects, not the store's: a save after it writes nothing.
    let node = try inode(url)
    let before = try sqlite(url, "SELECT Z_PK, Z_OPT FROM ZITEM ORDER BY Z_PK")
    first.reset()
    try first.save()
    #expect(try sqlite(url, "SELECT Z_PK, Z_OPT FROM ZITEM ORDER BY Z_PK") == before)
    // A refresh reads what the other context saved; a change on top of it is saved too.
    let messiah = try book("Messiah", in: first)
    try first.refresh(messiah, mergeChanges: false)
    #expect((try messiah.value(forKey: "tags") as? Set<ManagedObject>)?.count == 2)
    try messiah.setValue(Int16(300), forKey: "pages")
    try first.save()
    // A child's save goes to its parent, and the parent's save writes it.
    let child = ManagedObjectContext(parent: second)
    try book("Children", in: child).setValue("Children of Dune", forKey: "title")
    try child.save()
    try second.save()
    #expect(try inode(url) == node)
    #expect(try sqlite(url, "PRAGMA integrity_check") == "ok\n")
    let reopened = try Document.open(url, model: model, formats: [SQLiteStore()])
    let context = reopened.context
    #expect(try book("Dune", in: context).value(forKey: "pages", as: Int16.self) == 500)
    #expect(try book("Messiah", in: context).value(forKey: "pages", as: Int16.self) == 300)
    #expect(try book("Children of Dune", in: context).value(forKey: "inPrint") as? Bool == false)
    let tags = try book("Messiah", in: context).value(forKey: "tags") as? Set<ManagedObject>
    #expect(
      Set(try (tags ?? []).map { try $0.value(forKey: "name") as? String }) == ["sci-fi", "new"])
    #expect(canonicalGraph(context).count == 13)
  }
}
