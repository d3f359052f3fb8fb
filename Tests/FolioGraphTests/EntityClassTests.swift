import FolioQuery
import FolioTestSupport
import FolioUndo
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// Hand-written entity classes, shaped as `folio codegen` writes them.
enum Library {
  class Item: ManagedObject {
    override class var entityName: String { "Item" }
    var title: String? {
      get { attributeValue(forKey: "title") }
      set { setAttributeValue(newValue, forKey: "title") }
    }
    var created: Date? {
      get { attributeValue(forKey: "created") }
      set { setAttributeValue(newValue, forKey: "created") }
    }
  }

  /// Named like its entity, below a class that overrides `entityName`.
  class Book: Item {
    /// A stored property of the class's own, beside the entity's.
    var awakenings = 0
    var pages: Int16 {
      get { attributeValue(forKey: "pages") }
      set { setAttributeValue(newValue, forKey: "pages") }
    }
    var edition: Int32? {
      get { attributeValue(forKey: "edition") }
      set { setAttributeValue(newValue, forKey: "edition") }
    }
    var copies: Int64 {
      get { attributeValue(forKey: "copies") }
      set { setAttributeValue(newValue, forKey: "copies") }
    }
    var rating: Float {
      get { attributeValue(forKey: "rating") }
      set { setAttributeValue(newValue, forKey: "rating") }
    }
    var weight: Double? {
      get { attributeValue(forKey: "weight") }
      set { setAttributeValue(newValue, forKey: "weight") }
    }
    var inPrint: Bool {
      get { attributeValue(forKey: "inPrint") }
      set { setAttributeValue(newValue, forKey: "inPrint") }
    }
    var price: Decimal? {
      get { attributeValue(forKey: "price") }
      set { setAttributeValue(newValue, forKey: "price") }
    }
    var isbn: UUID? {
      get { attributeValue(forKey: "isbn") }
      set { setAttributeValue(newValue, forKey: "isbn") }
    }
    var link: URL? {
      get { attributeValue(forKey: "link") }
      set { setAttributeValue(newValue, forKey: "link") }
    }
    var cover: Data? {
      get { attributeValue(forKey: "cover") }
      set { setAttributeValue(newValue, forKey: "cover") }
    }
    var published: TimeInterval {
      get { attributeValue(forKey: "published") }
      set { setAttributeValue(newValue, forKey: "published") }
    }
    var author: Person? {
      get { relatedObject(forKey: "author") }
      set { setRelatedObject(newValue, forKey: "author") }
    }
    var chapters: [Chapter] {
      get { orderedRelatedObjects(forKey: "chapters") }
      set { setOrderedRelatedObjects(newValue, forKey: "chapters") }
    }
    var tags: Set<Tag> {
      get { relatedObjects(forKey: "tags") }
      set { setRelatedObjects(newValue, forKey: "tags") }
    }

    /// Computed from two attributes: no single key.
    var summary: String { "\(title ?? "") (\(pages) pages)" }

    override func awakeFromInsert() {
      super.awakeFromInsert()
      awakenings += 1
      title = "Untitled"
      created = Date(timeIntervalSinceReferenceDate: 0)
    }
  }

  final class Novel: Book {
    override class var entityName: String { "Novel" }
  }

  /// Class name equal to the entity's: no `entityName` override.
  final class Person: ManagedObject {
    var name: String? {
      get { attributeValue(forKey: "name") }
      set { setAttributeValue(newValue, forKey: "name") }
    }
    var books: Set<Book> {
      get { relatedObjects(forKey: "books") }
      set { setRelatedObjects(newValue, forKey: "books") }
    }
  }

  class Chapter: ManagedObject {
    var title: String? {
      get { attributeValue(forKey: "title") }
      set { setAttributeValue(newValue, forKey: "title") }
    }
    var book: Book? {
      get { relatedObject(forKey: "book") }
      set { setRelatedObject(newValue, forKey: "book") }
    }
  }

  final class Tag: ManagedObject {
    var name: String? {
      get { attributeValue(forKey: "name") }
      set { setAttributeValue(newValue, forKey: "name") }
    }
  }

  /// Registered for no entity of the model.
  final class Shelf: ManagedObject {}

  /// Represents `Person` by `representedClassName`, as a Core Data app's `PersonMO` does.
  final class PersonMO: ManagedObject {}

  /// A class for `Chapter` that does not subclass `Item`'s, registered for `Novel`.
  final class WrongNovel: ManagedObject {
    override class var entityName: String { "Novel" }
  }

  /// Below `Book`, with no entity of its name.
  final class Biography: Book {}

  /// A class for `Novel` that subclasses `Chapter`'s.
  final class ChapterNovel: Chapter {
    override class var entityName: String { "Novel" }
  }

  static let classes: [ManagedObject.Type] = [
    Item.self, Book.self, Novel.self, Person.self, Chapter.self, Tag.self,
  ]

  static func model() throws -> ManagedObjectModel {
    var person = EntityDescription("Person") {
      AttributeDescription("name", .string)
      RelationshipDescription("books", to: "Book", inverse: "author", toMany: true)
    }
    person.representedClassName = "App.PersonMO"
    return try ManagedObjectModel(entities: [
      EntityDescription("Item", isAbstract: true) {
        AttributeDescription("title", .string)
        AttributeDescription("created", .date)
      },
      EntityDescription("Book", parent: "Item") {
        AttributeDescription("pages", .integer16, defaultValue: .integer(0))
        AttributeDescription("edition", .integer32)
        AttributeDescription("copies", .integer64)
        AttributeDescription("rating", .float)
        AttributeDescription("weight", .double)
        AttributeDescription("inPrint", .boolean)
        AttributeDescription("price", .decimal)
        AttributeDescription("isbn", .uuid)
        AttributeDescription("link", .uri)
        AttributeDescription("cover", .binaryData)
        AttributeDescription("published", .date)
        RelationshipDescription("author", to: "Person", inverse: "books")
        RelationshipDescription(
          "chapters", to: "Chapter", inverse: "book", toMany: true, ordered: true,
          deleteRule: .cascade)
        RelationshipDescription("tags", to: "Tag", inverse: "books", toMany: true)
      },
      EntityDescription("Novel", parent: "Book") {
        AttributeDescription("genre", .string)
      },
      EntityDescription("Magazine", parent: "Item"),
      person,
      EntityDescription("Chapter") {
        AttributeDescription("title", .string)
        RelationshipDescription("book", to: "Book", inverse: "chapters")
      },
      EntityDescription("Tag") {
        AttributeDescription("name", .string)
        RelationshipDescription("books", to: "Book", inverse: "tags", toMany: true)
      },
    ])
  }

  static func registeredModel() throws -> ManagedObjectModel {
    var model = try model()
    try model.register(classes)
    return model
  }
}

@Suite("Entity classes: registration, instantiation, typed properties")
struct EntityClassTests {
  typealias Book = Library.Book
  typealias Novel = Library.Novel
  typealias Person = Library.Person
  typealias Chapter = Library.Chapter
  typealias Tag = Library.Tag

  func context() throws -> ManagedObjectContext {
    ManagedObjectContext(model: try Library.registeredModel())
  }

  /// A context whose undo manager's turns end when the test says.
  func undoContext() throws -> (ManagedObjectContext, UndoManager, ManualEventLoop) {
    let loop = ManualEventLoop()
    let undo = UndoManager(eventLoop: loop)
    return (
      ManagedObjectContext(model: try Library.registeredModel(), undoManager: undo), undo, loop
    )
  }

  // MARK: Registration

  @Test("each class finds its entity: by entityName, by class name, by representedClassName")
  func registration() throws {
    var model = try Library.model()
    try model.register(Library.classes)
    #expect(model.registeredClass(forEntityName: "Person") == Person.self)
    #expect(model.registeredClass(forEntityName: "Book") == Book.self)
    #expect(model.registeredClass(forEntityName: "Novel") == Novel.self)
    // Magazine has no class of its own: Item's.
    #expect(model.registeredClass(forEntityName: "Magazine") == Library.Item.self)
    #expect(model.registeredClass(forEntityName: "Nope") == nil)
    // Registering again is harmless; the model still equals an unregistered one.
    try model.register([Book.self])
    #expect(model == (try Library.model()))

    var represented = try Library.model()
    try represented.register([Library.PersonMO.self])
    #expect(represented.registeredClass(forEntityName: "Person") == Library.PersonMO.self)
  }

  @Test("a class without an entity, a second class, and inheritance out of step are refused")
  func registrationErrors() throws {
    var model = try Library.model()
    let unknown = try #require(graphError { try model.register([Library.Shelf.self]) })
    #expect(unknown.code == .invalidClass)
    #expect(unknown.message.contains("no entity \"Shelf\""))
    let base = try #require(graphError { try model.register([ManagedObject.self]) })
    #expect(base.code == .invalidClass)

    let twice = try #require(
      graphError { try model.register([Novel.self, Library.WrongNovel.self]) })
    #expect(twice.message.contains("already has the class Novel"))
    #expect(model.registeredClass(forEntityName: "Novel") == nil, "a failed call registers nothing")

    let inherited = try #require(
      graphError { try model.register([Book.self, Library.Biography.self]) })
    #expect(
      inherited.message.hasPrefix("the model has no entity \"Biography\" for the class Biography"))

    let outOfStep = try #require(
      graphError { try model.register([Book.self, Library.WrongNovel.self]) })
    #expect(outOfStep.code == .invalidClass)
    #expect(outOfStep.message.contains("WrongNovel, the class of \"Novel\", must subclass Book"))
    #expect(outOfStep.location?.entity == "Novel")

    let unrelated = try #require(
      graphError { try model.register([Library.Chapter.self, Library.ChapterNovel.self]) })
    #expect(
      unrelated.message.contains(
        "ChapterNovel, the class of \"Novel\", subclasses the class of \"Chapter\", which is not an ancestor of \"Novel\""
      ))

    // An entity between two registered ones may go without a class: Book's objects are then
    // Items, and Novel's class still subclasses the nearest registered ancestor's.
    try model.register([Library.Item.self, Novel.self])
    #expect(model.registeredClass(forEntityName: "Book") == Library.Item.self)
  }

  // MARK: Instantiation

  @Test("init(context:) inserts an object of the class's entity and calls awakeFromInsert once")
  func initWithContext() throws {
    let (context, undo, loop) = try undoContext()
    let book = Book(context: context)
    #expect(book.entityName == "Book")
    #expect(context.insertedObjects == [book])
    #expect(book.title == "Untitled", "set by awakeFromInsert")
    #expect(book.pages == 0, "the model's default")
    #expect(book.awakenings == 1)
    let novel = Novel(context: context)
    #expect(novel.entityName == "Novel")
    #expect(novel.title == "Untitled", "inherited awakeFromInsert")
    #expect(novel.awakenings == 1)

    // Undo removes the object with what awakeFromInsert set; redo brings both back without a
    // second call.
    loop.endTurn()
    try undo.undo()
    #expect(context.insertedObjects.isEmpty)
    try undo.redo()
    #expect(context.insertedObjects == [book, novel])
    #expect(book.title == "Untitled")
    #expect(book.awakenings == 1)
    #expect(novel.awakenings == 1)
  }

  @Test("every insert, fetch and load instantiates the registered class (an ancestor's when none)")
  func instantiation() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("library.test")
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try Library.registeredModel())
    try coordinator.addPersistentStore(at: url, format: TestFormat())
    let context = try ManagedObjectContext(coordinator: coordinator)
    #expect(try context.insertNewObject(forEntityName: "Book") is Book)
    #expect(try context.insertNewObject(forEntityName: "Novel") is Novel)
    let magazine = try context.insertNewObject(forEntityName: "Magazine")
    #expect(type(of: magazine) == Library.Item.self)
    #expect(type(of: try context.insertNewObject(forEntityName: "Person")) == Person.self)
    try context.save()

    let items: [Library.Item] = try context.fetch(Library.Item.fetchRequest())
    #expect(items.count == 3)
    let books = try context.fetch(Book.fetchRequest())
    #expect(books.count == 2)
    #expect(books.contains { $0 is Novel })

    // A second context reads the saved rows as objects of the classes.
    let reader = try ManagedObjectContext(coordinator: coordinator)
    let read = try reader.fetch(FetchRequest(entityName: "Item"))
    #expect(Set(read.map { "\(type(of: $0))" }) == ["Book", "Novel", "Item"])
    // A plain model's objects stay plain.
    let plain = ManagedObjectContext(model: try Library.model())
    #expect(type(of: try plain.insertNewObject(forEntityName: "Book")) == ManagedObject.self)
  }

  @Test("a typed request for an entity whose objects are another class is refused")
  func typedRequestMismatch() throws {
    let context = try context()
    _ = Person(context: context)
    let error = try #require(
      graphError { _ = try context.fetch(FetchRequest<Book>(entityName: "Person")) })
    #expect(error.code == .typeMismatch)
    #expect(error.message.contains("Person instances, not Book"))
    // An ancestor's class is fine: every Book is an Item.
    #expect(try context.fetch(FetchRequest<Library.Item>(entityName: "Book")).isEmpty)
  }

  // MARK: Typed properties

  @Test("every attribute type reads back what was set, through both doors")
  func attributes() throws {
    let context = try context()
    let book = Book(context: context)
    let uuid = UUID()
    let url = try #require(URL(string: "https://example.com/b"))
    book.pages = 320
    book.edition = 2
    book.copies = 5_000_000_000
    book.rating = 4.5
    book.weight = 0.75
    book.inPrint = true
    book.price = Decimal(string: "12.99")
    book.isbn = uuid
    book.link = url
    book.cover = Data([1, 2, 3])
    book.published = 86_400
    #expect(book.pages == 320)
    #expect(book.edition == 2)
    #expect(book.copies == 5_000_000_000)
    #expect(book.rating == 4.5)
    #expect(book.weight == 0.75)
    #expect(book.inPrint)
    #expect(book.price == Decimal(string: "12.99"))
    #expect(book.isbn == uuid)
    #expect(book.link == url)
    #expect(book.cover == Data([1, 2, 3]))
    #expect(book.published == 86_400)
    // The keyed door sees the same values, in its own types.
    #expect(try book.value(forKey: "pages", as: Int.self) == 320)
    #expect(
      try book.value(forKey: "published", as: Date.self)
        == Date(timeIntervalSinceReferenceDate: 86_400))
    #expect(try book.value(forKey: "rating", as: Float.self) == 4.5)
    try book.setValue(12, forKey: "edition")
    #expect(book.edition == 12)
    // Empty values: optionals read nil, scalars zero.
    book.edition = nil
    book.weight = nil
    #expect(book.edition == nil)
    #expect(book.weight == nil)
    #expect(try book.value(forKey: "edition") == nil)
    try book.setValue(nil, forKey: "copies")
    #expect(book.copies == 0)
    #expect(try book.value(forKey: "copies") == nil)
  }

  @Test("a typed change is tracked and undone like a keyed one")
  func typedChangesUndo() throws {
    let (context, undo, loop) = try undoContext()
    let book = Book(context: context)
    book.title = "Dune"
    try context.save()
    loop.endTurn()
    book.title = "Dune Messiah"
    book.pages = 256
    #expect(book.isUpdated)
    #expect(Set(book.changedValues().keys) == ["title", "pages"])
    loop.endTurn()
    try undo.undo()
    #expect(book.title == "Dune")
    #expect(book.pages == 0)
    #expect(!context.hasChanges)
  }

  @Test("to-one and to-many accessors keep the inverses in step")
  func relationships() throws {
    let context = try context()
    let book = Book(context: context)
    let ada = Person(context: context)
    book.author = ada
    #expect(ada.books == [book])
    let other = Book(context: context)
    ada.books = [other]
    #expect(book.author == nil)
    #expect(other.author === ada)

    let fiction = Tag(context: context)
    book.addRelatedObject(fiction, forKey: "tags")
    #expect(book.tags == [fiction])
    #expect(try fiction.value(forKey: "books") as? Set<ManagedObject> == [book])
    book.removeRelatedObject(fiction, forKey: "tags")
    #expect(book.tags.isEmpty)
    book.tags = [fiction]
    #expect(try fiction.value(forKey: "books") as? Set<ManagedObject> == [book])
  }

  @Test("ordered accessors insert, remove and replace by index")
  func orderedRelationships() throws {
    let context = try context()
    let book = Book(context: context)
    let (a, b, c, d) = (
      Chapter(context: context), Chapter(context: context),
      Chapter(context: context), Chapter(context: context)
    )
    for (chapter, title) in [(a, "A"), (b, "B"), (c, "C"), (d, "D")] { chapter.title = title }
    book.addRelatedObject(a, forKey: "chapters")
    book.addRelatedObject(c, forKey: "chapters")
    book.addRelatedObject(b, forKey: "chapters", at: 1)
    #expect(book.chapters.map(\.title) == ["A", "B", "C"])
    #expect(b.book === book)
    book.removeRelatedObject(at: 0, forKey: "chapters")
    #expect(book.chapters.map(\.title) == ["B", "C"])
    #expect(a.book == nil)
    book.replaceRelatedObject(at: 1, with: d, forKey: "chapters")
    #expect(book.chapters.map(\.title) == ["B", "D"])
    #expect(c.book == nil)
    #expect(d.book === book)
    // Replacing with an object already there moves it.
    book.replaceRelatedObject(at: 0, with: d, forKey: "chapters")
    #expect(book.chapters.map(\.title) == ["D"])
    #expect(b.book == nil)
    book.chapters = [a, b]
    #expect(book.chapters.map(\.title) == ["A", "B"])
    #expect(d.book == nil)
  }

  // MARK: Key paths

  @Test("Swift key paths name model keys, through relationships; other key paths name none")
  func keyPathNames() {
    #expect(ManagedObject.keyString(for: \Book.pages) == "pages")
    #expect(ManagedObject.keyString(for: \Novel.title) == "title", "inherited")
    #expect(ManagedObject.keyString(for: \Book.author?.name) == "author.name")
    #expect(ManagedObject.keyString(for: \Book.chapters) == "chapters")
    #expect(ManagedObject.keyString(for: \Book.published) == "published")
    #expect(ManagedObject.keyString(for: \Book.awakenings) == nil, "the class's own property")
    #expect(ManagedObject.keyString(for: \Book.summary) == nil, "two keys at one step")
  }

  @Test("sort descriptors and the predicate builder take key paths")
  func keyPathsInFetches() throws {
    let context = try context()
    for (title, pages) in [("B", 300), ("A", 120), ("C", 80)] {
      let book = Book(context: context)
      book.title = title
      book.pages = Int16(pages)
    }
    var request = Book.fetchRequest()
    request.sortDescriptors = [QuerySortDescriptor(\Book.pages, ascending: false)]
    #expect(try context.fetch(request).map(\.title) == ["B", "A", "C"])
    request.predicate = .key(\Book.pages) > 100
    request.sortDescriptors = [QuerySortDescriptor(\Book.title)]
    #expect(try context.fetch(request).map(\.title) == ["A", "B"])
    let ada = Person(context: context)
    ada.name = "Ada"
    try context.fetch(request).first?.author = ada
    request.predicate = QueryPredicate.key(\Book.author?.name).beginsWith("Ad")
    #expect(try context.fetch(request).map(\.title) == ["A"])
  }

  // MARK: Misuse

  @Test("misusing a typed accessor stops the program with a message naming Entity.key")
  func misuseTraps() async throws {
    let wrongType = await #expect(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) {
      let context = ManagedObjectContext(model: try Library.registeredModel())
      let book = Library.Book(context: context)
      book.setAttributeValue("many", forKey: "pages")
    }
    let message = String(decoding: wrongType?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Book.pages is Integer 16 and cannot hold many (a String)"))
    await #expect(processExitsWith: .failure) {
      let context = ManagedObjectContext(model: try Library.registeredModel())
      _ = Library.Shelf(context: context)
    }
    await #expect(processExitsWith: .failure) {
      let context = ManagedObjectContext(model: try Library.registeredModel())
      let book = Library.Book(context: context)
      let _: String = book.attributeValue(forKey: "isbn")
    }
    await #expect(processExitsWith: .failure) {
      _ = QuerySortDescriptor(\Library.Book.summary)
    }
  }
}
