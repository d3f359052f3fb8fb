import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioStores

/// Models, records and comparisons shared by the binary store tests.
enum BinaryFixtures {
  /// An entity with one attribute of every storable type, and people, tags and spendings
  /// related every way Core Data allows: to-one, to-many, ordered, many-to-many, self, and
  /// through a subentity.
  static func model(extraAttribute: Bool = false) throws -> ManagedObjectModel {
    var location = AttributeDescription("location", .composite)
    location.compositeName = "Location"
    var transient = AttributeDescription("scratch", .string)
    transient.isTransient = true
    let composites = [
      CompositeDescription(
        "Location",
        attributes: [
          AttributeDescription("latitude", .double), AttributeDescription("label", .string),
          AttributeDescription("floor", .integer16),
        ])
    ]
    var everything = EntityDescription("Everything") {
      AttributeDescription("int16", .integer16)
      AttributeDescription("int32", .integer32)
      AttributeDescription("int64", .integer64)
      AttributeDescription("decimal", .decimal)
      AttributeDescription("double", .double)
      AttributeDescription("float", .float)
      AttributeDescription("string", .string)
      AttributeDescription("boolean", .boolean)
      AttributeDescription("date", .date)
      AttributeDescription("binary", .binaryData)
      AttributeDescription("uuid", .uuid)
      AttributeDescription("uri", .uri)
      AttributeDescription("transformable", .transformable)
      AttributeDescription("objectID", .objectID)
    }
    everything.attributes.append(location)
    everything.attributes.append(transient)
    if extraAttribute { everything.attributes.append(AttributeDescription("added", .string)) }
    let entities = [
      everything,
      EntityDescription("Person") {
        AttributeDescription("name", .string)
        RelationshipDescription("spouse", to: "Person", inverse: "spouse")
        RelationshipDescription("friends", to: "Person", inverse: "friends", toMany: true)
        RelationshipDescription("tags", to: "Tag", inverse: "people", toMany: true)
        RelationshipDescription(
          "spendings", to: "Spending", inverse: "person", toMany: true, ordered: true)
      },
      EntityDescription("Employee", parent: "Person") {
        AttributeDescription("salary", .decimal)
      },
      EntityDescription("Tag") {
        AttributeDescription("label", .string)
        RelationshipDescription("people", to: "Person", inverse: "tags", toMany: true)
      },
      EntityDescription("Spending") {
        AttributeDescription("amount", .double)
        RelationshipDescription("person", to: "Person", inverse: "spendings")
      },
    ]
    return try ManagedObjectModel(entities: entities, composites: composites)
  }

  /// Records with every attribute type at its edges and every relationship kind.
  static func contents() -> StoreContents {
    let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()
    var records: [StoreRecord] = [
      StoreRecord(
        entityName: "Everything", id: 1,
        attributes: [
          "int16": .integer(Int64(Int16.min)), "int32": .integer(Int64(Int32.max)),
          "int64": .integer(Int64.min), "decimal": .decimal(Decimal(string: "-12345.6789") ?? 0),
          "double": .double(.nan), "float": .float(-.infinity), "string": .string(""),
          "boolean": .boolean(false), "date": .date(Date(timeIntervalSinceReferenceDate: -1e9)),
          "binary": .binaryData(Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) })),
          "uuid": .uuid(uuid), "uri": .uri(URL(string: "https://example.com/a?b=c#d") ?? uuidURL),
          "transformable": .transformable(Data([0, 1, 2])),
          "objectID": .objectID("x-coredata://STORE/Person/p1"),
          "location": .composite([
            "latitude": .double(51.5), "label": .string("Lab ✓"), "floor": .integer(-2),
          ]),
        ]),
      StoreRecord(
        entityName: "Everything", id: 2,
        attributes: [
          "int16": .integer(Int64(Int16.max)), "int32": .integer(Int64(Int32.min)),
          "int64": .integer(Int64.max), "decimal": .decimal(Decimal(string: "1e100") ?? 0),
          "double": .double(.infinity), "float": .float(.nan),
          "string": .string("naïve 👩‍💻 \u{0}"), "boolean": .boolean(true),
          "date": .date(Date(timeIntervalSinceReferenceDate: 0.000_001)),
          "binary": .binaryData(Data()), "location": .composite([:]),
        ]),
      StoreRecord(
        entityName: "Everything", id: 3,
        attributes: ["double": .double(-0.0), "decimal": .decimal(.nan)]),
      StoreRecord(entityName: "Everything", id: 4),
    ]
    records += [
      StoreRecord(
        entityName: "Person", id: 10, attributes: ["name": .string("Ada")],
        relationships: [
          "spouse": [11], "friends": [11, 10, 20], "tags": [30, 31], "spendings": [42, 40, 41],
        ]),
      StoreRecord(
        entityName: "Person", id: 11, attributes: ["name": .string("Charles")],
        relationships: ["spouse": [10], "friends": [10], "tags": [30]]),
      StoreRecord(
        entityName: "Employee", id: 20, attributes: ["salary": .decimal(1234)],
        relationships: ["friends": [10], "spendings": [43]]),
      StoreRecord(
        entityName: "Tag", id: 30, attributes: ["label": .string("math")],
        relationships: ["people": [10, 11]]),
      StoreRecord(
        entityName: "Tag", id: 31, attributes: ["label": .string("")],
        relationships: ["people": [10]]),
    ]
    for (index, id) in [40, 41, 42].enumerated() {
      records.append(
        StoreRecord(
          entityName: "Spending", id: Int64(id), attributes: ["amount": .double(Double(index))],
          relationships: ["person": [10]]))
    }
    records.append(StoreRecord(entityName: "Spending", id: 43, relationships: ["person": [20]]))
    var metadata = StoreMetadata(storeType: "Binary", identifier: "STORE-UUID")
    metadata.modelVersionIdentifiers = ["v1"]
    metadata.frameworkVersion = 1
    metadata.userInfo = [
      "author": .string("Ada"), "count": .integer(-3), "ratio": .real(0.5),
      "flag": .boolean(true), "when": .date(Date(timeIntervalSinceReferenceDate: 12)),
      "blob": .data(Data([9, 8])), "list": .array([.string("a"), .dictionary(["k": .integer(1)])]),
    ]
    return StoreContents(metadata: metadata, records: records, nextObjectID: 100)
  }

  private static let uuidURL = URL(fileURLWithPath: "/")

  /// Whether two values are the same, NaNs and signed zeros compared by bit pattern.
  static func same(_ a: AttributeValue, _ b: AttributeValue) -> Bool { a.isIdentical(to: b) }

  /// Expects `loaded` to hold exactly `written`'s records (in any order), metadata and next ID.
  static func expectSame(
    _ loaded: StoreContents, _ written: StoreContents, seed: UInt64? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let note = seed.map { Comment(rawValue: "seed \($0)") }
    #expect(loaded.nextObjectID == written.nextObjectID, note, sourceLocation: sourceLocation)
    var expected = written.metadata
    expected.storeType = "Binary"
    #expect(
      loaded.metadata.userInfo == expected.userInfo
        && loaded.metadata.identifier == expected.identifier
        && loaded.metadata.modelVersionIdentifiers == expected.modelVersionIdentifiers
        && loaded.metadata.frameworkVersion == expected.frameworkVersion,
      note, sourceLocation: sourceLocation)
    let byID = Dictionary(uniqueKeysWithValues: loaded.records.map { ($0.id, $0) })
    #expect(loaded.records.count == written.records.count, note, sourceLocation: sourceLocation)
    for record in written.records {
      guard let other = byID[record.id] else {
        Issue.record("record \(record.id) is missing; \(note?.rawValue ?? "")")
        continue
      }
      let sameAttributes =
        record.attributes.keys.sorted() == other.attributes.keys.sorted()
        && record.attributes.allSatisfy { key, value in
          other.attributes[key].map { same(value, $0) } ?? false
        }
      #expect(
        other.entityName == record.entityName && sameAttributes
          && other.relationships == record.relationships.filter { !$0.value.isEmpty },
        "record \(record.id) differs: \(other) vs \(record); \(note?.rawValue ?? "")",
        sourceLocation: sourceLocation)
    }
  }

  /// A fresh file URL in a temporary folder, and the folder to remove afterwards.
  static func temporaryFile(_ name: String = "store.folio") throws -> (URL, URL) {
    let folder = try makeTemporaryFolder()
    return (folder.appendingPathComponent(name), folder)
  }
}
