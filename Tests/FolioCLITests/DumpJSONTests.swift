import FolioModel
import FolioStores
import FolioTestSupport
import FolioXMLStore
import Foundation
import Testing

@Suite("folio dump --json and --jsonl")
struct DumpJSONTests {
  let schema = packageRoot.appendingPathComponent("Formats/dump.schema.json")

  /// A model with an attribute of every type a store keeps, and both kinds of relationship.
  func model() throws -> ManagedObjectModel {
    try ManagedObjectModel {
      EntityDescription("Item") {
        AttributeDescription("count", .integer64)
        AttributeDescription("small", .integer16)
        AttributeDescription("flag", .boolean)
        AttributeDescription("ratio", .double)
        AttributeDescription("level", .float)
        AttributeDescription("price", .decimal)
        AttributeDescription("when", .date)
        AttributeDescription("name", .string)
        AttributeDescription("link", .uri)
        AttributeDescription("tag", .uuid)
        AttributeDescription("bytes", .binaryData)
        RelationshipDescription("box", to: "Box", inverse: "items")
      }
      EntityDescription("Box") {
        AttributeDescription("label", .string)
        RelationshipDescription("items", to: "Item", inverse: "box", toMany: true, ordered: true)
      }
    }
  }

  /// A folder with an XML store of two items (one with every value, one with none) in a box,
  /// and the model's bundle.
  func store() throws -> (folder: URL, store: URL, bundle: URL) {
    let folder = try makeTemporaryFolder()
    let model = try model()
    let bundle = folder.appendingPathComponent("Items.xcdatamodeld")
    let version = bundle.appendingPathComponent("Items.xcdatamodel")
    try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
    try model.xcodeModelXML().write(
      to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
    let price = try #require(Decimal(string: "12345678901234567890.0123456789"))
    let link = try #require(URL(string: "https://a.b/c?d=1"))
    let tag = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    let records = [
      StoreRecord(
        entityName: "Item", id: 1,
        attributes: [
          "count": .integer(9_007_199_254_740_993), "small": .integer(-7), "flag": .boolean(true),
          "ratio": .double(0.1), "level": .float(2.5),
          "price": .decimal(price),
          "when": .date(Date(timeIntervalSince1970: 1_700_000_000.25)),
          "name": .string("say \"hi\"\nbye\t\u{1}"),
          "link": .uri(link),
          "tag": .uuid(tag),
          "bytes": .binaryData(Data([0, 1, 254, 255])),
        ], relationships: ["box": [3]]),
      StoreRecord(entityName: "Item", id: 2, relationships: ["box": [3]]),
      StoreRecord(
        entityName: "Box", id: 3, attributes: ["label": .string("shelf")],
        relationships: ["items": [2, 1]]),
    ]
    let url = folder.appendingPathComponent("items.xml")
    var metadata = StoreMetadata(storeType: "XML")
    metadata.identifier = "5B1B5C2E-0000-4000-8000-000000000001"
    try XMLStore().write(
      StoreContents(metadata: metadata, records: records), model: model, to: url)
    return (folder, url, bundle)
  }

  func objects(_ output: String) throws -> [[String: Any]] {
    let document = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
    return try #require(document?["objects"] as? [[String: Any]])
  }

  @Test("values are JSON types, missing ones null, references URIs, as the schema says")
  func typedValues() throws {
    let (folder, store, bundle) = try store()
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try run(folio, ["dump", "--json", store.path, "--model", bundle.path])
    #expect(result.status == 0, "\(result.standardError)")
    let check = try JSONSchemaCheck(contentsOf: schema)
    let document = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
    #expect(check.failures(of: document) == [])
    let objects = try objects(result.standardOutput)
    let uri = "x-coredata://5B1B5C2E-0000-4000-8000-000000000001"
    #expect(
      objects.map { $0["uri"] as? String } == ["\(uri)/Box/p3", "\(uri)/Item/p1", "\(uri)/Item/p2"])
    let box = objects[0]
    #expect(box["entity"] as? String == "Box")
    #expect(box["primaryKey"] as? Int == 3)
    #expect(
      (box["relationships"] as? [String: Any])?["items"] as? [String]
        == ["\(uri)/Item/p2", "\(uri)/Item/p1"], "an ordered to-many keeps its order")
    let full = try #require(objects[1]["attributes"] as? [String: Any])
    #expect((full["count"] as? NSNumber)?.int64Value == 9_007_199_254_740_993)
    #expect(full["small"] as? Int == -7)
    #expect(full["flag"] as? Bool == true)
    #expect(full["ratio"] as? Double == 0.1)
    #expect(full["level"] as? Double == 2.5)
    #expect(full["price"] as? String == "12345678901234567890.0123456789")
    #expect(full["when"] as? String == "2023-11-14T22:13:20.25Z")
    #expect(full["name"] as? String == "say \"hi\"\nbye\t\u{1}")
    #expect(full["link"] as? String == "https://a.b/c?d=1")
    #expect(full["tag"] as? String == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    #expect(full["bytes"] as? String == "AAH+/w==")
    #expect((objects[1]["relationships"] as? [String: Any])?["box"] as? String == "\(uri)/Box/p3")
    // The empty item: every attribute present, as null.
    let empty = try #require(objects[2]["attributes"] as? [String: Any])
    #expect(empty.count == 11)
    #expect(empty.values.allSatisfy { $0 is NSNull })
  }

  @Test("--jsonl prints one object a line, each as the schema's object, for every format")
  func lines() throws {
    let (folder, store, bundle) = try store()
    defer { try? FileManager.default.removeItem(at: folder) }
    let check = try JSONSchemaCheck(contentsOf: schema)
    var files = [store.path, StoreCommandTests.sample]
    for name in ["items.sqlite", "items.folio"] {
      let converted = folder.appendingPathComponent(name).path
      let made = try run(folio, ["convert", store.path, converted, "--model", bundle.path])
      #expect(made.status == 0, "\(made.standardError)")
      files.append(converted)
    }
    for file in files {
      let model = file.hasPrefix("Samples") ? StoreCommandTests.model : bundle.path
      let result = try run(folio, ["dump", "--jsonl", file, "--model", model])
      #expect(result.status == 0, "\(result.standardError)")
      let lines = result.standardOutput.split(separator: "\n")
      #expect(lines.count == (file.hasPrefix("Samples") ? 8 : 3), "\(file)")
      for line in lines {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        #expect(check.failures(of: object, definition: "object") == [], "\(file): \(line)")
      }
      // The same objects as the document prints.
      let document = try run(folio, ["dump", "--json", file, "--model", model])
      #expect(try objects(document.standardOutput).count == lines.count)
      #expect(
        check.failures(
          of: try JSONSerialization.jsonObject(with: Data(document.standardOutput.utf8))) == [])
    }
  }

  @Test(
    "jq selects by typed values: numbers compare as numbers, a missing date is null",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/jq"), "jq is not installed")
  )
  func jq() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let lines = folder.appendingPathComponent("objects.jsonl")
    let dump = try run(folio, ["dump", "--jsonl", StoreCommandTests.sample])
    try Data(dump.standardOutput.utf8).write(to: lines)
    func jq(_ filter: String) throws -> [String] {
      let result = try run(URL(fileURLWithPath: "/usr/bin/jq"), ["-r", filter, lines.path])
      #expect(result.status == 0, "\(result.standardError)")
      return result.standardOutput.split(separator: "\n").map(String.init)
    }
    #expect(try jq("select(.attributes.amount > 100) | .attributes.content") == ["Brass gears"])
    #expect(
      try jq("select(.entity == \"Spending\" and .attributes.date == null) | .attributes.content")
        == ["Punched cards"])
    #expect(
      Set(try jq("select(.entity == \"Spending\") | .relationships.person | type")) == ["string"])
    #expect(
      try jq("select(.entity == \"Person\") | .relationships.spendings | length") == [
        "2", "2", "1",
      ])
  }

  @Test(
    "objects print as they are read; one naming a later object of a hierarchy waits for it")
  func streamsWithSubentities() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try ManagedObjectModel {
      EntityDescription("Garage") {
        AttributeDescription("name", .string)
        RelationshipDescription("vehicles", to: "Vehicle", inverse: "garage", toMany: true)
      }
      EntityDescription("Vehicle", isAbstract: true) {
        AttributeDescription("wheels", .integer16)
        RelationshipDescription("garage", to: "Garage", inverse: "vehicles")
      }
      EntityDescription("Car", parent: "Vehicle") { AttributeDescription("seats", .integer16) }
      EntityDescription("Bike", parent: "Vehicle") {}
    }
    let version = folder.appendingPathComponent("Garage.xcdatamodeld/Garage.xcdatamodel")
    try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
    try model.xcodeModelXML().write(
      to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
    // The garage comes first and names a car and a bike further on; a bike before the car.
    let records = [
      StoreRecord(
        entityName: "Garage", id: 1, attributes: ["name": .string("north")],
        relationships: ["vehicles": [3, 2]]),
      StoreRecord(
        entityName: "Bike", id: 2, attributes: ["wheels": .integer(2)],
        relationships: ["garage": [1]]),
      StoreRecord(
        entityName: "Car", id: 3, attributes: ["wheels": .integer(4), "seats": .integer(5)],
        relationships: ["garage": [1]]),
    ]
    let store = folder.appendingPathComponent("garage.xml")
    var metadata = StoreMetadata(storeType: "XML")
    metadata.identifier = "5B1B5C2E-0000-4000-8000-000000000002"
    try XMLStore().write(
      StoreContents(metadata: metadata, records: records), model: model, to: store)
    let uri = "x-coredata://5B1B5C2E-0000-4000-8000-000000000002"
    for arguments in [["--model", version.path], []] {
      let result = try run(folio, ["dump", "--jsonl", store.path] + arguments)
      #expect(result.status == 0, "\(result.standardError)")
      let objects = try result.standardOutput.split(separator: "\n").map {
        try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
      }
      #expect(
        objects.map { $0["uri"] as? String } == [
          "\(uri)/Bike/p2", "\(uri)/Car/p3", "\(uri)/Garage/p1",
        ], "\(arguments)")
      let vehicles = (objects.last?["relationships"] as? [String: Any])?["vehicles"] as? [String]
      #expect(vehicles.map(Set.init) == ["\(uri)/Car/p3", "\(uri)/Bike/p2"], "\(arguments)")
      #expect(
        (objects.first?["relationships"] as? [String: Any])?["garage"] as? String
          == "\(uri)/Garage/p1")
    }
    let text = try run(folio, ["dump", store.path, "--model", version.path])
    #expect(text.status == 0, "\(text.standardError)")
    #expect(
      text.standardOutput.hasSuffix("Garage#1\n  name = \"north\"\n  vehicles = [Bike#2, Car#3]\n"))
  }

  @Test("--json and --jsonl together are a usage error")
  func exclusive() throws {
    let result = try run(folio, ["dump", "--json", "--jsonl", StoreCommandTests.sample])
    #expect(result.status == 64)
    #expect(result.standardError.contains("--json and --jsonl exclude each other"))
  }
}
