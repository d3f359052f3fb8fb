import Foundation
import Testing

@testable import FolioModel

/// The Expenses model, built in code.
func expensesModel() throws -> ManagedObjectModel {
  try ManagedObjectModel {
    EntityDescription("Person") {
      AttributeDescription("name", .string, isOptional: false, defaultValue: .string(""))
      RelationshipDescription(
        "spendings", to: "Spending", inverse: "person", toMany: true, deleteRule: .cascade)
    }
    EntityDescription("Spending") {
      AttributeDescription("content", .string)
      AttributeDescription("amount", .double, isOptional: false, defaultValue: .double(0))
      RelationshipDescription("person", to: "Person", inverse: "spendings")
    }
  }
}

@Suite("Building models in code")
struct ModelBuildingTests {
  @Test("a model built in code resolves entities, properties and inverses")
  func buildsExpenses() throws {
    let model = try expensesModel()
    #expect(model.entities.map(\.name) == ["Person", "Spending"])
    let person = try #require(model.entity(named: "Person"))
    let spendings = try #require(person.relationship(named: "spendings"))
    #expect(spendings.isToMany)
    #expect(spendings.maxCount == nil)
    #expect(spendings.deleteRule == .cascade)
    #expect(model.destination(of: spendings)?.name == "Spending")
    let inverse = try #require(model.inverse(of: spendings))
    #expect(inverse.name == "person")
    #expect(!inverse.isToMany)
    #expect(inverse.maxCount == 1)
    #expect(inverse.deleteRule == .nullify)
    #expect(person.attribute(named: "name")?.defaultValue == .string(""))
    #expect(person.attribute(named: "spendings") == nil)
    #expect(model.diagnostics.isEmpty)
  }

  @Test("an entity's properties include its ancestors', ancestors first")
  func inheritance() throws {
    let model = try ManagedObjectModel {
      EntityDescription("Item", isAbstract: true) {
        AttributeDescription("title", .string)
      }
      EntityDescription("Book", parent: "Item") {
        AttributeDescription("pages", .integer32)
      }
      EntityDescription("Comic", parent: "Book") {
        AttributeDescription("artist", .string)
      }
    }
    let comic = try #require(model.entity(named: "Comic"))
    #expect(comic.properties.map(\.name) == ["title", "pages", "artist"])
    #expect(comic.attributes.map(\.name) == ["artist"])
    #expect(comic.attribute(named: "title")?.attributeType == .string)
    #expect(model.entity(named: "Item")?.subentityNames == ["Book"])
    #expect(model.entity(named: "Book")?.subentityNames == ["Comic"])
    #expect(model.entity(named: "Item")?.isAbstract == true)
    #expect(model.ancestorNames(of: comic) == ["Book", "Item"])
    let item = try #require(model.entity(named: "Item"))
    #expect(model.entity(comic, isKindOf: item))
    #expect(!model.entity(item, isKindOf: comic))
  }

  @Test("entities may be declared before their parents")
  func parentsDeclaredLater() throws {
    let model = try ManagedObjectModel {
      EntityDescription("Child", parent: "Parent") { AttributeDescription("b", .string) }
      EntityDescription("Parent") { AttributeDescription("a", .string) }
    }
    #expect(model.entity(named: "Child")?.properties.map(\.name) == ["a", "b"])
  }

  @Test("property lookup is by name across a deep chain")
  func lookupAcrossDeepChain() throws {
    var entities: [EntityDescription] = []
    for level in 0..<50 {
      var entity = EntityDescription("E\(level)", parent: level == 0 ? nil : "E\(level - 1)")
      entity.attributes = (0..<20).map { AttributeDescription("a\(level)_\($0)", .integer64) }
      entities.append(entity)
    }
    let model = try ManagedObjectModel(entities: entities)
    let leaf = try #require(model.entity(named: "E49"))
    #expect(leaf.properties.count == 1000)
    #expect(leaf.property(named: "a0_0")?.name == "a0_0")
    #expect(leaf.property(named: "a49_19")?.name == "a49_19")
    #expect(leaf.propertyIndex.count == 1000)
  }

  @Test("a relationship without an inverse is allowed and reported")
  func missingInverseWarns() throws {
    let model = try ManagedObjectModel {
      EntityDescription("Note") { RelationshipDescription("folder", to: "Folder") }
      EntityDescription("Folder")
    }
    #expect(
      model.diagnostics.map(\.description) == [
        "Note.folder: warning: relationship \"folder\" has no inverse, so changes to it do not reach \"Folder\""
      ])
    #expect(model.diagnostics.first?.kind == .missingInverse)
  }

  @Test("models are Sendable values that cross threads")
  func sendable() async throws {
    let model = try expensesModel()
    let count = await Task.detached { model.entities.count }.value
    #expect(count == 2)
  }

  @Test("uniqueness constraints, indexes, configurations and fetch requests are kept")
  func modelLevelParts() throws {
    var person = EntityDescription("Person") {
      AttributeDescription("first", .string)
      AttributeDescription("last", .string)
      UniquenessConstraint("first", "last")
      FetchIndexDescription("byLast", elements: [.init(property: "last", ascending: false)])
    }
    person.compoundIndexes = [["first", "last"]]
    let model = try ManagedObjectModel(
      entities: [person],
      configurations: [ConfigurationDescription("Local", entityNames: ["Person"])],
      fetchRequestTemplates: [
        FetchRequestTemplate("Smiths", entity: "Person", predicate: "last == 'Smith'")
      ],
      versionIdentifier: "2.0")
    let entity = try #require(model.entity(named: "Person"))
    #expect(entity.uniquenessConstraints == [["first", "last"]])
    #expect(entity.fetchIndexes.first?.elements.first?.isAscending == false)
    #expect(model.configurations.first?.entityNames == ["Person"])
    #expect(model.fetchRequestTemplates.first?.predicateString == "last == 'Smith'")
    #expect(model.versionIdentifier == "2.0")
  }
}

/// A model-building case that must fail: the entities and the exact error.
struct BuildFailure: CustomTestStringConvertible, Sendable {
  var id: String
  var entities: @Sendable () -> [EntityDescription]
  var composites: [CompositeDescription] = []
  var configurations: [ConfigurationDescription] = []
  var code: ModelError.Code
  var message: String
  var testDescription: String { id }
}

@Suite("Model consistency errors")
struct ModelConsistencyTests {
  static let failures: [BuildFailure] = [
    BuildFailure(
      id: "duplicate entity",
      entities: { [EntityDescription("A"), EntityDescription("A")] },
      code: .duplicateName, message: "A: entity \"A\" is defined twice"),
    BuildFailure(
      id: "duplicate property",
      entities: {
        [
          EntityDescription("A") {
            AttributeDescription("x", .string); AttributeDescription("x", .integer16)
          }
        ]
      },
      code: .duplicateProperty, message: "A.x: property \"x\" is defined twice"),
    BuildFailure(
      id: "property repeating an inherited one",
      entities: {
        [
          EntityDescription("Base") { AttributeDescription("x", .string) },
          EntityDescription("Derived", parent: "Base") { AttributeDescription("x", .string) },
        ]
      },
      code: .duplicateProperty,
      message:
        "Derived.x: property \"x\" is defined twice, once here and once in its ancestor \"Base\""),
    BuildFailure(
      id: "unknown parent",
      entities: { [EntityDescription("Book", parent: "Itme"), EntityDescription("Item")] },
      code: .unknownParentEntity,
      message: "Book: parent entity \"Itme\" is not in the model (did you mean \"Item\"?)"),
    BuildFailure(
      id: "inheritance cycle",
      entities: {
        [
          EntityDescription("A", parent: "C"), EntityDescription("B", parent: "A"),
          EntityDescription("C", parent: "B"),
        ]
      },
      code: .inheritanceCycle, message: "A: entity inheritance forms a cycle: A → C → B → A"),
    BuildFailure(
      id: "entity its own parent",
      entities: { [EntityDescription("A", parent: "A")] },
      code: .inheritanceCycle, message: "A: entity inheritance forms a cycle: A → A"),
    BuildFailure(
      id: "unknown destination",
      entities: {
        [
          EntityDescription("Person") { RelationshipDescription("pets", to: "Pett", toMany: true) },
          EntityDescription("Pet"),
        ]
      },
      code: .unknownDestinationEntity,
      message:
        "Person.pets: destination entity \"Pett\" is not in the model (did you mean \"Pet\"?)"),
    BuildFailure(
      id: "unknown inverse",
      entities: {
        [
          EntityDescription("Person") {
            RelationshipDescription("pets", to: "Pet", inverse: "onwer", toMany: true)
          },
          EntityDescription("Pet") {
            RelationshipDescription("owner", to: "Person", inverse: "pets")
          },
        ]
      },
      code: .unknownInverse,
      message:
        "Person.pets: inverse \"onwer\" is not a relationship of \"Pet\" (did you mean \"owner\"?)"),
    BuildFailure(
      id: "inverse that points elsewhere",
      entities: {
        [
          EntityDescription("Person") {
            RelationshipDescription("pets", to: "Pet", inverse: "owner", toMany: true)
            RelationshipDescription("walked", to: "Pet", inverse: "walker", toMany: true)
          },
          EntityDescription("Pet") {
            RelationshipDescription("owner", to: "Person", inverse: "walked")
            RelationshipDescription("walker", to: "Person", inverse: "walked")
          },
        ]
      },
      code: .inverseMismatch,
      message:
        "Person.pets: inverse \"Pet.owner\" does not point back: it names \"Person.walked\", not \"pets\""
    ),
    BuildFailure(
      id: "inverse with no inverse of its own",
      entities: {
        [
          EntityDescription("Person") {
            RelationshipDescription("pets", to: "Pet", inverse: "owner", toMany: true)
          },
          EntityDescription("Pet") { RelationshipDescription("owner", to: "Person") },
        ]
      },
      code: .inverseMismatch,
      message:
        "Person.pets: inverse \"Pet.owner\" does not point back: it has no inverse, not \"pets\""),
    BuildFailure(
      id: "inverse entity not the destination",
      entities: {
        var pets = RelationshipDescription("pets", to: "Pet", inverse: "owner", toMany: true)
        pets.inverseEntityName = "Person"
        return [
          EntityDescription("Person") { pets },
          EntityDescription("Pet") {
            RelationshipDescription("owner", to: "Person", inverse: "pets")
          },
        ]
      },
      code: .inverseMismatch,
      message:
        "Person.pets: inverse entity \"Person\" is not the destination entity \"Pet\" or one of its ancestors"
    ),
    BuildFailure(
      id: "default of another type",
      entities: {
        [
          EntityDescription("A") {
            AttributeDescription("n", .integer16, defaultValue: .string("1"))
          }
        ]
      },
      code: .invalidDefaultValue,
      message: "A.n: default value \"1\" does not parse as Integer 16: the value is of another type"
    ),
    BuildFailure(
      id: "integer default out of range",
      entities: {
        [
          EntityDescription("A") {
            AttributeDescription("n", .integer16, defaultValue: .integer(40000))
          }
        ]
      },
      code: .invalidDefaultValue,
      message:
        "A.n: default value \"40000\" does not parse as Integer 16: the value is of another type"),
    BuildFailure(
      id: "minimum above maximum",
      entities: {
        var attribute = AttributeDescription("n", .integer32)
        attribute.minimumValue = .integer(10)
        attribute.maximumValue = .integer(5)
        return [EntityDescription("A") { attribute }]
      },
      code: .invalidConstraint, message: "A.n: minimum 10 is greater than maximum 5"),
    BuildFailure(
      id: "length on a number",
      entities: {
        var attribute = AttributeDescription("n", .integer32)
        attribute.maximumLength = 5
        return [EntityDescription("A") { attribute }]
      },
      code: .invalidConstraint,
      message:
        "A.n: a minimum or maximum length applies only to String and Binary attributes, not Integer 32"
    ),
    BuildFailure(
      id: "value bound on a string",
      entities: {
        var attribute = AttributeDescription("s", .string)
        attribute.minimumValue = .integer(1)
        return [EntityDescription("A") { attribute }]
      },
      code: .invalidConstraint,
      message: "A.s: a minimum or maximum value applies only to numbers and dates, not String"),
    BuildFailure(
      id: "pattern that does not compile",
      entities: {
        var attribute = AttributeDescription("s", .string)
        attribute.regularExpression = "[a-"
        return [EntityDescription("A") { attribute }]
      },
      code: .invalidConstraint, message: "A.s: regular expression \"[a-\" does not compile"),
    BuildFailure(
      id: "pattern on a number",
      entities: {
        var attribute = AttributeDescription("n", .double)
        attribute.regularExpression = "[0-9]+"
        return [EntityDescription("A") { attribute }]
      },
      code: .invalidConstraint,
      message: "A.n: a regular expression applies only to String attributes, not Double"),
    BuildFailure(
      id: "undefined type on a stored attribute",
      entities: { [EntityDescription("A") { AttributeDescription("v", .undefined) }] },
      code: .invalidConstraint,
      message: "A.v: attribute type Undefined is allowed only on transient attributes"),
    BuildFailure(
      id: "composite that is not defined",
      entities: {
        var attribute = AttributeDescription("where", .composite)
        attribute.compositeName = "Locaton"
        return [EntityDescription("A") { attribute }]
      },
      composites: [
        CompositeDescription("Location", attributes: [AttributeDescription("x", .double)])
      ],
      code: .unknownComposite,
      message:
        "A.where: composite \"Locaton\" is not defined in the model (did you mean \"Location\"?)"),
    BuildFailure(
      id: "composites nested 33 levels",
      entities: { [EntityDescription("A") { compositeAttribute("where", of: "C0") }] },
      composites: compositeChain(levels: 33),
      code: .invalidConstraint,
      message: "C0: composites nest more than 32 levels deep: C0 → C1 → C2 → … → C31 → C32"),
    BuildFailure(
      id: "composites nested 33 levels, the deepest listed first",
      entities: { [EntityDescription("A") { compositeAttribute("where", of: "C0") }] },
      composites: compositeChain(levels: 33).reversed(),
      code: .invalidConstraint,
      message: "C0: composites nest more than 32 levels deep: C0 → C1 → C2 → … → C31 → C32"),
    BuildFailure(
      id: "composites nested 1,000 levels, unused",
      entities: { [EntityDescription("A")] },
      composites: compositeChain(levels: 1_000),
      code: .invalidConstraint,
      message: "C0: composites nest more than 32 levels deep: C0 → C1 → C2 → … → C31 → C32"),
    BuildFailure(
      id: "to-one with a larger maxCount",
      entities: {
        var relationship = RelationshipDescription("b", to: "A")
        relationship.maxCount = 3
        return [EntityDescription("A") { relationship }]
      },
      code: .invalidConstraint, message: "A.b: a to-one relationship has maxCount 1, not 3"),
    BuildFailure(
      id: "minCount above maxCount",
      entities: {
        var relationship = RelationshipDescription("b", to: "A", toMany: true)
        relationship.minCount = 4
        relationship.maxCount = 2
        return [EntityDescription("A") { relationship }]
      },
      code: .invalidConstraint, message: "A.b: minCount 4 is greater than maxCount 2"),
    BuildFailure(
      id: "uniqueness constraint on a missing property",
      entities: {
        [
          EntityDescription("A") {
            AttributeDescription("name", .string); UniquenessConstraint("nmae")
          }
        ]
      },
      code: .unknownReference,
      message:
        "A: a uniqueness constraint names \"nmae\", which is not a property of \"A\" (did you mean \"name\"?)"
    ),
    BuildFailure(
      id: "configuration with a missing entity",
      entities: { [EntityDescription("A")] },
      configurations: [ConfigurationDescription("Cloud", entityNames: ["B"])],
      code: .unknownReference,
      message: "configuration \"Cloud\" names \"B\", which is not in the model"),
  ]

  /// An attribute of composite `composite`.
  static func compositeAttribute(_ name: String, of composite: String) -> AttributeDescription {
    var attribute = AttributeDescription(name, .composite)
    attribute.compositeName = composite
    return attribute
  }

  /// Composites `C0`…`C(levels − 1)`, each with one member of the next; the last holds a
  /// String.
  static func compositeChain(levels: Int) -> [CompositeDescription] {
    (0..<levels).map { level in
      CompositeDescription(
        "C\(level)",
        attributes: [
          level == levels - 1
            ? AttributeDescription("leaf", .string)
            : compositeAttribute("next", of: "C\(level + 1)")
        ])
    }
  }

  @Test("composites nested 32 levels, the limit, are a model", arguments: [false, true])
  func compositesAtTheLimit(deepestFirst: Bool) throws {
    let chain = Self.compositeChain(levels: CompositeDescription.maximumNestingLevels)
    let model = try ManagedObjectModel(
      entities: [EntityDescription("A") { Self.compositeAttribute("where", of: "C0") }],
      composites: deepestFirst ? chain.reversed() : chain)
    #expect(model.composites.count == 32)
  }

  @Test("inconsistent models are refused with the exact error", arguments: failures)
  func refuses(_ failure: BuildFailure) throws {
    let error = try #require(
      modelError {
        _ = try ManagedObjectModel(
          entities: failure.entities(), composites: failure.composites,
          configurations: failure.configurations)
      })
    #expect(error.code == failure.code)
    #expect(error.description == failure.message)
  }
}

@Suite("README")
struct ReadmeExampleTests {
  @Test("the README's example runs as written")
  func readmeExample() throws {
    let readme = try String(
      contentsOf: Paths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    // The code below is the README's, line for line; this check keeps the two in step.
    #expect(
      readme.contains(#"RelationshipDescription("person", to: "Person", inverse: "spendings")"#))
    #expect(
      readme.contains(
        #"let same = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Samples/Expenses/Expenses.xcdatamodeld"))"#
      ))
    let model = try ManagedObjectModel {
      EntityDescription("Person") {
        AttributeDescription("name", .string, isOptional: false)
        RelationshipDescription(
          "spendings", to: "Spending", inverse: "person",
          toMany: true, deleteRule: .cascade)
      }
      EntityDescription("Spending") {
        AttributeDescription("amount", .double, isOptional: false, defaultValue: .double(0))
        RelationshipDescription("person", to: "Person", inverse: "spendings")
      }
    }
    let same = try ManagedObjectModel(contentsOf: Paths.sample("Expenses"))
    #expect(model.entity(named: "Person")?.relationship(named: "spendings")?.deleteRule == .cascade)
    #expect(same.entity(named: "Person")?.relationship(named: "spendings")?.deleteRule == .cascade)
  }
}

@Suite("Model sizes")
struct ModelSizeTests {
  @Test("an entity of more than 65,535 properties, inherited ones included, is refused")
  func tooManyProperties() throws {
    var parent = EntityDescription("Parent")
    parent.attributes = (0..<40_000).map { AttributeDescription("p\($0)", .integer16) }
    var child = EntityDescription("Child")
    child.parentEntityName = "Parent"
    child.attributes = (0..<25_535).map { AttributeDescription("c\($0)", .integer16) }
    _ = try ManagedObjectModel(entities: [parent, child])
    child.attributes.append(AttributeDescription("one-too-many", .integer16))
    do {
      _ = try ManagedObjectModel(entities: [parent, child])
      Issue.record("a model past the limit was accepted")
    } catch let error as ModelError {
      #expect(error.code == .invalidConstraint)
      #expect(error.description.contains("Child has 65536 properties"))
    }
  }
}
