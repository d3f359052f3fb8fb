import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// Authors whose fetched property finds the posts that name them, by `$FETCH_SOURCE` and
/// `$FETCHED_PROPERTY`.
func fetchedModel(predicate: String) throws -> ManagedObjectModel {
  var recent = FetchedPropertyDescription("byName", entity: "Post", predicate: predicate)
  recent.userInfo = ["kind": "essay"]
  var author = EntityDescription("Author") { AttributeDescription("name", .string) }
  author.fetchedProperties = [recent]
  return try ManagedObjectModel(entities: [
    author,
    EntityDescription("Post") {
      AttributeDescription("writer", .string)
      AttributeDescription("kind", .string)
      AttributeDescription("stars", .integer16)
    },
  ])
}

@Suite("Fetched properties")
struct FetchedPropertyTests {
  @Test("evaluated on first access with $FETCH_SOURCE, cached, fetched again after a refresh")
  func evaluatedAndCached() throws {
    let context = ManagedObjectContext(
      model: try fetchedModel(
        predicate: "writer == $FETCH_SOURCE.name AND kind == $FETCHED_PROPERTY.userInfo.kind"))
    let ada = try context.insertNewObject(forEntityName: "Author")
    try ada.setValue("Ada", forKey: "name")
    for (writer, kind, stars) in [("Ada", "essay", 3), ("Ada", "note", 1), ("Bob", "essay", 5)] {
      let post = try context.insertNewObject(forEntityName: "Post")
      try post.setValue(writer, forKey: "writer")
      try post.setValue(kind, forKey: "kind")
      try post.setValue(stars, forKey: "stars")
    }
    let found = try #require(try ada.value(forKey: "byName") as? [ManagedObject])
    #expect(try found.map { try $0.value(forKey: "stars", as: Int.self) } == [3])
    #expect(try ada.value(forKeyPath: "byName.@count") as? Int == 1)

    // Cached: a new matching post is not seen until the author is refreshed.
    let another = try context.insertNewObject(forEntityName: "Post")
    try another.setValue("Ada", forKey: "writer")
    try another.setValue("essay", forKey: "kind")
    #expect((try ada.value(forKey: "byName") as? [ManagedObject])?.count == 1)
    try context.save()
    try context.refresh(ada, mergeChanges: true)
    #expect((try ada.value(forKey: "byName") as? [ManagedObject])?.count == 2)
  }

  @Test("a predicate that does not parse or names another variable is an error naming Entity.key")
  func badPredicate() throws {
    for predicate in ["writer == $OTHER", "writer ==="] {
      let context = ManagedObjectContext(model: try fetchedModel(predicate: predicate))
      let ada = try context.insertNewObject(forEntityName: "Author")
      let error = try #require(graphError { _ = try ada.value(forKey: "byName") })
      #expect(error.code == .invalidPredicate)
      #expect(error.location?.description == "Author.byName")
    }
  }
}
