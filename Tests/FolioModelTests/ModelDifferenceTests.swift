import Foundation
import Testing

@testable import FolioModel

@Suite("Model differences and lightweight migration")
struct ModelDifferenceTests {
  /// Version 1: a shelf of books by authors, and notes.
  static func version1() throws -> ManagedObjectModel {
    try ManagedObjectModel {
      EntityDescription("Book") {
        AttributeDescription("title", .string, isOptional: false)
        AttributeDescription("pages", .integer16)
        AttributeDescription("isbn", .string)
        AttributeDescription("price", .double)
        AttributeDescription("color", .string)
        RelationshipDescription("author", to: "Author", inverse: "books")
        RelationshipDescription("tags", to: "Tag", inverse: "books", toMany: true)
      }
      EntityDescription("Author") {
        AttributeDescription("name", .string)
        RelationshipDescription("books", to: "Book", inverse: "author", toMany: true)
      }
      EntityDescription("Tag") {
        AttributeDescription("name", .string)
        RelationshipDescription("books", to: "Book", inverse: "tags", toMany: true)
      }
      EntityDescription("Note") {
        AttributeDescription("text", .string)
      }
    }
  }

  @Test("what Core Data documents as inferable is inferred")
  func inferredChanges() throws {
    var color = AttributeDescription("hexColor", .string)
    color.renamingIdentifier = "color"
    var writer = EntityDescription("Writer") {
      AttributeDescription("name", .string)
      RelationshipDescription("books", to: "Book", inverse: "author", toMany: true)
    }
    writer.renamingIdentifier = "Author"
    let new = try ManagedObjectModel {
      EntityDescription("Item", isAbstract: true) {
        AttributeDescription("title", .string)
      }
      EntityDescription("Book", parent: "Item") {
        AttributeDescription("pages", .integer32)
        AttributeDescription("price", .double, isOptional: false, defaultValue: .double(0))
        color
        AttributeDescription("subtitle", .string)
        RelationshipDescription("author", to: "Writer", inverse: "books", toMany: true)
        RelationshipDescription("tags", to: "Tag", inverse: "books", toMany: true, ordered: true)
      }
      writer
      EntityDescription("Tag") {
        AttributeDescription("name", .string)
        RelationshipDescription("books", to: "Book", inverse: "tags", toMany: true)
      }
    }
    let difference = ModelDifference(from: try Self.version1(), to: new)
    #expect(difference.isInferable, "\(difference.refusals)")
    #expect(difference.sourceEntityNames == ["Book": "Book", "Writer": "Author", "Tag": "Tag"])
    let found = Set(difference.changes.map { "\($0)" })
    let expected: Set<String> = [
      "Item: entity added (inferred)",
      "Book: parent changed from none to Item (inferred)",
      "Book.author: to-one became to-many (inferred)",
      "Book.hexColor: renamed from color (inferred)",
      "Book.isbn: removed (inferred)",
      "Book.pages: type changed from Integer 16 to Integer 32 (inferred)",
      "Book.price: became required (inferred)",
      "Book.subtitle: added (inferred)",
      "Book.tags: became ordered (inferred)",
      "Book.title: became optional (inferred)",
      "Writer: entity renamed from Author (inferred)",
      "Note: entity removed (inferred)",
    ]
    #expect(found == expected, "\(found.symmetricDifference(expected).sorted())")
  }

  @Test("a change Core Data cannot infer is refused, naming the entity, the property and why")
  func refusedChanges() throws {
    let new = try ManagedObjectModel {
      EntityDescription("Book") {
        AttributeDescription("title", .integer32, isOptional: false, defaultValue: .integer(0))
        AttributeDescription("pages", .integer16, isOptional: false)
        AttributeDescription("isbn", .string)
        AttributeDescription("price", .double)
        AttributeDescription("code", .string, isOptional: false)
        RelationshipDescription("color", to: "Tag")
        RelationshipDescription("author", to: "Note")
        RelationshipDescription("tags", to: "Tag", inverse: "books")
      }
      EntityDescription("Author", isAbstract: true) {
        AttributeDescription("name", .string)
      }
      EntityDescription("Tag") {
        AttributeDescription("name", .string)
        RelationshipDescription("books", to: "Book", inverse: "tags", toMany: true)
      }
      EntityDescription("Note", parent: "Tag") {
        AttributeDescription("text", .string)
      }
    }
    let difference = ModelDifference(from: try Self.version1(), to: new)
    #expect(!difference.isInferable)
    let refused = Dictionary(
      difference.refusals.map { ("\($0.entity).\($0.property ?? "")", $0.refusal ?? "") },
      uniquingKeysWith: { a, b in a + "; " + b })
    #expect(refused["Book.title"] == "values of type String do not convert to Integer 32")
    #expect(
      refused["Book.pages"]
        == "existing objects have no value for a required attribute without a default")
    #expect(
      refused["Book.code"]
        == "existing objects have no value for a required attribute without a default")
    #expect(
      refused["Book.color"] == "an attribute's values cannot become a relationship's, or back")
    #expect(refused["Book.author"] == "its targets are objects of another entity")
    #expect(refused["Book.tags"] == "objects with several targets would keep one of them")
    #expect(refused["Author."] == "its objects would belong to an entity that can have none")
    #expect(
      refused["Note."] == "it joins entities of separate hierarchies (Note, Tag) in one")
    #expect(refused.count == 8, "\(refused)")
  }

  @Test("the same model, or one differing only in what is not stored, has no changes")
  func noChanges() throws {
    let model = try Self.version1()
    #expect(ModelDifference(from: model, to: model).changes.isEmpty)
  }

  @Test("a renaming identifier kept from an earlier rename matches the same identifier")
  func keptRenamingIdentifier() throws {
    // Both versions keep the identifiers of a rename made before them, as Xcode does.
    func version(withProduct: Bool) throws -> ManagedObjectModel {
      var metadata = EntityDescription("MetaData") {
        AttributeDescription("key", .string)
        RelationshipDescription("order", to: "Order", inverse: "customFields")
      }
      metadata.renamingIdentifier = "OrderMetaData"
      var value = AttributeDescription("value", .string)
      value.renamingIdentifier = "text"
      metadata.attributes.append(value)
      return try ManagedObjectModel {
        metadata
        EntityDescription("Order") {
          RelationshipDescription("customFields", to: "MetaData", inverse: "order", toMany: true)
        }
        if withProduct { EntityDescription("Product") {} }
      }
    }
    let difference = ModelDifference(
      from: try version(withProduct: false), to: try version(withProduct: true))
    #expect(difference.sourceEntityNames["MetaData"] == "MetaData")
    #expect(difference.sourcePropertyNames["MetaData"]?["value"] == "value")
    #expect(difference.changes.map(\.description) == ["Product: entity added (inferred)"])
  }
}
