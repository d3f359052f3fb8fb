import FolioData
import FolioGraph
import FolioModel
import FolioSQLiteStore
import FolioTestSupport
import Foundation
import Testing

// The model classes of a SwiftData app, as its repository has them at the commit whose store
// the version hashes below come from (github.com/sergd2005/ResourcesManager, 54f311d,
// `default.store`, written by SwiftData: NSPersistenceFrameworkVersion 1345). Only `id` differs:
// the app declares it `let id = UUID()`, which SwiftData stores and @Model can only store as a
// `var`.

@Model final class Item {
  @Attribute(.unique) var name: String
  var craftingRecipe: CraftingRecipe?

  init(name: String) { self.name = name }
}

@Model final class Component {
  var id = UUID()
  var count: Int = 1
  var item: Item?
  var craftingRecipe: CraftingRecipe?

  init() {}
}

@Model final class CraftingRecipe {
  var requiredComponents: [Component] = []
  var producedItemCount = "1"
  var producedItem: Item?

  init(producedItem: Item? = nil, producedItemCount: String = "") {
    self.producedItem = producedItem
    self.producedItemCount = producedItemCount
  }
}

@Suite("The classes of a SwiftData app make the model SwiftData made of them")
struct SwiftDataStoreTests {
  @Test("the version hashes are those SwiftData wrote in the app's store")
  func versionHashes() throws {
    // NSStoreModelVersionHashes of the store's metadata (base64).
    let swiftData = [
      "Item": "aDosZj1R/mD7pBZf63kAh77Ycdg3umToHrHog2QowqU=",
      "Component": "/IAgOoozmxSP0LbDsOWGomBZFWPPZ4CkBuafGKafhAY=",
      "CraftingRecipe": "rMbIICaQP9i9dKOWWYj/uEDAeUEZzMnWs2Cgp1MQRhc=",
    ]
    let model = try Schema(Item.self, Component.self, CraftingRecipe.self).managedObjectModel()
    let hashes = model.entityVersionHashesByName.mapValues { $0.base64EncodedString() }
    #expect(hashes == swiftData)
  }

  @Test("the entities are those SwiftData cached in the store: inverses, defaults, optionality")
  func entities() throws {
    let model = try Schema(Item.self, Component.self, CraftingRecipe.self).managedObjectModel()
    let recipe = try #require(model.entity(named: "CraftingRecipe"))
    // An initial value with no written type: a String attribute with that default.
    let count = try #require(recipe.attribute(named: "producedItemCount"))
    #expect(count.attributeType == .string && count.defaultValue == .string("1"))
    #expect(!count.isOptional)
    // A to-many relationship that is not optional, as SwiftData's cached model has it.
    let components = try #require(recipe.relationship(named: "requiredComponents"))
    #expect(components.isToMany && !components.isOptional)
    #expect(components.inverseName == "craftingRecipe")
    #expect(recipe.relationship(named: "producedItem")?.inverseName == "craftingRecipe")
    // Component.item has no relationship back from Item: no inverse.
    let component = try #require(model.entity(named: "Component"))
    #expect(component.relationship(named: "item")?.inverseName == nil)
    #expect(component.attribute(named: "id")?.attributeType == .uuid)
    #expect(model.entity(named: "Item")?.uniquenessConstraints == [["name"]])
  }

  @Test("a SQLite store keeps persistent history, as SwiftData's do: a new one and an old one")
  func history() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("default.store")
    let schema = Schema(Item.self, Component.self, CraftingRecipe.self)
    do {
      let context = ModelContext(
        try ModelContainer(for: schema, configurations: [ModelConfiguration(url: url)]))
      context.insert(Item(name: "plank"))
      try context.save()
      #expect(try SQLiteStore().tracksHistory(at: url))
      context.insert(CraftingRecipe(producedItem: Item(name: "door"), producedItemCount: "2"))
      try context.save()
    }
    let model = try schema.managedObjectModel()
    let transactions = try SQLiteStore().fetchHistory(after: nil, from: url, model: model)
    let changed = transactions.flatMap(\.changes).map(\.entityName).sorted()
    // The second save, the recipe and the door; the first wrote the new store whole.
    #expect(changed == ["CraftingRecipe", "Item"])
    // A store written without history gains it when a container opens it.
    let old = folder.appendingPathComponent("old.store")
    do {
      let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
      try coordinator.addPersistentStore(at: old, format: SQLiteStore())
      let context = try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
      try context.insertNewObject(forEntityName: "Item").setValue("nail", forKey: "name")
      try context.save()
    }
    #expect(try !SQLiteStore().tracksHistory(at: old))
    let context = ModelContext(
      try ModelContainer(for: schema, configurations: [ModelConfiguration(url: old)]))
    #expect(try SQLiteStore().tracksHistory(at: old))
    #expect(try context.fetch(FetchDescriptor<Item>()).map(\.name) == ["nail"])
  }
}
