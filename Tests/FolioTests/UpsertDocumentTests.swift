import Folio
import FolioTestSupport
import Foundation
import Testing

/// Upserts by uniqueness constraints in documents saved to every store format, with another
/// process's document inserting the same unique values.
@Suite("Upserts in documents")
struct UpsertDocumentTests {
  static func model() throws -> ManagedObjectModel {
    try ManagedObjectModel {
      EntityDescription("Author") {
        AttributeDescription("name", .string)
        AttributeDescription("bio", .string)
        RelationshipDescription("books", to: "Book", inverse: "author", toMany: true)
        UniquenessConstraint("name")
      }
      EntityDescription("Book") {
        AttributeDescription("title", .string)
        RelationshipDescription("author", to: "Author", inverse: "books")
      }
    }
  }

  /// A file of `format` holding the author Ada (bio "old") and her book "Notes".
  static func file(_ format: any StoreFormat, in fixture: DocumentFixture) throws -> URL {
    let url = fixture.url("authors.\(format.fileExtension)")
    let setup = try Document(model: try model(), eventLoop: fixture.loop)
    let ada = try author("Ada", bio: "old", in: setup)
    let book = try setup.context.insertNewObject(forEntityName: "Book")
    try book.setValue("Notes", forKey: "title")
    try book.setValue(ada, forKey: "author")
    fixture.loop.endTurn()
    try setup.save(to: url, format: format)
    return url
  }

  @discardableResult
  static func author(_ name: String, bio: String, in document: Document) throws -> ManagedObject {
    let author = try document.context.insertNewObject(forEntityName: "Author")
    try author.setValue(name, forKey: "name")
    try author.setValue(bio, forKey: "bio")
    return author
  }

  static func open(_ url: URL, _ fixture: DocumentFixture) throws -> Document {
    try Document.open(
      url, model: try model(), formats: OtherWriterTests.formats, eventLoop: fixture.loop)
  }

  /// Each author in the file as `name bio: book titles`.
  static func authors(_ url: URL, _ fixture: DocumentFixture) throws -> [String] {
    let document = try open(url, fixture)
    return try document.context.objects(ofEntity: "Author").map { author in
      let books = try author.value(forKey: "books") as? Set<ManagedObject> ?? []
      let titles = try books.compactMap { try $0.value(forKey: "title") as? String }.sorted()
      return
        "\(try author.value(forKey: "name") ?? "-") \(try author.value(forKey: "bio") ?? "-"): \(titles.joined(separator: ", "))"
    }.sorted()
  }

  @Test("a new object merges into the saved one in every store format, its book following")
  func everyFormat() throws {
    for format in OtherWriterTests.formats {
      let fixture = try DocumentFixture()
      defer { fixture.remove() }
      let url = try Self.file(format, in: fixture)
      let document = try Self.open(url, fixture)
      document.context.mergePolicy = .mergeByPropertyObjectTrump
      let id = try #require(try document.context.objects(ofEntity: "Author").first).objectID
      let copy = try Self.author("Ada", bio: "new", in: document)
      let book = try document.context.insertNewObject(forEntityName: "Book")
      try book.setValue("Engine", forKey: "title")
      try book.setValue(copy, forKey: "author")
      fixture.loop.endTurn()
      try document.save()
      #expect(try Self.authors(url, fixture) == ["Ada new: Engine, Notes"], "\(format)")
      let reopened = try Self.open(url, fixture)
      #expect(
        try reopened.context.objects(ofEntity: "Author").map(\.objectID.uriRepresentation)
          == [id.uriRepresentation], "\(format)")
    }
  }

  @Test(
    "another process's save of the same unique values: merged under object-trump, refused under error"
  )
  func otherWriter() throws {
    for format in OtherWriterTests.formats {
      for policy in [MergePolicy.mergeByPropertyObjectTrump, .error] {
        let fixture = try DocumentFixture()
        defer { fixture.remove() }
        let url = try Self.file(format, in: fixture)
        let first = try Self.open(url, fixture)
        let second = try Self.open(url, fixture)
        second.context.mergePolicy = policy
        try Self.author("Grace", bio: "theirs", in: first)
        let mine = try Self.author("Grace", bio: "mine", in: second)
        fixture.loop.endTurn()
        try first.save()
        if policy == .error {
          let error = try #require(throws: GraphError.self, "\(format)") { try second.save() }
          let failure = try #require(error.failures.first { $0.rule == .uniqueness })
          #expect(failure.objectID == mine.objectID, "\(format)")
          #expect(
            try Self.authors(url, fixture) == ["Ada old: Notes", "Grace theirs: "], "\(format)")
        } else {
          try second.save()
          #expect(
            try Self.authors(url, fixture) == ["Ada old: Notes", "Grace mine: "], "\(format)")
          #expect(second.context.brokenInvariants() == [], "\(format)")
          #expect(
            try second.context.objects(ofEntity: "Author").count == 2, "\(format) \(policy)")
        }
      }
    }
  }
}
