import FolioGraph
import FolioModel
import FolioUndo
import Foundation
import Testing

/// Uniqueness constraints resolved at a save by the merge policy (an upsert): the new object
/// merges into the one already saved, which keeps its ID, and every reference follows.
@Suite("Upserts by uniqueness constraints")
struct UpsertTests {
  /// Authors unique by name, with books (one-to-many) and tags (many-to-many), and notes that
  /// refer to an author one way (no inverse).
  static func model() throws -> ManagedObjectModel {
    try ManagedObjectModel {
      EntityDescription("Author") {
        AttributeDescription("name", .string)
        AttributeDescription("bio", .string)
        AttributeDescription("born", .integer32)
        RelationshipDescription("books", to: "Book", inverse: "author", toMany: true)
        RelationshipDescription("tags", to: "Tag", inverse: "authors", toMany: true)
        UniquenessConstraint("name")
      }
      EntityDescription("Book") {
        AttributeDescription("title", .string, isOptional: false)
        RelationshipDescription("author", to: "Author", inverse: "books")
      }
      EntityDescription("Tag") {
        AttributeDescription("label", .string)
        RelationshipDescription("authors", to: "Author", inverse: "tags", toMany: true)
      }
      EntityDescription("Note") {
        AttributeDescription("text", .string)
        RelationshipDescription("about", to: "Author", inverse: nil)
      }
    }
  }

  /// A context holding one saved author, Ada (bio "old", born 1815), with the book "Notes"
  /// and the tag "math".
  static func savedAda(_ policy: MergePolicy) throws -> (ManagedObjectContext, ManagedObject) {
    let context = ManagedObjectContext(model: try model())
    let ada = try insert(context, "Author", ["name": "Ada", "bio": "old", "born": 1815])
    try insert(context, "Book", ["title": "Notes"]).setValue(ada, forKey: "author")
    try ada.add(try insert(context, "Tag", ["label": "math"]), toKey: "tags")
    try context.save()
    context.mergePolicy = policy
    return (context, ada)
  }

  @discardableResult
  static func insert(_ context: ManagedObjectContext, _ entity: String, _ values: [String: Any])
    throws -> ManagedObject
  {
    let object = try context.insertNewObject(forEntityName: entity)
    for (key, value) in values { try object.setValue(value, forKey: key) }
    return object
  }

  /// A second Ada, inserted: bio "new" (or none), no birth year, the book "Engine", the tag
  /// "poetry", and a note about her.
  static func newAda(_ context: ManagedObjectContext, bio: String? = "new") throws -> (
    author: ManagedObject, book: ManagedObject, note: ManagedObject
  ) {
    let copy = try insert(context, "Author", ["name": "Ada"])
    try copy.setValue(bio, forKey: "bio")
    let book = try insert(context, "Book", ["title": "Engine"])
    try book.setValue(copy, forKey: "author")
    try copy.add(try insert(context, "Tag", ["label": "poetry"]), toKey: "tags")
    let note = try insert(context, "Note", ["text": "about Ada"])
    try note.setValue(copy, forKey: "about")
    return (copy, book, note)
  }

  static func strings(_ object: ManagedObject, _ key: String, _ inner: String) throws -> [String] {
    let objects = try object.value(forKey: key) as? Set<ManagedObject> ?? []
    return try objects.compactMap { try $0.value(forKey: inner) as? String }.sorted()
  }

  @Test("under error, a new object with a saved one's unique values fails the save, naming both")
  func errorPolicy() throws {
    let (context, ada) = try Self.savedAda(.error)
    let (copy, _, _) = try Self.newAda(context)
    let error = try #require(throws: GraphError.self) { try context.save() }
    #expect(error.code == .validation)
    let failure = try #require(error.failures.first { $0.rule == .uniqueness })
    #expect(failure.objectID == copy.objectID)
    #expect(failure.key == "name" && failure.value == "Ada")
    #expect(failure.message.contains(ada.objectID.uriRepresentation.absoluteString))
    #expect(try context.objects(ofEntity: "Author").count == 2)
    #expect(copy.isInserted && !copy.isDeleted)
  }

  @Test(
    "object-trump and overwrite merge the new object into the saved one, which keeps its ID",
    arguments: [MergePolicy.mergeByPropertyObjectTrump, .overwrite])
  func newValuesWin(_ policy: MergePolicy) throws {
    let (context, ada) = try Self.savedAda(policy)
    let id = ada.objectID
    let (copy, book, note) = try Self.newAda(context)
    try context.save()
    #expect(try context.objects(ofEntity: "Author") == [ada])
    #expect(ada.objectID == id)
    #expect(try ada.value(forKey: "bio") as? String == "new")
    // A value the new object lacks: object-trump keeps the saved one, overwrite empties it.
    #expect(try ada.value(forKey: "born") as? Int == (policy == .overwrite ? nil : 1815))
    #expect(try Self.strings(ada, "books", "title") == ["Engine", "Notes"])
    #expect(try Self.strings(ada, "tags", "label") == ["math", "poetry"])
    #expect(try book.value(forKey: "author") as? ManagedObject === ada)
    #expect(try note.value(forKey: "about") as? ManagedObject === ada)
    #expect(copy.managedObjectContext == nil || copy.isDeleted)
    #expect(context.object(with: copy.objectID) == nil)
    #expect(!context.hasChanges)
    #expect(context.brokenInvariants() == [])
  }

  @Test(
    "store-trump and rollback keep the saved values, and still take the new object's references",
    arguments: [MergePolicy.mergeByPropertyStoreTrump, .rollback])
  func savedValuesWin(_ policy: MergePolicy) throws {
    let (context, ada) = try Self.savedAda(policy)
    let (_, book, note) = try Self.newAda(context)
    try context.save()
    #expect(try context.objects(ofEntity: "Author") == [ada])
    #expect(try ada.value(forKey: "bio") as? String == "old")
    #expect(try ada.value(forKey: "born") as? Int == 1815)
    #expect(try Self.strings(ada, "books", "title") == ["Engine", "Notes"])
    #expect(try Self.strings(ada, "tags", "label") == ["math", "poetry"])
    #expect(try book.value(forKey: "author") as? ManagedObject === ada)
    #expect(try note.value(forKey: "about") as? ManagedObject === ada)
    #expect(context.brokenInvariants() == [])
  }

  @Test("a save that fails after merging undoes the merge: a failed save changes nothing")
  func failedSave() throws {
    let (context, ada) = try Self.savedAda(.mergeByPropertyObjectTrump)
    let (copy, book, note) = try Self.newAda(context)
    let untitled = try context.insertNewObject(forEntityName: "Book")
    let error = try #require(throws: GraphError.self) { try context.save() }
    #expect(error.failures.map(\.key) == ["title"])
    #expect(try context.objects(ofEntity: "Author").count == 2)
    #expect(copy.isInserted && !copy.isDeleted)
    #expect(try ada.value(forKey: "bio") as? String == "old")
    #expect(try Self.strings(ada, "books", "title") == ["Notes"])
    #expect(try book.value(forKey: "author") as? ManagedObject === copy)
    #expect(try note.value(forKey: "about") as? ManagedObject === copy)
    #expect(context.brokenInvariants() == [])
    try untitled.setValue("Sketches", forKey: "title")
    try context.save()
    #expect(try context.objects(ofEntity: "Author") == [ada])
    #expect(
      try Self.strings(ada, "books", "title")
        == ["Engine", "Notes"])
  }

  @Test("object-trump keeps a saved value where the new object has none")
  func emptyNewValue() throws {
    let (context, ada) = try Self.savedAda(.mergeByPropertyObjectTrump)
    _ = try Self.newAda(context, bio: nil)
    try context.save()
    #expect(try ada.value(forKey: "bio") as? String == "old")
  }

  @Test("new objects that share values among themselves merge into the first inserted")
  func newAmongThemselves() throws {
    let context = ManagedObjectContext(model: try Self.model())
    context.mergePolicy = .mergeByPropertyObjectTrump
    let first = try Self.insert(context, "Author", ["name": "Grace", "bio": "first"])
    let second = try Self.insert(context, "Author", ["name": "Grace", "born": 1906])
    let third = try Self.insert(context, "Author", ["name": "Grace", "bio": "third"])
    let book = try Self.insert(context, "Book", ["title": "COBOL"])
    try book.setValue(second, forKey: "author")
    try context.save()
    #expect(try context.objects(ofEntity: "Author") == [first])
    #expect(try first.value(forKey: "bio") as? String == "third")
    #expect(try first.value(forKey: "born") as? Int == 1906)
    #expect(try book.value(forKey: "author") as? ManagedObject === first)
    #expect(second.isDeleted || second.managedObjectContext == nil)
    #expect(third.isDeleted || third.managedObjectContext == nil)
    #expect(context.brokenInvariants() == [])
  }

  @Test("two saved objects made to share values cannot merge: the save fails under every policy")
  func savedCollision() throws {
    for policy in MergePolicy.allCases {
      let (context, _) = try Self.savedAda(.error)
      let grace = try Self.insert(context, "Author", ["name": "Grace"])
      try context.save()
      context.mergePolicy = policy
      try grace.setValue("Ada", forKey: "name")
      let error = try #require(throws: GraphError.self, "\(policy)") { try context.save() }
      #expect(error.failures.contains { $0.rule == .uniqueness }, "\(policy)")
      #expect(try context.objects(ofEntity: "Author").count == 2, "\(policy)")
    }
  }

  @Test("undo and redo after an upsert leave a consistent graph; a save after redo merges again")
  func undoAfterUpsert() throws {
    let loop = ManualEventLoop()
    let context = ManagedObjectContext(
      model: try Self.model(), undoManager: UndoManager(eventLoop: loop))
    context.mergePolicy = .mergeByPropertyObjectTrump
    let ada = try Self.insert(context, "Author", ["name": "Ada", "bio": "old"])
    loop.endTurn()
    try context.save()
    _ = try Self.newAda(context)
    loop.endTurn()
    try context.save()
    #expect(try context.objects(ofEntity: "Author") == [ada])
    try context.undoManager?.undo()
    #expect(context.brokenInvariants() == [])
    #expect(try context.objects(ofEntity: "Author") == [ada])
    try context.undoManager?.redo()
    #expect(context.brokenInvariants() == [])
    try context.save()
    #expect(try context.objects(ofEntity: "Author").count == 1)
    #expect(context.brokenInvariants() == [])
  }

  @Test("a child context's save to its parent merges as the parent's save would")
  func childContext() throws {
    let (parent, ada) = try Self.savedAda(.mergeByPropertyObjectTrump)
    let child = ManagedObjectContext(parent: parent)
    child.mergePolicy = .mergeByPropertyObjectTrump
    _ = try Self.newAda(child)
    try child.save()
    try parent.save()
    #expect(try parent.objects(ofEntity: "Author") == [ada])
    #expect(try ada.value(forKey: "bio") as? String == "new")
    #expect(try Self.strings(ada, "books", "title") == ["Engine", "Notes"])
  }
}
