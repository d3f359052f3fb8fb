import FolioMigration
import FolioModel
import FolioStores
import FolioTestSupport
import Foundation
import Testing

/// Version 1 of a library: books by one author each, tagged, and notes.
func libraryVersion1() throws -> ManagedObjectModel {
  try ManagedObjectModel {
    EntityDescription("Book") {
      AttributeDescription("title", .string, isOptional: false)
      AttributeDescription("pages", .integer16)
      AttributeDescription("color", .string)
      AttributeDescription("price", .float)
      AttributeDescription("rating", .integer16)
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

/// Version 2: widened numbers, a renamed attribute and entity, a rating made required with a
/// default, a new attribute, books with several authors, notes gone, shelves new.
func libraryVersion2() throws -> ManagedObjectModel {
  var color = AttributeDescription("hexColor", .string)
  color.renamingIdentifier = "color"
  var writer = EntityDescription("Writer") {
    AttributeDescription("name", .string)
    RelationshipDescription("books", to: "Book", inverse: "authors", toMany: true)
  }
  writer.renamingIdentifier = "Author"
  var authors = RelationshipDescription("authors", to: "Writer", inverse: "books", toMany: true)
  authors.renamingIdentifier = "author"
  return try ManagedObjectModel {
    EntityDescription("Book") {
      AttributeDescription("title", .string, isOptional: false)
      AttributeDescription("pages", .integer64)
      color
      AttributeDescription("price", .double)
      AttributeDescription("rating", .integer16, isOptional: false, defaultValue: .integer(3))
      AttributeDescription("subtitle", .string)
      authors
      RelationshipDescription("tags", to: "Tag", inverse: "books", toMany: true, ordered: true)
    }
    writer
    EntityDescription("Tag") {
      AttributeDescription("name", .string)
      RelationshipDescription("books", to: "Book", inverse: "tags", toMany: true)
    }
    EntityDescription("Shelf") {
      AttributeDescription("label", .string)
    }
  }
}

/// Version 3: books and magazines under an abstract Item that now holds the title.
func libraryVersion3() throws -> ManagedObjectModel {
  try ManagedObjectModel {
    EntityDescription("Item", isAbstract: true) {
      AttributeDescription("title", .string, isOptional: false)
    }
    EntityDescription("Book", parent: "Item") {
      AttributeDescription("pages", .integer64)
      AttributeDescription("hexColor", .string)
      AttributeDescription("price", .double)
      AttributeDescription("rating", .integer16, isOptional: false, defaultValue: .integer(3))
      AttributeDescription("subtitle", .string)
      RelationshipDescription("authors", to: "Writer", inverse: "books", toMany: true)
      RelationshipDescription("tags", to: "Tag", inverse: "books", toMany: true, ordered: true)
    }
    EntityDescription("Magazine", parent: "Item") {
      AttributeDescription("issue", .integer32)
    }
    EntityDescription("Writer") {
      AttributeDescription("name", .string)
      RelationshipDescription("books", to: "Book", inverse: "authors", toMany: true)
    }
    EntityDescription("Tag") {
      AttributeDescription("name", .string)
      RelationshipDescription("books", to: "Book", inverse: "tags", toMany: true)
    }
    EntityDescription("Shelf") {
      AttributeDescription("label", .string)
    }
  }
}

/// Records of version 1: two books by Ada (one without a rating), one tag on both, a note.
func libraryRecords() -> [StoreRecord] {
  [
    StoreRecord(
      entityName: "Book", id: 1,
      attributes: [
        "title": .string("Engines"), "pages": .integer(300), "color": .string("#ff0000"),
        "price": .float(12.5), "rating": .integer(5),
      ],
      relationships: ["author": [3], "tags": [4]]),
    StoreRecord(
      entityName: "Book", id: 2, attributes: ["title": .string("Notes"), "pages": .integer(120)],
      relationships: ["author": [3], "tags": [4]]),
    StoreRecord(
      entityName: "Author", id: 3, attributes: ["name": .string("Ada")],
      relationships: ["books": [1, 2]]),
    StoreRecord(
      entityName: "Tag", id: 4, attributes: ["name": .string("maths")],
      relationships: ["books": [1, 2]]),
    StoreRecord(entityName: "Note", id: 5, attributes: ["text": .string("read soon")]),
  ]
}

func byID(_ records: [StoreRecord]) -> [Int64: StoreRecord] {
  Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
}

@Suite("Migrating records")
struct MigrationTests {
  func migrate(
    _ records: [StoreRecord], from old: ManagedObjectModel, to new: ManagedObjectModel
  ) throws -> [Int64: StoreRecord] {
    let mapping = try MappingModel.inferred(from: old, to: new)
    let manager = MigrationManager(sourceModel: old, destinationModel: new, mappingModel: mapping)
    let contents = StoreContents(metadata: StoreMetadata(storeType: "Test"), records: records)
    return byID(try manager.migrate(contents).records)
  }

  @Test(
    "an inferred migration widens numbers, follows renames, fills defaults and drops what is gone")
  func inferredStep() throws {
    let migrated = try migrate(libraryRecords(), from: libraryVersion1(), to: libraryVersion2())
    #expect(migrated.count == 4)
    let engines = try #require(migrated[1])
    #expect(engines.entityName == "Book")
    #expect(engines.attribute("pages") == .integer(300))
    #expect(engines.attribute("hexColor") == .string("#ff0000"))
    #expect(engines.attribute("color") == nil)
    #expect(engines.attribute("price") == .double(12.5))
    #expect(engines.attribute("rating") == .integer(5))
    #expect(engines.attribute("subtitle") == nil)
    #expect(engines.relationships["authors"] == [3])
    #expect(engines.relationships["tags"] == [4])
    // The book without a rating takes the default of the now required attribute.
    #expect(migrated[2]?.attribute("rating") == .integer(3))
    let ada = try #require(migrated[3])
    #expect(ada.entityName == "Writer")
    #expect(ada.attribute("name") == .string("Ada"))
    #expect(Set(ada.relationships["books"] ?? []) == [1, 2])
    #expect(Set(migrated[4]?.relationships["books"] ?? []) == [1, 2])
    #expect(migrated[5] == nil)
  }

  @Test("a property moved up into a new abstract parent keeps its values")
  func newParent() throws {
    let second = try migrate(libraryRecords(), from: libraryVersion1(), to: libraryVersion2())
    let third = try migrate(Array(second.values), from: libraryVersion2(), to: libraryVersion3())
    #expect(third[1]?.entityName == "Book")
    #expect(third[1]?.attribute("title") == .string("Engines"))
    #expect(third[2]?.attribute("title") == .string("Notes"))
    #expect(third.values.filter { $0.entityName == "Magazine" }.isEmpty)
  }

  @Test("a change a lightweight migration cannot make is refused, naming the entity and property")
  func refusal() throws {
    let new = try ManagedObjectModel {
      EntityDescription("Book") {
        AttributeDescription("title", .string, isOptional: false)
        AttributeDescription("pages", .string)
      }
    }
    let old = try libraryVersion1()
    do {
      _ = try MappingModel.inferred(from: old, to: new)
      Issue.record("the mapping was inferred")
    } catch {
      #expect(error.code == .needsMapping)
      #expect(error.location?.entity == "Book")
      #expect(error.location?.property == "pages")
      #expect(error.message.contains("Integer 16"))
    }
  }

  @Test("a migrated value the destination refuses fails with every object named")
  func invalidValues() throws {
    // Books made to need a subtitle with no default: an inferred mapping refuses that, so a
    // mapping written by hand leaves it empty.
    let new = try ManagedObjectModel {
      EntityDescription("Book") {
        AttributeDescription("title", .string, isOptional: false)
        AttributeDescription("subtitle", .string, isOptional: false)
      }
    }
    let old = try libraryVersion1()
    let mapping = MappingModel(entityMappings: [
      EntityMapping(
        name: "BookToBook", mappingType: .transform, sourceEntityName: "Book",
        destinationEntityName: "Book",
        attributeMappings: [
          PropertyMapping(name: "title", valueExpression: .keyPath(.variable("source"), "title")),
          PropertyMapping(name: "subtitle", valueExpression: nil),
        ])
    ])
    let manager = MigrationManager(sourceModel: old, destinationModel: new, mappingModel: mapping)
    do {
      _ = try manager.migrate(
        StoreContents(metadata: StoreMetadata(storeType: "Test"), records: libraryRecords()))
      Issue.record("the migration succeeded")
    } catch {
      #expect(error.code == .invalidValue)
      #expect(error.message.hasPrefix("2 migrated values do not fit"))
      #expect(error.message.contains("Book.subtitle of object 1"))
      #expect(error.message.contains("Book.subtitle of object 2"))
      #expect(error.location?.property == "subtitle")
    }
  }

  @Test("a value expression of the wrong type for its attribute is an error naming both")
  func wrongType() throws {
    let old = try libraryVersion1()
    let new = try ManagedObjectModel {
      EntityDescription("Book") {
        AttributeDescription("title", .string, isOptional: false)
        AttributeDescription("pages", .integer16)
      }
    }
    let mapping = MappingModel(entityMappings: [
      EntityMapping(
        name: "BookToBook", mappingType: .transform, sourceEntityName: "Book",
        destinationEntityName: "Book",
        attributeMappings: [
          PropertyMapping(name: "title", valueExpression: .keyPath(.variable("source"), "title")),
          PropertyMapping(name: "pages", valueExpression: .keyPath(.variable("source"), "title")),
        ])
    ])
    let manager = MigrationManager(sourceModel: old, destinationModel: new, mappingModel: mapping)
    #expect {
      _ = try manager.migrate(
        StoreContents(metadata: StoreMetadata(storeType: "Test"), records: libraryRecords()))
    } throws: { error in
      guard let error = error as? MigrationError else { return false }
      return error.code == .invalidValue
        && error.message.contains("Engines does not fit Book.pages")
    }
  }
}

@Suite("Mapping expressions, filters and policies")
struct MappedMigrationTests {
  /// Version 1 to a version with authors' book counts, shelves of each tag's books, and
  /// prices with tax.
  static func destination() throws -> ManagedObjectModel {
    try ManagedObjectModel {
      EntityDescription("Book") {
        AttributeDescription("title", .string, isOptional: false)
        AttributeDescription("byline", .string)
        AttributeDescription("gross", .double)
        AttributeDescription("migrated", .date)
        AttributeDescription("kind", .string)
        RelationshipDescription("shelf", to: "Shelf", inverse: "books")
      }
      EntityDescription("Shelf") {
        AttributeDescription("label", .string)
        AttributeDescription("size", .integer32)
        RelationshipDescription("books", to: "Book", inverse: "shelf", toMany: true)
      }
    }
  }

  func mapping() throws -> MappingModel {
    MappingModel(entityMappings: [
      EntityMapping(
        name: "BookToBook", mappingType: .transform, sourceEntityName: "Book",
        destinationEntityName: "Book", sourceFilterPredicate: "pages > 100",
        attributeMappings: [
          PropertyMapping(
            name: "title", valueExpression: try MappingExpression(format: "$source.title")),
          PropertyMapping(
            name: "byline", valueExpression: try MappingExpression(format: "$source.author.name")),
          PropertyMapping(
            name: "gross", valueExpression: try MappingExpression(format: "$source.price * 1.25")),
          PropertyMapping(
            name: "migrated", valueExpression: try MappingExpression(format: "now()")),
          PropertyMapping(name: "kind", valueExpression: try MappingExpression(format: "\"book\"")),
        ],
        relationshipMappings: [
          PropertyMapping(
            name: "shelf",
            valueExpression: try MappingExpression(
              format:
                "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"TagToShelf\", $source.tags)"
            ))
        ]),
      EntityMapping(
        name: "TagToShelf", mappingType: .custom, sourceEntityName: "Tag",
        destinationEntityName: "Shelf",
        attributeMappings: [
          PropertyMapping(
            name: "label", valueExpression: try MappingExpression(format: "$source.name")),
          PropertyMapping(
            name: "size",
            valueExpression: try MappingExpression(
              format: "FUNCTION($entityPolicy, \"countOf:\", $source.books)")),
        ],
        migrationPolicyClassName: "Library.ShelfPolicy"),
    ])
  }

  /// Makes each shelf's label upper case after the default stage, and counts its calls.
  final class ShelfPolicy: EntityMigrationPolicy {
    /// The calls of `end`, by the manager that made them: tests running at the same time
    /// count apart.
    nonisolated(unsafe) private static var endsByManager: [ObjectIdentifier: Int] = [:]
    private static let lock = NSLock()

    static func ends(of manager: MigrationManager) -> Int {
      lock.withLock { endsByManager[ObjectIdentifier(manager)] ?? 0 }
    }

    override func createDestinationInstances(
      forSource source: MigrationSourceObject, in mapping: EntityMapping,
      manager: MigrationManager
    ) throws(MigrationError) {
      try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
      for shelf in manager.destinationInstances(
        forEntityMappingNamed: mapping.name, sourceInstances: [source])
      {
        if case .string(let label)? = shelf.attribute("label") {
          try shelf.setAttribute(.string(label.uppercased()), forKey: "label")
        }
      }
    }

    override func end(_ mapping: EntityMapping, manager: MigrationManager) throws(MigrationError) {
      Self.lock.withLock { Self.endsByManager[ObjectIdentifier(manager), default: 0] += 1 }
    }

    /// `FUNCTION($entityPolicy, "countOf:", objects)`: how many objects.
    override func value(ofFunction selector: String, arguments: [Any?], manager: MigrationManager)
      throws(MigrationError) -> Any?
    {
      guard selector == "countOf:", let objects = arguments.first as? [MigrationSourceObject] else {
        return try super.value(ofFunction: selector, arguments: arguments, manager: manager)
      }
      return objects.count
    }
  }

  @Test(
    "value expressions, a filter, an entity mapping function and a custom policy with a function")
  func mapped() throws {
    let manager = MigrationManager(
      sourceModel: try libraryVersion1(), destinationModel: try Self.destination(),
      mappingModel: try mapping())
    manager.register(ShelfPolicy.self, as: "Library.ShelfPolicy")
    // A manager at the address of one gone may find its count: the call is counted as a step.
    let before = ShelfPolicy.ends(of: manager)
    let migrated = byID(
      try manager.migrate(
        StoreContents(metadata: StoreMetadata(storeType: "Test"), records: libraryRecords())
      ).records)
    // Both books have more than 100 pages; the author and the note are not mapped.
    #expect(migrated.values.filter { $0.entityName == "Book" }.count == 2)
    let engines = try #require(migrated[1])
    #expect(engines.attribute("byline") == .string("Ada"))
    #expect(engines.attribute("gross") == .double(15.625))
    #expect(engines.attribute("kind") == .string("book"))
    guard case .date(let date)? = engines.attribute("migrated") else {
      Issue.record("no migration date")
      return
    }
    #expect(abs(date.timeIntervalSinceNow) < 60)
    #expect(migrated[2]?.attribute("gross") == nil)
    let shelf = try #require(migrated.values.first { $0.entityName == "Shelf" })
    #expect(shelf.attribute("label") == .string("MATHS"))
    #expect(shelf.attribute("size") == .integer(2))
    #expect(Set(shelf.relationships["books"] ?? []) == [1, 2])
    #expect(engines.relationships["shelf"] == [shelf.id])
    #expect(ShelfPolicy.ends(of: manager) == before + 1)
  }

  @Test("a filter leaves out the source objects it does not match")
  func filtered() throws {
    var model = try mapping()
    model.entityMappings[0].sourceFilterPredicate = "pages > 200"
    let manager = MigrationManager(
      sourceModel: try libraryVersion1(), destinationModel: try Self.destination(),
      mappingModel: model)
    manager.register(ShelfPolicy.self, as: "Library.ShelfPolicy")
    let migrated = try manager.migrate(
      StoreContents(metadata: StoreMetadata(storeType: "Test"), records: libraryRecords()))
    let books = migrated.records.filter { $0.entityName == "Book" }
    #expect(books.map(\.id) == [1])
    let shelf = try #require(migrated.records.first { $0.entityName == "Shelf" })
    #expect(shelf.relationships["books"] == [1])
  }

  @Test("a mapping naming a policy no type is registered for fails before anything runs")
  func missingPolicy() throws {
    let manager = MigrationManager(
      sourceModel: try libraryVersion1(), destinationModel: try Self.destination(),
      mappingModel: try mapping())
    #expect {
      _ = try manager.migrate(
        StoreContents(metadata: StoreMetadata(storeType: "Test"), records: libraryRecords()))
    } throws: { error in
      guard let error = error as? MigrationError else { return false }
      return error.code == .missingPolicy && error.message.contains("Library.ShelfPolicy")
    }
  }
}
