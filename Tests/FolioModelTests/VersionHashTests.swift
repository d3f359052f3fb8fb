import FolioTestSupport
import Foundation
import Testing

@testable import FolioModel

/// A change to a model, and whether it changes the stored shape.
struct ModelEdit: CustomTestStringConvertible, Sendable {
  var id: String
  var changesShape: Bool
  var edit: @Sendable (inout [EntityDescription]) -> Void
  var testDescription: String { id }
}

/// A two-entity model to edit: Person with attributes, Spending, and a relationship pair.
func hashBase() -> [EntityDescription] {
  var person = EntityDescription("Person") {
    AttributeDescription("name", .string, isOptional: false)
    AttributeDescription("age", .integer16)
    RelationshipDescription("spendings", to: "Spending", inverse: "person", toMany: true)
  }
  person.representedClassName = "Person"
  let spending = EntityDescription("Spending") {
    AttributeDescription("amount", .double)
    RelationshipDescription("person", to: "Person", inverse: "spendings")
  }
  return [person, spending]
}

@Suite("Version hashes")
struct VersionHashTests {
  @Test("the same model always hashes the same")
  func deterministic() throws {
    let first = try ManagedObjectModel(entities: hashBase())
    let second = try ManagedObjectModel(entities: hashBase())
    #expect(first.versionHash == second.versionHash)
    #expect(first.versionHash.count == 32)
    #expect(first.entityVersionHashesByName == second.entityVersionHashesByName)
    #expect(first.entity(named: "Person")?.attributes.first?.versionHash.count == 32)
  }

  @Test("entity order does not change the model's hash")
  func orderIndependent() throws {
    let forward = try ManagedObjectModel(entities: hashBase())
    let backward = try ManagedObjectModel(entities: hashBase().reversed())
    #expect(forward.versionHash == backward.versionHash)
  }

  static let edits: [ModelEdit] = [
    ModelEdit(id: "renaming an attribute", changesShape: true) {
      $0[0].attributes[0].name = "fullName"
    },
    ModelEdit(id: "changing an attribute's type", changesShape: true) {
      $0[0].attributes[1].attributeType = .integer32
    },
    ModelEdit(id: "making an attribute optional", changesShape: true) {
      $0[0].attributes[0].isOptional = true
    },
    ModelEdit(id: "making an attribute transient", changesShape: true) {
      $0[0].attributes[1].isTransient = true
    },
    ModelEdit(id: "adding an attribute", changesShape: true) {
      $0[0].attributes.append(AttributeDescription("email", .string))
    },
    ModelEdit(id: "an attribute's version hash modifier", changesShape: true) {
      $0[0].attributes[0].versionHashModifier = "v2"
    },
    ModelEdit(id: "an entity's version hash modifier", changesShape: true) {
      $0[0].versionHashModifier = "v2"
    },
    ModelEdit(id: "making an entity abstract", changesShape: true) { $0[1].isAbstract = true },
    ModelEdit(id: "ordering a to-many relationship", changesShape: true) {
      $0[0].relationships[0].isOrdered = true
    },
    ModelEdit(id: "a relationship's maximum count", changesShape: true) {
      $0[0].relationships[0].maxCount = 10
    },
    ModelEdit(id: "a default value", changesShape: false) {
      $0[0].attributes[1].defaultValue = .integer(18)
    },
    ModelEdit(id: "a minimum value", changesShape: false) {
      $0[0].attributes[1].minimumValue = .integer(0)
    },
    ModelEdit(id: "a delete rule", changesShape: false) {
      $0[0].relationships[0].deleteRule = .cascade
    },
    ModelEdit(id: "the represented class", changesShape: false) {
      $0[0].representedClassName = "PersonMO"
    },
    ModelEdit(id: "user info", changesShape: false) { $0[0].userInfo = ["key": "value"] },
    ModelEdit(id: "an index flag", changesShape: false) { $0[0].attributes[0].isIndexed = true },
    ModelEdit(id: "a renaming identifier", changesShape: false) {
      $0[0].attributes[0].renamingIdentifier = "old"
    },
  ]

  @Test("only changes to the stored shape change the hashes", arguments: edits)
  func shapeChanges(_ edit: ModelEdit) throws {
    let before = try ManagedObjectModel(entities: hashBase())
    var entities = hashBase()
    edit.edit(&entities)
    let after = try ManagedObjectModel(entities: entities)
    #expect((before.versionHash != after.versionHash) == edit.changesShape)
  }

  @Test("a parent's change reaches its subentities' hashes")
  func parentChangeReachesChildren() throws {
    func model(parentAttribute: String) throws -> ManagedObjectModel {
      try ManagedObjectModel {
        EntityDescription("Base") { AttributeDescription(parentAttribute, .string) }
        EntityDescription("Derived", parent: "Base") { AttributeDescription("extra", .string) }
        EntityDescription("Other") { AttributeDescription("x", .string) }
      }
    }
    let before = try model(parentAttribute: "a")
    let after = try model(parentAttribute: "b")
    #expect(
      before.entity(named: "Derived")?.versionHash != after.entity(named: "Derived")?.versionHash)
    #expect(before.entity(named: "Other")?.versionHash == after.entity(named: "Other")?.versionHash)
  }

  @Test("a model loaded from Xcode's file hashes like the same model built in code")
  func fileAndCodeAgree() throws {
    let loaded = try ManagedObjectModel(contentsOf: Paths.sample("Expenses"))
    let built = try ManagedObjectModel {
      EntityDescription("Person") {
        AttributeDescription("name", .string, isOptional: false)
        RelationshipDescription(
          "spendings", to: "Spending", inverse: "person", toMany: true, deleteRule: .cascade)
      }
      EntityDescription("Spending") {
        AttributeDescription("amount", .double, isOptional: false)
        AttributeDescription("content", .string)
        AttributeDescription("date", .date)
        RelationshipDescription("person", to: "Person", inverse: "spendings")
      }
    }
    #expect(loaded.versionHash == built.versionHash)
  }

  @Test("the encoding is pinned: a known model hashes to a known digest")
  func pinnedEncoding() throws {
    // Recomputed by hand from Formats/xcdatamodel.md's byte layout; a change here is a format
    // change and breaks every store's recorded hashes.
    var hasher = VersionHasher(kind: "attribute")
    hasher.string("name")
    hasher.flag(true)
    hasher.flag(false)
    hasher.flag(false)
    hasher.string("String")
    hasher.string(nil)
    var expected: [UInt8] = [0x03, 0, 0, 0, 9] + Array("attribute".utf8)
    expected += [0x03, 0, 0, 0, 4] + Array("name".utf8)
    expected += [0x01, 1, 0x01, 0, 0x01, 0]
    expected += [0x03, 0, 0, 0, 6] + Array("String".utf8)
    expected += [0x00]
    #expect(hasher.finalize() == SHA256.hash(expected))
    let attribute = AttributeDescription("name", .string)
    var memberHashes: [String: [Data]] = [:]
    #expect(
      VersionHasher.hash(of: attribute, composites: [:], memberHashes: &memberHashes)
        == SHA256.hash(expected))
  }

  /// Each composite's members are hashed once, not once per path through the composites: with
  /// three members of the next composite on each of 30 levels, hashing per path would hash
  /// 3^29 leaves (a model of 24 levels took more than a minute before the fix).
  @Test("composites that share a composite are hashed once each", .timeLimit(.minutes(1)))
  func sharedCompositesHashOnce() throws {
    let model = try CompositeModels.nested(levels: 30, width: 3)
    #expect(model.entities[0].attributes[0].versionHash.count == 32)
  }

  /// Folio's earlier hash of an attribute whose composite's members share a composite (the
  /// model's own hash is still built from these) is built from each member's own hash, as the
  /// format says, whether or not the members' hashes were computed before.
  @Test("a shared composite's members count in every member that holds it")
  func sharedCompositeHash() throws {
    let model = try CompositeModels.nested(levels: 2, width: 2)
    func attributeHash(_ name: String, composite: String?, members: [Data]) -> Data {
      var hasher = VersionHasher(kind: "attribute")
      hasher.string(name)
      hasher.flag(true)
      hasher.flag(false)
      hasher.flag(false)
      hasher.string(composite == nil ? "String" : "Composite")
      hasher.string(nil)
      if let composite {
        hasher.string(composite)
        for member in members { hasher.hash(member) }
      }
      return hasher.finalize()
    }
    let leaf = attributeHash("leaf", composite: nil, members: [])
    let member0 = attributeHash("m0", composite: "C1", members: [leaf])
    let member1 = attributeHash("m1", composite: "C1", members: [leaf])
    let expected = attributeHash("c", composite: "C0", members: [member0, member1])
    let composites = Dictionary(uniqueKeysWithValues: model.composites.map { ($0.name, $0) })
    var memberHashes: [String: [Data]] = [:]
    let computed = VersionHasher.hash(
      of: model.entities[0].attributes[0], composites: composites, memberHashes: &memberHashes)
    #expect(computed == expected)
  }
}
