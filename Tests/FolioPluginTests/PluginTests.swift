import FolioGraph
import FolioModel
import Foundation
import Testing

/// The model beside this file, with the classes the plugin generated for it registered.
func libraryModel() throws -> ManagedObjectModel {
  let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Library.xcdatamodeld")
  var model = try ManagedObjectModel(contentsOf: url)
  try model.register(LibraryEntities.classes)
  return model
}

@Suite("Classes the build-tool plugin generates")
struct PluginTests {
  @Test("the list holds the generated classes and the hand-written Category/Extension one")
  func classes() throws {
    #expect(
      LibraryEntities.classes.map { "\($0)" } == ["Item", "Book", "Novel", "AuthorMO", "Chapter"])
    let model = try libraryModel()
    #expect(model.registeredClass(forEntityName: "Author") == AuthorMO.self)
    #expect(model.registeredClass(forEntityName: "Note") == nil, "Manual/None: no class")
  }

  @Test("the code a Mac app has: init(context:), properties, to-many accessors, typed fetches")
  func typedAPI() throws {
    let context = ManagedObjectContext(model: try libraryModel())
    let dune = Novel(context: context)
    #expect(dune.title == "Untitled", "Book's awakeFromInsert, inherited")
    #expect(dune.awakenings == 1)
    dune.title = "Dune"
    dune.genre = "SF"
    dune.pages = 412
    dune.price = Decimal(string: "9.99")
    dune.rating = 4.5
    let frank = AuthorMO(context: context)
    frank.name = "Frank Herbert"
    frank.born = 1920
    dune.author = frank
    #expect(frank.books == [dune])
    let one = Chapter(context: context)
    one.title = "One"
    let two = Chapter(context: context)
    two.title = "Two"
    dune.addToChapters(two)
    dune.insertIntoChapters(one, at: 0)
    #expect(dune.tableOfContents == ["One", "Two"])
    #expect(two.book === dune)
    dune.removeFromChapters(at: 1)
    #expect(dune.tableOfContents == ["One"])
    #expect(two.book == nil)

    let books: [Book] = try context.fetch(Book.fetchRequest())
    #expect(books == [dune])
    let items = try context.fetch(Item.fetchRequest())
    #expect(items.count == 1 && items[0] is Novel)
    #expect(try dune.value(forKey: "pages", as: Int16.self) == 412, "the keyed door agrees")
    let note = try context.insertNewObject(forEntityName: "Note")
    #expect(type(of: note) == ManagedObject.self)
    #expect(dune.id == dune.objectID, "Identifiable by the object's ID")
  }
}
