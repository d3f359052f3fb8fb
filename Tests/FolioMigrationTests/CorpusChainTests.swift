import FolioModel
import FolioSQLiteStore
import FolioStores
import FolioTestSupport
import FolioXMLStore
import Foundation
import Testing

@testable import FolioMigration

/// A version chain of the corpus: its versions, oldest first, and the mapping models its
/// authors wrote for some steps.
struct CorpusChain: CustomStringConvertible, Sendable {
  var name: String
  /// Each version's name and its model file in `corpus/models`.
  var versions: [(name: String, file: String)]
  /// For each step with a mapping model, its file in `corpus/stores`.
  var mappings: [(source: String, destination: String, file: String)]
  /// The migration policy class names the mappings name, and the Swift type standing in for
  /// each.
  var policies: [String: EntityMigrationPolicy.Type] = [:]

  var description: String { name }

  static let root = packageRoot.deletingLastPathComponent().appendingPathComponent(
    "shared/corpus")

  static let all: [CorpusChain] = [
    CorpusChain(
      name: "Moody 2 → 6",
      versions: (2...6).map { ("Moody \($0)", "objcio__core-data__Moody_\($0)") },
      mappings: (2...5).map {
        ("Moody \($0)", "Moody \($0 + 1)", "objcio__core-data__Moody_\($0)-Moody_\($0 + 1)")
      },
      policies: ["Migrations.Country5ToCountry6Policy": DefaultStandInPolicy.self]),
    CorpusChain(
      name: "JSQCoreDataKit 1 → 3",
      versions: (1...3).map { ("Version \($0)", "jessesquires__JSQCoreDataKit__Version_\($0)") },
      mappings: [
        ("Version 1", "Version 2", "jessesquires__JSQCoreDataKit__Version1_to_Version2"),
        ("Version 2", "Version 3", "jessesquires__JSQCoreDataKit__Version2_to_Version3"),
      ]),
    CorpusChain(
      name: "OpenEmu 1.0 Beta → 1.3",
      versions: [("OEDatabase", "OpenEmu__OpenEmu__OEDatabase")]
        + ["0.2", "0.3", "0.4", "0.5", "1.0", "1.1", "1.2", "1.3"].map {
          ("OEDatabase \($0)", "OpenEmu__OpenEmu__OEDatabase_\($0)")
        },
      mappings: [
        ("OEDatabase", "OEDatabase 0.2", "OpenEmu__OpenEmu__1.0_Beta_to_0.2"),
        ("OEDatabase 0.2", "OEDatabase 0.3", "OpenEmu__OpenEmu__0.2_to_0.3"),
        ("OEDatabase 0.5", "OEDatabase 1.0", "OpenEmu__OpenEmu__1.0_Beta_4_to_1.0"),
        ("OEDatabase 1.1", "OEDatabase 1.2", "OpenEmu__OpenEmu__1.1_to_1.2"),
        ("OEDatabase 1.2", "OEDatabase 1.3", "OpenEmu__OpenEmu__1.2_to_1.3"),
      ],
      policies: [
        "OEDBRomMigrationPolicy": DefaultStandInPolicy.self,
        "OEDBSaveStateMigrationPolicy": DefaultStandInPolicy.self,
        "OEDBImageMigrationPolicy": DefaultStandInPolicy.self,
      ]),
    CorpusChain(
      name: "CareKit 2.0 → 2.1",
      versions: [
        ("CareKitStore2.0", "carekit-apple__CareKit__CareKitStore2.0"),
        ("CareKitStore2.1", "carekit-apple__CareKit__CareKitStore2.1"),
      ],
      // The file names CareKitStore2.2 as its destination; the model it embeds is 2.1.
      mappings: [
        ("CareKitStore2.0", "CareKitStore2.1", "carekit-apple__CareKit__2.0_2.1_Mapping")
      ],
      policies: ["CareKitStore.OCKStoreMigration2_0To2_1Policy": FillingStandInPolicy.self]),
    CorpusChain(
      name: "WooCommerce 9 → 10",
      versions: [
        ("Model 9", "woocommerce__woocommerce-ios__WooCommerce_Model_9"),
        ("Model 10", "woocommerce__woocommerce-ios__WooCommerce_Model_10"),
      ],
      mappings: [
        ("Model 9", "Model 10", "woocommerce__woocommerce-ios__WooCommerceModelV9toV10")
      ]),
    CorpusChain(
      name: "WooCommerce 116 → 117",
      versions: [
        ("Model 116", "woocommerce__woocommerce-ios__WooCommerce_Model_116"),
        ("Model 117", "woocommerce__woocommerce-ios__WooCommerce_Model_117"),
      ],
      mappings: []),
    CorpusChain(
      name: "XCServerCoreData 2.0.2 → 2.0.3",
      versions: [
        ("XCServerCoreData2.0.2", "richardpiazza__XCServerCoreData__XCServerCoreData2.0.2"),
        ("XCServerCoreData2.0.3", "richardpiazza__XCServerCoreData__XCServerCoreData2.0.3"),
      ],
      mappings: [
        (
          "XCServerCoreData2.0.2", "XCServerCoreData2.0.3",
          "richardpiazza__XCServerCoreData__MappingModel2.0.2to2.0.3"
        )
      ]),
    CorpusChain(
      name: "CoreStore EvolutionDemo V1 → V2",
      versions: [
        ("Advanced.EvolutionDemo.V1", "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V1"),
        ("Advanced.EvolutionDemo.V2", "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V2"),
      ],
      mappings: [
        (
          "Advanced.EvolutionDemo.V1", "Advanced.EvolutionDemo.V2",
          "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V2.FromV1"
        )
      ],
      policies: ["Advanced_EvolutionDemo_V2_FromV1MigrationPolicy": DefaultStandInPolicy.self]),
    CorpusChain(
      name: "CoreStore EvolutionDemo V2 → V1",
      versions: [
        ("Advanced.EvolutionDemo.V2", "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V2"),
        ("Advanced.EvolutionDemo.V1", "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V1"),
      ],
      mappings: [
        (
          "Advanced.EvolutionDemo.V2", "Advanced.EvolutionDemo.V1",
          "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V1.FromV2"
        )
      ]),
    CorpusChain(
      name: "CoreDataPlus SampleModel2 → 3",
      versions: [
        ("SampleModel2", "alemar11__CoreDataPlus__SampleModel2"),
        ("SampleModel3", "alemar11__CoreDataPlus__SampleModel3"),
      ],
      mappings: [("SampleModel2", "SampleModel3", "alemar11__CoreDataPlus__V2toV3")],
      policies: ["REPLACE_AT_RUNTIME.V2to3MakerPolicy": DefaultStandInPolicy.self]),
  ]
}

/// Stands in for an Objective-C or Swift migration policy a corpus mapping names, which Folio
/// cannot load: it does what Core Data's default policy does.
final class DefaultStandInPolicy: EntityMigrationPolicy {}

/// Stands in for CareKit's policy, which computes values version 2.1 requires and the mapping
/// does not give: a task with a HealthKit linkage becomes a HealthKit task (2.1 moves the
/// linkage there), and after the default stage each required attribute still empty gets a
/// value of its type, derived from the source object's ID.
final class FillingStandInPolicy: EntityMigrationPolicy {
  override func createDestinationInstances(
    forSource source: MigrationSourceObject, in mapping: EntityMapping, manager: MigrationManager
  ) throws(MigrationError) {
    if source.entityName == "OCKCDTask", !source.targets("healthKitLinkage").isEmpty,
      let kind = manager.destinationModel.entity(named: "OCKCDHealthKitTask")
    {
      let task = try manager.insertDestinationObject(
        entityName: kind.name, preferredID: source.id)
      for attribute in kind.allAttributes where !attribute.isTransient {
        if let value = source.attribute(attribute.name) {
          try task.setAttribute(value, forKey: attribute.name)
        }
      }
      manager.associate(sourceInstance: source, withDestinationInstance: task, for: mapping)
    } else {
      try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
    }
    let made = manager.destinationInstances(
      forEntityMappingNamed: mapping.name, sourceInstances: [source])
    for object in made {
      guard let entity = manager.destinationModel.entity(named: object.entityName) else {
        continue
      }
      let name = entity.name
      for attribute in entity.allAttributes
      where !attribute.isOptional && !attribute.isTransient
        && object.attribute(attribute.name) == nil
      {
        let value: AttributeValue? =
          switch attribute.attributeType {
          case .integer16, .integer32, .integer64: .integer(source.id)
          case .double: .double(Double(source.id))
          case .string: .string("\(name)-\(source.id)")
          case .boolean: .boolean(false)
          case .date: .date(Date(timeIntervalSinceReferenceDate: Double(source.id)))
          case .uuid: .uuid(UUID())
          default: nil
          }
        try object.setAttribute(value, forKey: attribute.name)
      }
    }
  }
}

@Suite(
  "Migrating the corpus's version chains",
  .enabled(
    if: FileManager.default.fileExists(atPath: CorpusChain.root.path),
    "../shared/corpus is not beside the package"))
struct CorpusChainTests {
  @Test(
    "a store of the oldest version, every entity populated, migrates step by step to the newest",
    arguments: CorpusChain.all)
  func chain(_ chain: CorpusChain) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (bundle, given) = try chain.bundle(in: folder)
    let store = folder.appendingPathComponent("store.xml")
    let first = bundle.versions[0].model
    try XMLStore().write(
      StoreContents(
        metadata: StoreMetadata(storeType: "XML"), records: populatedRecords(of: first)),
      model: first, to: store)
    // Every step: each consecutive pair is inferred or has its authors' mapping.
    let plan = try MigrationPlan(
      bundle: bundle, from: bundle.versions[0].name, to: bundle.versions.last?.name ?? "",
      mappings: given)
    #expect(plan.steps.count == chain.versions.count - 1)
    #expect(plan.steps.filter { !$0.isInferred }.count == chain.mappings.count)
    // Step by step through the file, each step checked object by object.
    for (index, step) in plan.steps.enumerated() {
      let before = try XMLStore().read(from: store, model: step.source.model).records
      var migration = try StoreMigration(
        storeAt: store, format: XMLStore(), bundle: bundle, to: step.destination.name,
        mappings: given)
      migration.policies = chain.policies
      #expect(migration.plan.steps.count == 1)
      try migration.run()
      let after = try XMLStore().read(from: store, model: step.destination.model).records
      check(step, before: before, after: after, chain: "\(chain.name), step \(index + 1)")
      if step.isInferred {
        try compareWays(step, before, "\(chain.name), step \(index + 1)")
      }
    }
  }

  /// How many steps of each chain are plain copies, which SQLite stores run in SQL; the
  /// others have mappings with expressions beyond copies, or policies.
  static let stepsCopiedInSQL = [
    "Moody 2 → 6": 1, "JSQCoreDataKit 1 → 3": 0, "OpenEmu 1.0 Beta → 1.3": 4,
    "CareKit 2.0 → 2.1": 0, "WooCommerce 9 → 10": 1, "WooCommerce 116 → 117": 1,
    "XCServerCoreData 2.0.2 → 2.0.3": 1, "CoreStore EvolutionDemo V1 → V2": 0,
    "CoreStore EvolutionDemo V2 → V1": 1, "CoreDataPlus SampleModel2 → 3": 0,
  ]

  @Test(
    "a SQLite store migrates step by step in SQL to what migrating its records gives",
    arguments: CorpusChain.all)
  func sqlCopy(_ chain: CorpusChain) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (bundle, given) = try chain.bundle(in: folder)
    var inSQL = 0
    for index in 0..<(bundle.versions.count - 1) {
      let model = bundle.versions[index].model
      let place = "\(chain.name), step \(index + 1)"
      let records = populatedRecords(of: model)
      // A model no SQLite store can hold (a to-many without an inverse) is passed over.
      guard SQLiteSchema(model: model).unsupported.isEmpty else { continue }
      var files: [URL] = []
      var reports: [StoreMigrationReport] = []
      for way in ["sql", "records"] {
        let store = folder.appendingPathComponent("\(way).sqlite")
        try? FileManager.default.removeItem(at: store)
        try SQLiteStore().write(
          StoreContents(metadata: StoreMetadata(storeType: "SQLite"), records: records),
          model: model, to: store)
        var migration = try StoreMigration(
          storeAt: store, format: SQLiteStore(), bundle: bundle,
          to: bundle.versions[index + 1].name, mappings: given)
        migration.policies = chain.policies
        migration.copiesInSQL = way == "sql"
        reports.append(try migration.run())
        files.append(store)
      }
      guard files.count == 2 else { continue }
      #expect(reports[1].steps.first?.copiedInSQL == false, "\(place)")
      // Both through the records: nothing to compare (and `now()`, `UUID()` differ).
      guard reports[0].steps.first?.copiedInSQL == true else { continue }
      inSQL += 1
      #expect(reports[0].description == reports[1].description, "\(place)")
      let destination = bundle.versions[index + 1].model
      let copied = byID(try SQLiteStore().read(from: files[0], model: destination).records)
      let migrated = byID(try SQLiteStore().read(from: files[1], model: destination).records)
      #expect(Set(copied.keys) == Set(migrated.keys), "\(place)")
      // The first object that differs, named with its values.
      if let (id, record) = copied.first(where: { migrated[$0.key] != $0.value }) {
        let other = String(describing: migrated[id])
        Issue.record("\(place): \(id) copied in SQL as \(record), through the records as \(other)")
      }
    }
    #expect(inSQL == Self.stepsCopiedInSQL[chain.name], "\(chain.name)")
  }

  /// Checks that an inferred step gives the same records run straight through the records as
  /// through the policies, mapping by mapping (which a filter that takes every object forces).
  func compareWays(_ step: MigrationPlan.Step, _ records: [StoreRecord], _ chain: String) throws {
    let contents = StoreContents(metadata: StoreMetadata(storeType: "XML"), records: records)
    let direct = try MigrationManager(
      sourceModel: step.source.model, destinationModel: step.destination.model,
      mappingModel: step.mapping
    ).migrate(contents)
    var filtered = step.mapping
    for index in filtered.entityMappings.indices
    where filtered.entityMappings[index].sourceEntityName != nil {
      filtered.entityMappings[index].sourceFilterPredicate = "TRUEPREDICATE"
    }
    let general = try MigrationManager(
      sourceModel: step.source.model, destinationModel: step.destination.model,
      mappingModel: filtered
    ).migrate(contents)
    #expect(byID(direct.records) == byID(general.records), "\(chain)")
  }

  /// Checks one step's result against its mapping, independently of how the migration
  /// made it: each source object of a mapping's entity has a destination object of the
  /// mapping's destination entity with its ID (the first mapping of a source entity keeps
  /// the IDs), each attribute a `$source.key` expression maps holds the source's value (or
  /// the destination's default where the source had none), and each relationship mapped
  /// from a source relationship names the destination objects of the source's targets.
  func check(
    _ step: MigrationPlan.Step, before: [StoreRecord], after: [StoreRecord], chain: String
  ) {
    let sources = Dictionary(uniqueKeysWithValues: before.map { ($0.id, $0) })
    let results = Dictionary(uniqueKeysWithValues: after.map { ($0.id, $0) })
    var firstMapping: [String: String] = [:]
    for mapping in step.mapping.entityMappings {
      guard let source = mapping.sourceEntityName, mapping.destinationEntityName != nil,
        mapping.mappingType != .remove, mapping.mappingType != .add
      else { continue }
      if firstMapping[source] == nil { firstMapping[source] = mapping.name }
    }
    var expected: [String: Int] = [:]
    for mapping in step.mapping.entityMappings {
      guard let sourceEntity = mapping.sourceEntityName,
        let destinationEntity = mapping.destinationEntityName,
        mapping.mappingType != .remove, mapping.mappingType != .add
      else { continue }
      let taken = before.filter { $0.entityName == sourceEntity }
      // A migration policy decides what it makes; the default makes one object each.
      let isCustom = mapping.migrationPolicyClassName != nil
      if !isCustom { expected[destinationEntity, default: 0] += taken.count }
      guard firstMapping[sourceEntity] == mapping.name else { continue }
      for source in taken {
        guard let result = results[source.id] else {
          Issue.record(
            "\(chain): \(mapping.name) left \(sourceEntity) \(source.id) without its object")
          continue
        }
        if !isCustom {
          #expect(result.entityName == destinationEntity, "\(chain): \(source.id)")
        }
        guard let entity = step.destination.model.entity(named: result.entityName) else {
          continue
        }
        for property in mapping.attributeMappings {
          guard case .keyPath(.variable("source"), let key)? = property.valueExpression,
            !key.contains("."), let attribute = entity.attribute(named: property.name)
          else { continue }
          let value = source.attribute(key)
          let wanted = value ?? (attribute.isOptional ? nil : attribute.defaultValue)
          let found = result.attribute(property.name)
          #expect(
            found?.modelText == wanted?.modelText,
            "\(chain): \(destinationEntity).\(property.name) of \(source.id) is \(found?.modelText ?? "nil"), not \(wanted?.modelText ?? "nil")"
          )
        }
        for property in mapping.relationshipMappings {
          guard let expression = property.valueExpression,
            case .function(_, let selector, let arguments) = expression,
            selector == "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
            case .keyPath(.variable("source"), let key)? = arguments.last, !key.contains(".")
          else { continue }
          let targets = (source.relationships[key] ?? []).filter { target in
            guard let entity = sources[target]?.entityName else { return false }
            return firstMapping[entity] != nil
          }
          let found = Set(result.relationships[property.name] ?? [])
          for target in targets where results[target] != nil {
            #expect(
              found.contains(target),
              "\(chain): \(destinationEntity).\(property.name) of \(source.id) lacks \(target)")
          }
        }
      }
    }
    let counts = Dictionary(after.map { ($0.entityName, 1) }, uniquingKeysWith: +)
    for (entity, count) in expected {
      #expect(counts[entity, default: 0] >= count, "\(chain): \(entity)")
    }
  }
}

extension CorpusChain {
  /// The chain's versions as one bundle in `folder`, in the chain's order, and the authors'
  /// mapping models for the steps that have them.
  func bundle(in folder: URL) throws -> (ModelBundle, [MigrationPlan.GivenMapping]) {
    let chain = self
    // The chain's versions, as one bundle, in the chain's order.
    let bundleURL = folder.appendingPathComponent("Chain.xcdatamodeld")
    for (index, version) in chain.versions.enumerated() {
      // Prefixed so that the bundle's order is the chain's, whatever the names.
      let folderName = String(format: "%02d %@.xcdatamodel", index, version.name)
      let url = bundleURL.appendingPathComponent(folderName)
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        at: CorpusChain.root.appendingPathComponent(
          "models/\(version.file).xcdatamodel.contents.xml"),
        to: url.appendingPathComponent("contents"))
    }
    let newest = String(
      format: "%02d %@.xcdatamodel", chain.versions.count - 1, chain.versions.last?.name ?? "")
    try """
    <?xml version="1.0" encoding="UTF-8"?>
    <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(newest)</string></dict></plist>
    """.write(
      to: bundleURL.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
    let bundle = try ModelBundle(contentsOf: bundleURL)
    func versionName(_ name: String) throws -> String {
      let index = try #require(chain.versions.firstIndex { $0.name == name })
      return bundle.versions[index].name
    }
    var given: [MigrationPlan.GivenMapping] = []
    for mapping in chain.mappings {
      let source = try #require(chain.versions.first { $0.name == mapping.source })
      let model = try ManagedObjectModel(
        contentsOf: CorpusChain.root.appendingPathComponent(
          "models/\(source.file).xcdatamodel.contents.xml"))
      let read = try MappingModel(
        contentsOf: CorpusChain.root.appendingPathComponent(
          "stores/\(mapping.file).xcmappingmodel.xcmapping.xml"),
        sourceModel: model)
      given.append(
        MigrationPlan.GivenMapping(
          sourceVersion: try versionName(mapping.source),
          destinationVersion: try versionName(mapping.destination), mapping: read))
    }
    return (bundle, given)
  }
}
