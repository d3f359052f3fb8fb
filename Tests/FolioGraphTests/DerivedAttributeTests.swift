import FolioTestSupport
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// Authors and posts with every form of derivation Core Data models use.
func derivedModel(postCount: String = "posts.@count") throws -> ManagedObjectModel {
  var count = AttributeDescription("postCount", .integer64)
  count.derivationExpression = postCount
  var key = AttributeDescription("nameKey", .string)
  key.derivationExpression = "canonical:(name)"
  var touched = AttributeDescription("touched", .date)
  touched.derivationExpression = "now()"
  var lower = AttributeDescription("lowerTitle", .string)
  lower.derivationExpression = "lowercase:(title)"
  var authorName = AttributeDescription("authorName", .string)
  authorName.derivationExpression = "author.name"
  var shout = AttributeDescription("shout", .string)
  shout.derivationExpression = "uppercase:(title)"
  return try ManagedObjectModel(entities: [
    EntityDescription("Author") {
      AttributeDescription("name", .string, isOptional: false)
      count
      key
      touched
      RelationshipDescription("posts", to: "Post", inverse: "author", toMany: true)
    },
    EntityDescription("Post") {
      AttributeDescription("title", .string)
      lower
      authorName
      shout
      RelationshipDescription("author", to: "Author", inverse: "posts")
    },
  ])
}

@Suite("Derived attributes")
struct DerivedAttributeTests {
  @Test("computed at save from what is saved, read-only, and read back from the store")
  func computedAtSave() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("blog.test")
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try derivedModel())
    try coordinator.addPersistentStore(at: url, format: TestFormat())
    let context = try ManagedObjectContext(coordinator: coordinator)
    let author = try context.insertNewObject(forEntityName: "Author")
    try author.setValue("Élodie Ça", forKey: "name")
    for title in ["First Post", "Second"] {
      let post = try context.insertNewObject(forEntityName: "Post")
      try post.setValue(title, forKey: "title")
      try post.setValue(author, forKey: "author")
    }
    #expect(try author.value(forKey: "postCount") == nil, "not computed before the save")
    let before = Date()
    try context.save()
    #expect(try author.value(forKey: "postCount", as: Int.self) == 2)
    #expect(try author.value(forKey: "nameKey", as: String.self) == "elodie ca")
    let touched = try #require(try author.value(forKey: "touched", as: Date.self))
    #expect(touched >= before.addingTimeInterval(-1) && touched <= Date())
    let posts = try context.fetch(FetchRequest(entityName: "Post"))
    #expect(
      Set(try posts.map { try $0.value(forKey: "lowerTitle", as: String.self) })
        == ["first post", "second"])
    #expect(
      try posts.allSatisfy { try $0.value(forKey: "authorName", as: String.self) == "Élodie Ça" })
    #expect(try posts.contains { try $0.value(forKey: "shout", as: String.self) == "FIRST POST" })
    #expect(!context.hasChanges, "the derived values are saved, not pending")

    let error = try #require(graphError { try author.setValue(3, forKey: "postCount") })
    #expect(error.code == .readOnly)

    // A later save recomputes an updated object's values.
    try context.delete(posts[0])
    try context.save()
    #expect(try author.value(forKey: "postCount", as: Int.self) == 1)

    let reader = try ManagedObjectContext(
      coordinator: {
        let again = PersistentStoreCoordinator(managedObjectModel: try derivedModel())
        try again.addPersistentStore(at: url, format: TestFormat())
        return again
      }())
    let read = try #require(reader.fetch(FetchRequest(entityName: "Author")).first)
    #expect(try read.value(forKey: "postCount", as: Int.self) == 1)
  }

  @Test("a save that fails leaves no derived value behind, and none is undoable")
  func failedSave() throws {
    let context = ManagedObjectContext(model: try derivedModel())
    let author = try context.insertNewObject(forEntityName: "Author")
    let post = try context.insertNewObject(forEntityName: "Post")
    try post.setValue(author, forKey: "author")
    // The author has no name, which the model requires.
    let error = try #require(graphError { try context.save() })
    #expect(error.code == .validation)
    #expect(try author.value(forKey: "postCount") == nil)
    #expect(try post.value(forKey: "authorName") == nil)
    try author.setValue("Ada", forKey: "name")
    try context.save()
    #expect(try post.value(forKey: "authorName", as: String.self) == "Ada")
    #expect(author.changedValues().isEmpty)
  }

  @Test("an expression the object cannot answer fails the save, naming Entity.attribute")
  func unanswerable() throws {
    let context = ManagedObjectContext(model: try derivedModel(postCount: "entries.@count"))
    let author = try context.insertNewObject(forEntityName: "Author")
    try author.setValue("Ada", forKey: "name")
    let error = try #require(graphError { try context.save() })
    #expect(error.code == .invalidKeyPath)
    #expect(error.location?.description == "Author.postCount")
    #expect(error.message.hasPrefix("the derivation \"entries.@count\" cannot be computed"))
    #expect(context.insertedObjects == [author], "nothing was committed")
  }

  @Test("a model whose derivation is none of Core Data's forms does not load")
  func unknownForm() throws {
    #expect(throws: ModelError.self) { try derivedModel(postCount: "max(posts.count)") }
    let data = Data(
      """
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
          <entity name="A" syncable="YES">
              <attribute name="x" optional="YES" attributeType="String" derived="YES" derivationExpression="trim:(y)"/>
              <attribute name="y" optional="YES" attributeType="String"/>
          </entity>
      </model>
      """.utf8)
    let error = try #require(
      throws: ModelError.self, performing: { try ManagedObjectModel(xcodeModelData: data) })
    #expect(error.code == .invalidValue)
    #expect(error.description.hasPrefix("contents:4: A.x: "))
    #expect(error.message.hasPrefix("derivationExpression \"trim:(y)\" is not one Folio computes"))
    for form in ["posts.@count", "now()", "canonical:(name)", "a.b.c", "items.@sum.price"] {
      #expect(DerivationExpression(parsing: form)?.description == form)
    }
  }
}

@Suite("Saves with derivations and hooks keep what was committed")
struct DerivedSaveSafetyTests {
  @Test("a save that fails computing a derivation or settling willSave leaves the file as it was")
  func failedSavesKeepTheFile() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("blog.test")
    func open(_ model: ManagedObjectModel) throws -> ManagedObjectContext {
      let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
      try coordinator.addPersistentStore(at: url, format: TestFormat())
      return try ManagedObjectContext(coordinator: coordinator)
    }
    let writer = try open(try derivedModel())
    let author = try writer.insertNewObject(forEntityName: "Author")
    try author.setValue("Ada", forKey: "name")
    try writer.save()
    let committed = try Data(contentsOf: url)

    // Another model version whose derivation the objects cannot answer.
    let broken = try open(try derivedModel(postCount: "entries.@count"))
    let read = try #require(try broken.fetch(FetchRequest(entityName: "Author")).first)
    try read.setValue("Ada L.", forKey: "name")
    #expect(graphError { try broken.save() }?.code == .invalidKeyPath)
    #expect(try Data(contentsOf: url) == committed)

    let reader = try open(try derivedModel())
    let again = try #require(try reader.fetch(FetchRequest(entityName: "Author")).first)
    #expect(try again.value(forKey: "name", as: String.self) == "Ada")
    #expect(try again.value(forKey: "postCount", as: Int.self) == 0)
  }
}
