import FolioModel
import FolioStores
import FolioTestSupport
import FolioXMLStore
import Foundation
import Testing

@testable import FolioMigration

private let source = MappingExpression.variable("source")
private let manager = MappingExpression.variable("manager")

/// The destination objects that the entity mapping `mapping` made of `objects`: `FUNCTION($manager,
/// "destinationInstancesForEntityMappingNamed:sourceInstances:", mapping, objects)`.
private func instances(of mapping: String, from objects: MappingExpression) -> MappingExpression {
  .function(
    receiver: manager, selector: "destinationInstancesForEntityMappingNamed:sourceInstances:",
    arguments: [.constant(.string(mapping)), objects])
}

/// Xcode's default for a relationship row whose source has the same relationship.
private func sameRelationship(_ name: String) -> MappingExpression {
  .function(
    receiver: manager, selector: "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
    arguments: [.constant(.string(name)), .keyPath(source, name)])
}

/// The property mappings of `mapping` by name, attributes and relationships alike.
private func rows(_ mapping: EntityMapping?) -> [String: PropertyMapping] {
  let all = (mapping?.attributeMappings ?? []) + (mapping?.relationshipMappings ?? [])
  return Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
}

@Suite("Xcode mapping models: reading what Xcode saved")
struct XcodeMappingModelTests {
  @Test("Moody 2 to 3 has three mappings in mapping-number order, with key path relationships")
  func moody() throws {
    let file = try XcodeMappingModel(
      contentsOf: MappingFixtures.moody, sourceModel: try MappingFixtures.moodyModel())
    #expect(file.sourceModelPath == "Migrations/Moody.xcdatamodeld/Moody 2.xcdatamodel")
    #expect(file.destinationModelPath == "Migrations/Moody.xcdatamodeld/Moody 3.xcdatamodel")
    #expect(file.sourceModelName == "Moody 2")
    #expect(file.destinationModelName == "Moody 3")
    let mappings = file.mappingModel.entityMappings
    // The root lists them as Continent, Country, Mood; their numbers are 3, 2, 1.
    #expect(mappings.map(\.name) == ["MoodToMood", "CountryToCountry", "ContinentToContinent"])
    #expect(mappings.allSatisfy { $0.mappingType == .transform })
    // An empty policy class name is no policy.
    #expect(mappings.allSatisfy { $0.migrationPolicyClassName == nil })

    let mood = file.mappingModel.entityMapping(named: "MoodToMood")
    #expect(mood?.sourceEntityName == "Mood")
    #expect(mood?.destinationEntityName == "Mood")
    #expect(
      mood?.attributeMappings.map(\.name) == [
        "colors", "creatorID", "date", "latitude", "longitude", "markedForDeletionDate",
        "markedForRemoteDeletion", "rating", "remoteID",
      ])
    #expect(
      mood?.attributeMappings.allSatisfy {
        $0.valueExpression == .keyPath(source, $0.name) && $0.usesDefaultExpression
      } == true)
    let moodRows = rows(mood)
    #expect(
      moodRows["country"]?.valueExpression
        == instances(of: "CountryToCountry", from: .keyPath(source, "country")))
    #expect(moodRows["country"]?.usesDefaultExpression == false)
    #expect(
      moodRows["continent"]?.valueExpression
        == instances(of: "ContinentToContinent", from: .keyPath(source, "country.continent")))

    let country = rows(file.mappingModel.entityMapping(named: "CountryToCountry"))
    #expect(country["continent"]?.valueExpression == sameRelationship("continent"))
    #expect(country["moods"]?.valueExpression == sameRelationship("moods"))
    #expect(country["updatedAt"]?.valueExpression == .keyPath(source, "updatedAt"))

    // Two relationship mappings left over from editing (no entity mapping owns them) are
    // not part of the mapping: Continent has only `countries` and its key path `moods`.
    let continent = file.mappingModel.entityMapping(named: "ContinentToContinent")
    #expect(continent?.relationshipMappings.map(\.name) == ["countries", "moods"])
    #expect(
      rows(continent)["moods"]?.valueExpression
        == instances(
          of: "MoodToMood", from: .keyPath(source, "countries.@distinctUnionOfSets.moods")))
  }

  @Test("JSQ version 2 to 3 splits Employee into Employee and a named EmployeeToCompany")
  func employees() throws {
    let mapping = try MappingModel(
      contentsOf: MappingFixtures.employees, sourceModel: try MappingFixtures.employeesModel())
    #expect(mapping.entityMappings.map(\.name) == ["EmployeeToEmployee", "EmployeeToCompany"])
    let employee = rows(mapping.entityMapping(named: "EmployeeToEmployee"))
    #expect(employee["name"]?.valueExpression == .keyPath(source, "name"))
    #expect(employee["birthDate"]?.valueExpression == .keyPath(source, "birthDate"))
    #expect(employee["salary"]?.valueExpression == .keyPath(source, "salary"))
    // Version 2's Employee has no `company`: the row has no expression.
    #expect(employee["company"]?.valueExpression == nil)
    #expect(employee["company"]?.usesDefaultExpression == true)

    let company = mapping.entityMapping(named: "EmployeeToCompany")
    #expect(company?.sourceEntityName == "Employee")
    #expect(company?.destinationEntityName == "Company")
    #expect(company?.mappingType == .transform)
    let companyRows = rows(company)
    #expect(companyRows["name"]?.valueExpression == .keyPath(source, "companyName"))
    #expect(companyRows["name"]?.usesDefaultExpression == false)
    #expect(companyRows["profits"]?.valueExpression == .keyPath(source, "companyProfits"))
    #expect(companyRows["dateFounded"]?.valueExpression == .keyPath(source, "companyDateFounded"))
    #expect(companyRows["employees"]?.valueExpression == nil)
    #expect(companyRows["name"]?.valueExpression?.description == "$source.companyName")
  }

  @Test("CoreDataPlus V2 to V3 has custom policies, FUNCTION expressions and an added Maker")
  func cars() throws {
    let mapping = try MappingModel(
      contentsOf: MappingFixtures.cars, sourceModel: try MappingFixtures.carsModel())
    #expect(
      mapping.entityMappings.map(\.name) == [
        "CarToCar", "LuxuryCarToLuxuryCar", "PersonToPerson", "SportCarToSportCar", "ToMaker",
      ])
    for name in ["CarToCar", "LuxuryCarToLuxuryCar", "SportCarToSportCar"] {
      let car = mapping.entityMapping(named: name)
      #expect(car?.migrationPolicyClassName == "REPLACE_AT_RUNTIME.V2to3MakerPolicy")
      #expect(car?.mappingType == .custom)
      let carRows = rows(car)
      #expect(
        carRows["previousOwners"]?.valueExpression
          == instances(of: "PersonToPerson", from: .keyPath(source, "owner")))
      #expect(carRows["owner"]?.valueExpression == sameRelationship("owner"))
      #expect(carRows["createdBy"]?.valueExpression == nil)
      #expect(carRows["model"]?.valueExpression == .keyPath(source, "model"))
    }
    #expect(rows(mapping.entityMapping(named: "LuxuryCarToLuxuryCar"))["isLimitedEdition"] != nil)

    let person = mapping.entityMapping(named: "PersonToPerson")
    #expect(person?.mappingType == .transform)
    #expect(person?.migrationPolicyClassName == nil)
    #expect(rows(person)["previousCars"]?.valueExpression == sameRelationship("cars"))
    #expect(
      rows(person)["previousCars"]?.valueExpression?.description
        == "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\","
        + " \"cars\", $source.cars)")

    // The added entity: no source, so no expressions, and the name `To<Destination>`.
    let maker = mapping.entityMapping(named: "ToMaker")
    #expect(maker?.mappingType == .add)
    #expect(maker?.sourceEntityName == nil)
    #expect(maker?.destinationEntityName == "Maker")
    #expect(maker?.attributeMappings.map(\.name) == ["name"])
    #expect(maker?.relationshipMappings.map(\.name) == ["cars"])
    #expect(rows(maker).values.allSatisfy { $0.valueExpression == nil })
  }

  @Test("without a source model the rows Xcode left empty stay unresolved until resolved")
  func defaultsWithoutModel() throws {
    let unresolved = try MappingModel(contentsOf: MappingFixtures.cars)
    let person = rows(unresolved.entityMapping(named: "PersonToPerson"))
    #expect(person["firstName"]?.valueExpression == nil)
    #expect(person["firstName"]?.usesDefaultExpression == true)
    // Stored expressions do not depend on the source model.
    #expect(person["previousCars"]?.valueExpression == sameRelationship("cars"))
    #expect(person["previousCars"]?.usesDefaultExpression == false)

    let model = try MappingFixtures.carsModel()
    let resolved = try unresolved.resolvingDefaultExpressions(sourceModel: model)
    #expect(resolved == (try MappingModel(contentsOf: MappingFixtures.cars, sourceModel: model)))
    #expect(try resolved.resolvingDefaultExpressions(sourceModel: model) == resolved)
  }

  @Test("a source model without a mapping's source entity is a model mismatch")
  func wrongSourceModel() throws {
    let error = try #require(
      mappingError {
        _ = try MappingModel(
          contentsOf: MappingFixtures.cars, sourceModel: try MappingFixtures.moodyModel())
      })
    #expect(error.code == .modelMismatch)
    #expect(
      error.description
        == "CarToCar: the source model has no entity \"Car\", whose objects the mapping takes")
  }

  @Test("the .xcmappingmodel folder reads as its xcmapping.xml does")
  func folder() throws {
    let file = try MappingFixtures.write(String(contentsOf: MappingFixtures.moody, encoding: .utf8))
    let fromFolder = try XcodeMappingModel(contentsOf: file.deletingLastPathComponent())
    #expect(fromFolder == (try XcodeMappingModel(contentsOf: file)))
    #expect(fromFolder == (try XcodeMappingModel(contentsOf: MappingFixtures.moody)))
  }

  @Test("entity mappings run in mapping-number order, whatever the order of the idrefs")
  func order() throws {
    let text = MappingFixtures.store([
      MappingFixtures.root("z104 z102 z103"),
      MappingFixtures.entityMapping("z102", source: "B", destination: "B", number: 3),
      MappingFixtures.entityMapping("z103", source: "C", destination: "C", number: 1),
      MappingFixtures.entityMapping("z104", source: "A", destination: "A", number: 2),
      // Left behind by editing: nothing owns it.
      MappingFixtures.entityMapping("z105", source: "D", destination: "D", number: 0),
    ])
    let mapping = try MappingModel(contentsOf: try MappingFixtures.write(text))
    #expect(mapping.entityMappings.map(\.name) == ["CToC", "AToA", "BToB"])
  }

  @Test("a mapping without a destination removes its entity, and a stored name wins")
  func removeMapping() throws {
    let text = MappingFixtures.store([
      MappingFixtures.root("z102 z103"),
      MappingFixtures.entityMapping("z102", source: "Old", destination: nil, number: 1),
      MappingFixtures.entityMapping(
        "z103", source: "A", destination: "B", number: 2, name: "Split",
        extra: MappingFixtures.attribute("sourcefilterpredicatestring", "rating > 2")),
    ])
    let mapping = try MappingModel(contentsOf: try MappingFixtures.write(text))
    #expect(
      mapping.entityMappings == [
        EntityMapping(
          name: "OldTo", mappingType: .remove, sourceEntityName: "Old", destinationEntityName: nil),
        EntityMapping(
          name: "Split", mappingType: .transform, sourceEntityName: "A",
          destinationEntityName: "B", sourceFilterPredicate: "rating > 2"),
      ])
  }

  @Test("a relationship row with only a mapping name takes the objects of its own name")
  func mappingNameAlone() throws {
    let text = MappingFixtures.store([
      MappingFixtures.root("z102"),
      MappingFixtures.entityMapping("z102", source: "A", destination: "A", relationships: "z103"),
      MappingFixtures.relationshipMapping(
        "z103", name: "items", owner: "z102", mappingName: "IToI"),
    ])
    let mapping = try MappingModel(contentsOf: try MappingFixtures.write(text))
    #expect(
      mapping.entityMappings.first?.relationshipMappings.first?.valueExpression
        == instances(of: "IToI", from: .keyPath(source, "items")))
  }

  @Test("the model of Xcode's mapping entities has the version hashes every file records")
  func schemaHashes() throws {
    let recorded = try XMLStore().readMetadata(from: MappingFixtures.moody).modelVersionHashes
    let computed = XcodeMappingSchema.model.entityVersionHashesByName
    #expect(recorded.count == 5)
    for name in XcodeMappingSchema.entityNames.sorted() {
      #expect(computed[name] == recorded[name], "\(name)")
    }
  }
}

@Suite("Xcode mapping models: the corpus of real mapping models")
struct XcodeMappingCorpusTests {
  @Test(
    "every corpus mapping model reads, with Xcode's schema, full rows and parseable text",
    .enabled(if: MappingFixtures.corpus != nil, "../shared/corpus is not beside the package"),
    arguments: MappingFixtures.corpusMappings)
  func reads(_ corpusMapping: MappingFixtures.CorpusMapping) throws {
    let url = try #require(corpusMapping.url)
    let sourceModel = try MappingFixtures.CorpusMapping.model(corpusMapping.sourceModel)
    #expect(sourceModel != nil)
    let file = try XcodeMappingModel(contentsOf: url, sourceModel: sourceModel)
    #expect(
      try XMLStore().readMetadata(from: url).modelVersionHashes
        == XcodeMappingSchema.model.entityVersionHashesByName)
    let mappings = file.mappingModel.entityMappings
    #expect(!mappings.isEmpty)
    #expect(Set(mappings.map(\.name)).count == mappings.count)
    #expect(!file.sourceModelPath.isEmpty && !file.destinationModelPath.isEmpty)
    for mapping in mappings {
      for row in mapping.attributeMappings + mapping.relationshipMappings {
        guard let expression = row.valueExpression else { continue }
        #expect(try MappingExpression(format: expression.description) == expression)
      }
    }
    // Xcode writes one row per stored property of the destination entity, inherited ones
    // included (the corpus has CareKit's destination model in another version only).
    guard let destination = try MappingFixtures.CorpusMapping.model(corpusMapping.destinationModel)
    else { return }
    for mapping in mappings {
      let entity = try #require(destination.entity(named: mapping.destinationEntityName ?? ""))
      #expect(
        mapping.attributeMappings.map(\.name)
          == entity.allAttributes.filter { !$0.isTransient }.map(\.name).sorted())
      #expect(
        mapping.relationshipMappings.map(\.name)
          == entity.allRelationships.filter { !$0.isTransient }.map(\.name).sorted())
    }
  }

  @Test(
    "the corpus's 18 mapping models hold the mappings and expressions the research counted",
    .enabled(if: MappingFixtures.corpus != nil, "../shared/corpus is not beside the package"))
  func totals() throws {
    var mappings: [EntityMapping] = []
    for corpusMapping in MappingFixtures.corpusMappings {
      let url = try #require(corpusMapping.url)
      let model = try MappingFixtures.CorpusMapping.model(corpusMapping.sourceModel)
      mappings += try MappingModel(contentsOf: url, sourceModel: model).entityMappings
    }
    #expect(MappingFixtures.corpusMappings.count == 18)
    #expect(mappings.count == 142)
    #expect(mappings.filter { $0.mappingType == .add }.count == 10)
    #expect(mappings.filter { $0.mappingType == .remove }.isEmpty)
    #expect(mappings.filter { $0.mappingType == .custom }.count == 18)
    #expect(mappings.allSatisfy { $0.sourceFilterPredicate == nil })

    func count(_ rows: KeyPath<EntityMapping, [PropertyMapping]>, added: Bool, default: Bool?)
      -> Int
    {
      mappings.filter { ($0.mappingType == .add) == added }.flatMap { $0[keyPath: rows] }
        .filter { row in
          switch `default` {
          case true?: row.usesDefaultExpression && row.valueExpression != nil
          case false?: row.usesDefaultExpression && row.valueExpression == nil
          case nil: !row.usesDefaultExpression
          }
        }.count
    }
    // Rows without a stored expression: a same-named source property, none, no source.
    #expect(count(\.attributeMappings, added: false, default: true) == 735)
    #expect(count(\.attributeMappings, added: false, default: false) == 67)
    #expect(count(\.attributeMappings, added: true, default: false) == 52)
    #expect(count(\.relationshipMappings, added: false, default: true) == 286)
    #expect(count(\.relationshipMappings, added: false, default: false) == 19)
    #expect(count(\.relationshipMappings, added: true, default: false) == 30)
    // Rows with a stored expression, or Key Path and Mapping Name fields.
    #expect(count(\.attributeMappings, added: false, default: nil) == 14)
    #expect(count(\.relationshipMappings, added: false, default: nil) == 4 + 3)
  }

  @Test(
    "LoopKit's leftover entity and attribute mappings are ignored",
    .enabled(if: MappingFixtures.corpus != nil, "../shared/corpus is not beside the package"))
  func loopKitOrphans() throws {
    let url = try #require(
      MappingFixtures.corpus?.appendingPathComponent(
        "stores/LoopKit__LoopKit__Modelv1v4.xcmappingmodel.xcmapping.xml"))
    let mapping = try MappingModel(contentsOf: url)
    // 6 of the file's 22 entity mappings are the root's; their idrefs are out of order.
    #expect(
      mapping.entityMappings.map(\.name) == [
        "ReservoirToReservoir", "PumpEventToPumpEvent", "CachedGlucoseObjectToCachedGlucoseObject",
        "CachedInsulinDeliveryObjectToCachedInsulinDeliveryObject",
        "CachedCarbObjectToCachedCarbObject", "DeletedCarbObjectToCachedCarbObject",
      ])
    // The add mappings of DosingDecisionObject and SettingsObject are orphans.
    #expect(!mapping.entityMappings.contains { $0.destinationEntityName == "DosingDecisionObject" })
    #expect(!mapping.entityMappings.contains { $0.destinationEntityName == "SettingsObject" })
    #expect(
      mapping.entityMapping(named: "CachedCarbObjectToCachedCarbObject")?.migrationPolicyClassName
        == "LoopKit.CachedCarbObjectv3EntityMigrationPolicy")
  }
}

/// The `MappingModelError` that `body` throws, or `nil`.
func mappingError(_ body: () throws -> Void) -> MappingModelError? {
  do {
    try body()
    return nil
  } catch let error as MappingModelError {
    return error
  } catch {
    Issue.record("expected a MappingModelError, got \(error)")
    return nil
  }
}
