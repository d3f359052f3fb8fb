import FolioTestSupport
import FolioUndo
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// The app's own validation errors, thrown by entity class overrides.
enum ShelfError: Error, Equatable {
  case emptyTitle
  case tooLong(Int16)
}

/// Entity classes of the Library model that override the lifecycle methods.
enum Hooks {
  class Item: ManagedObject {
    override class var entityName: String { "Item" }
    var title: String? {
      get { attributeValue(forKey: "title") }
      set { setAttributeValue(newValue, forKey: "title") }
    }
  }

  class Book: Item {
    var saves = 0
    var pages: Int16 {
      get { attributeValue(forKey: "pages") }
      set { setAttributeValue(newValue, forKey: "pages") }
    }
    var chapters: [Chapter] {
      get { orderedRelatedObjects(forKey: "chapters") }
      set { setOrderedRelatedObjects(newValue, forKey: "chapters") }
    }

    /// Keeps `pages` equal to the chapter count, setting it only when it differs.
    override func willSave() {
      let count = Int16(chapters.count)
      if !isDeleted, pages != count { pages = count }
    }

    override func didSave() { saves += 1 }

    override func validateValue(_ value: Any?, forKey key: String) throws {
      try super.validateValue(value, forKey: key)
      if key == "title", (value as? String)?.isEmpty == true { throw ShelfError.emptyTitle }
    }

    override func validateForUpdate() throws {
      try super.validateForUpdate()
      if pages > 3 { throw ShelfError.tooLong(pages) }
    }
  }

  final class Chapter: ManagedObject {
    var deletions = 0
    var title: String? {
      get { attributeValue(forKey: "title") }
      set { setAttributeValue(newValue, forKey: "title") }
    }

    /// Names an untitled chapter: a new object's values, set at save.
    override func willSave() {
      if !isDeleted, title == nil { title = "Chapter" }
    }

    override func prepareForDeletion() { deletions += 1 }
  }

  final class Person: ManagedObject {
    var deletions = 0
    var name: String? {
      get { attributeValue(forKey: "name") }
      set { setAttributeValue(newValue, forKey: "name") }
    }

    /// Records the deletion in a tag, a change that joins the deletion's turn.
    override func prepareForDeletion() {
      deletions += 1
      guard let context = managedObjectContext else { return }
      let tag = Tag(context: context)
      tag.name = "deleted \(name ?? "?")"
    }
  }

  final class Tag: ManagedObject {
    /// Changes the object in every round of `willSave()`: a save can never settle.
    var restless = false
    var name: String? {
      get { attributeValue(forKey: "name") }
      set { setAttributeValue(newValue, forKey: "name") }
    }

    override func willSave() {
      if restless { name = (name ?? "") + "!" }
    }
  }

  static func context() throws -> (ManagedObjectContext, UndoManager, ManualEventLoop) {
    var model = try Library.model()
    try model.register([Item.self, Book.self, Chapter.self, Person.self, Tag.self])
    let loop = ManualEventLoop()
    let undo = UndoManager(eventLoop: loop)
    return (ManagedObjectContext(model: model, undoManager: undo), undo, loop)
  }
}

@Suite("Entity class lifecycle: deletion, save and validation hooks")
struct LifecycleTests {
  @Test("prepareForDeletion runs once per deletion, cascades included, before the rules")
  func prepareForDeletion() throws {
    let (context, undo, loop) = try Hooks.context()
    let ada = Hooks.Person(context: context)
    ada.name = "Ada"
    let book = Hooks.Book(context: context)
    let chapter = Hooks.Chapter(context: context)
    book.chapters = [chapter]
    try context.save()
    loop.endTurn()

    try context.delete(ada)
    try context.delete(book)
    loop.endTurn()
    #expect(ada.deletions == 1)
    #expect(chapter.deletions == 1, "cascaded from the book")
    #expect(chapter.isDeleted)
    let tags = try context.objects(ofEntity: "Tag").map { $0 as? Hooks.Tag }
    #expect(tags.map { $0?.name } == ["deleted Ada"])

    // Undo takes back the deletion with what the hook did; redo does not call it again.
    try undo.undo()
    #expect(!ada.isDeleted && !chapter.isDeleted)
    #expect(try context.objects(ofEntity: "Tag").isEmpty)
    try undo.redo()
    #expect(ada.isDeleted && chapter.isDeleted)
    #expect(try context.objects(ofEntity: "Tag").count == 1)
    #expect(ada.deletions == 1 && chapter.deletions == 1)
  }

  @Test("willSave's changes are saved, and objects it changes get willSave again")
  func willSave() throws {
    let (context, _, _) = try Hooks.context()
    let book = Hooks.Book(context: context)
    book.title = "Dune"
    book.chapters = [Hooks.Chapter(context: context), Hooks.Chapter(context: context)]
    try context.save()
    #expect(book.pages == 2)
    #expect(book.chapters.map(\.title) == ["Chapter", "Chapter"])
    #expect(!context.hasChanges, "what willSave set was saved")
    #expect(try book.committedValues(forKeys: ["pages"])["pages"] as? Int == 2)
    #expect(book.saves == 1)

    // A chapter added at the next save changes the book, whose willSave counts it.
    let third = Hooks.Chapter(context: context)
    third.setRelatedObject(book, forKey: "book")
    try context.save()
    #expect(book.pages == 3)
    #expect(third.title == "Chapter")
    #expect(book.saves == 2)
  }

  @Test("a willSave that never settles fails the save, which commits nothing")
  func restlessWillSave() throws {
    let (context, _, _) = try Hooks.context()
    let tag = Hooks.Tag(context: context)
    tag.restless = true
    let error = try #require(graphError { try context.save() })
    #expect(error.code == .validation)
    #expect(error.message.hasPrefix("willSave() still changed objects after 100 rounds"))
    #expect(context.insertedObjects == [tag], "nothing was committed")
    #expect(tag.objectID.isTemporaryID)
    #expect(tag.name?.count == 100)
  }

  @Test("validation overrides throw the app's own errors, reported with the model's, at once")
  func validationOverrides() throws {
    let (context, _, _) = try Hooks.context()
    let book = Hooks.Book(context: context)
    book.title = "Dune"
    book.chapters = [Hooks.Chapter(context: context)]
    try context.save()

    book.title = ""
    book.chapters += (0..<3).map { _ in Hooks.Chapter(context: context) }
    var error = try #require(graphError { try context.save() })
    // With a rule of the context's too, all three are reported, each once.
    context.validationRules.add(forEntity: "Book", key: "pages") { _, value in
      (value as? Int ?? 0) > 2 ? "more pages than the shelf holds" : nil
    }
    let withRule = try #require(graphError { try context.save() })
    #expect(
      withRule.failures.map(\.message).sorted() == [
        "emptyTitle", "more pages than the shelf holds", "tooLong(4)",
      ])
    context.validationRules = ValidationRules()
    error = try #require(graphError { try context.save() })
    #expect(error.code == .validation)
    #expect(error.failures.count == 2)
    let mine = error.failures.compactMap { $0.underlying as? ShelfError }
    #expect(mine.contains(.emptyTitle))
    #expect(mine.contains(.tooLong(4)), "willSave set pages before validation")
    let title = try #require(error.failures.first { $0.key == "title" })
    #expect(title.entityName == "Book" && title.rule == .custom)
    #expect(book.hasChanges && book.title == "")
    // The class's overrides answer direct calls too.
    #expect(throws: ShelfError.emptyTitle) { try book.validateValue("", forKey: "title") }
    book.title = "Dune"
    book.chapters = Array(book.chapters.prefix(1))
    try context.save()
    #expect(!context.hasChanges)
  }
}

@Suite("Typed validation rules")
struct TypedValidationRuleTests {
  @Test("a rule on a key path throws the app's error, reported with the other failures")
  func typedRule() throws {
    let (context, _, _) = try Hooks.context()
    context.validationRules.add(\Hooks.Book.pages) { _, pages in
      if pages > 1 { throw ShelfError.tooLong(pages) }
    }
    context.validationRules.add(\Hooks.Item.title) { _, title in
      if title == nil { throw ShelfError.emptyTitle }
    }
    let book = Hooks.Book(context: context)
    book.chapters = [Hooks.Chapter(context: context), Hooks.Chapter(context: context)]
    let error = try #require(graphError { try context.save() })
    let mine = error.failures.compactMap { $0.underlying as? ShelfError }
    #expect(mine.contains(.tooLong(2)), "willSave set pages to 2 before validation")
    #expect(mine.contains(.emptyTitle), "a rule on the parent entity's class")
    #expect(error.failures.first { $0.key == "pages" }?.entityName == "Book")
    book.title = "Short"
    book.chapters = []
    try context.save()
  }
}

/// A class whose `awakeFromFetch()` sets values, which must not count as changes.
final class FetchedPerson: ManagedObject {
  override class var entityName: String { "Person" }
  var awakenings = 0
  var name: String? {
    get { attributeValue(forKey: "name") }
    set { setAttributeValue(newValue, forKey: "name") }
  }

  override func awakeFromFetch() {
    awakenings += 1
    name = name?.uppercased()
  }
}

@Suite("awakeFromFetch")
struct AwakeFromFetchTests {
  @Test("objects read from the store awake once, untracked; inserted ones never; refresh again")
  func awakeFromFetch() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    var model = try Library.model()
    try model.register([FetchedPerson.self])
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(
      at: folder.appendingPathComponent("people.test"), format: TestFormat())
    let writer = try ManagedObjectContext(coordinator: coordinator)
    let ada = FetchedPerson(context: writer)
    ada.name = "Ada"
    try writer.save()
    #expect(ada.awakenings == 0, "inserted here, never fetched")

    let loop = ManualEventLoop()
    let undo = UndoManager(eventLoop: loop)
    let reader = try ManagedObjectContext(coordinator: coordinator, undoManager: undo)
    let read = try #require(reader.fetch(FetchedPerson.fetchRequest()).first)
    #expect(read.awakenings == 1)
    #expect(read.name == "ADA", "set in awakeFromFetch")
    #expect(!reader.hasChanges && read.changedValues().isEmpty)
    loop.endTurn()
    #expect(!undo.canUndo, "nothing to undo")
    _ = try reader.fetch(FetchedPerson.fetchRequest())
    #expect(read.awakenings == 1, "once per reading")

    try reader.refresh(read, mergeChanges: false)
    #expect(read.awakenings == 2)
    // A change made afterwards is a change, and saves the value it sets.
    read.name = "Ada L."
    try reader.save()
    #expect(try writer.fetch(FetchRequest(entityName: "Person")).count == 1)
  }
}
