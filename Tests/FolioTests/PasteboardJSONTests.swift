import Folio
import FolioTestSupport
import Foundation
import Testing

/// An entity with an attribute of every stored type, a composite that nests one, and a
/// transient that is never copied.
func everyTypeModel() throws -> ManagedObjectModel {
  var place = AttributeDescription("place", .composite)
  place.compositeName = "Address"
  var point = AttributeDescription("point", .composite)
  point.compositeName = "Point"
  var memo = AttributeDescription("memo", .string)
  memo.isTransient = true
  let types: [(String, AttributeType)] = [
    ("i16", .integer16), ("i32", .integer32), ("i64", .integer64), ("decimal", .decimal),
    ("double", .double), ("float", .float), ("string", .string), ("flag", .boolean),
    ("date", .date), ("binary", .binaryData), ("uuid", .uuid), ("uri", .uri),
    ("transformed", .transformable), ("reference", .objectID),
  ]
  let entity = EntityDescription("Sample") {
    for (name, type) in types { AttributeDescription(name, type) }
    place
    memo
  }
  return try ManagedObjectModel(
    entities: [entity],
    composites: [
      CompositeDescription(
        "Address", attributes: [AttributeDescription("street", .string), point]),
      CompositeDescription(
        "Point",
        attributes: [AttributeDescription("lat", .double), AttributeDescription("lon", .double)]),
    ])
}

/// Values at the edges of each type: what a lossy encoding would change.
func everyTypeValues() throws -> [[String: AttributeValue]] {
  let pi = try #require(Decimal(string: "-3.1415926535897932384626433832795028841"))
  let tiny = try #require(Decimal(string: "1e-30"))
  let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
  let url = try #require(URL(string: "https://example.com/a%20b?c=d&e#f"))
  return [
    [
      "i16": .integer(Int64(Int16.min)), "i32": .integer(Int64(Int32.max)),
      "i64": .integer(Int64.min),
      "decimal": .decimal(pi),
      "double": .double(-0.0), "float": .float(0.1),
      "string": .string("quote \" slash \\ tab \t nul \u{0} é 🎉"), "flag": .boolean(false),
      "date": .date(Date(timeIntervalSinceReferenceDate: 123_456.789_012_345_6)),
      "binary": .binaryData(Data((0...255).map { UInt8($0) })),
      "uuid": .uuid(uuid),
      "uri": .uri(url),
      "transformed": .transformable(Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0, 0xFF])),
      "reference": .objectID("x-coredata://S/Sample/p7"),
      "place": .composite([
        "street": .string("1 Infinite Loop"),
        "point": .composite(["lat": .double(37.331_686), "lon": .double(-122.030_656)]),
      ]),
    ],
    [
      "i16": .integer(Int64(Int16.max)), "i32": .integer(Int64(Int32.min)),
      "i64": .integer(Int64.max), "decimal": .decimal(tiny),
      "double": .double(.nan), "float": .float(-.infinity), "flag": .boolean(true),
      "date": .date(Date(timeIntervalSinceReferenceDate: 86_400)),
      "binary": .binaryData(Data()), "place": .composite(["street": .string("")]),
    ],
    [
      "double": .double(.leastNonzeroMagnitude), "float": .float(.greatestFiniteMagnitude),
      "decimal": .decimal(.nan),
      "date": .date(Date(timeIntervalSinceReferenceDate: -0.0)),
    ],
    [
      "double": .double(.greatestFiniteMagnitude), "float": .float(-.leastNonzeroMagnitude),
      "date": .date(Date(timeIntervalSinceReferenceDate: -63_114_076_800.000_001)),
    ],
  ]
}

/// The value an object's attribute holds, as the model writes it.
func modelValue(_ object: ManagedObject, _ attribute: AttributeDescription) throws
  -> AttributeValue?
{
  let value = try object.value(forKey: attribute.name)
  switch (attribute.attributeType, value) {
  case (_, nil): return nil
  case (.integer16, let number as Int), (.integer32, let number as Int),
    (.integer64, let number as Int):
    return .integer(Int64(number))
  case (.decimal, let number as Decimal): return .decimal(number)
  case (.double, let number as Double): return .double(number)
  case (.float, let number as Float): return .float(number)
  case (.string, let text as String): return .string(text)
  case (.boolean, let flag as Bool): return .boolean(flag)
  case (.date, let date as Date): return .date(date)
  case (.binaryData, let data as Data): return .binaryData(data)
  case (.transformable, let data as Data): return .transformable(data)
  case (.uuid, let uuid as UUID): return .uuid(uuid)
  case (.uri, let url as URL): return .uri(url)
  case (.objectID, let text as String): return .objectID(text)
  default: return nil
  }
}

func jsonObject(_ data: Data) throws -> [String: Any] {
  try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

@Suite("Pasteboard: JSON")
struct PasteboardJSONTests {
  @Test("every attribute type round-trips exactly through JSON into another context")
  func everyType() throws {
    let model = try everyTypeModel()
    let source = ManagedObjectContext(model: model)
    var samples: [ManagedObject] = []
    for values in try everyTypeValues() {
      let sample = try source.insertNewObject(forEntityName: "Sample")
      for (key, value) in values { try sample.setValue(value, forKey: key) }
      try sample.setValue("not copied", forKey: "memo")
      samples.append(sample)
    }
    let data = try Pasteboard(copying: samples).data()
    let target = ManagedObjectContext(model: model)
    let pasted = try target.paste(try Pasteboard(data: data)).roots
    #expect(pasted.count == samples.count)
    let entity = try #require(model.entity(named: "Sample"))
    for (original, copy) in zip(samples, pasted) {
      for attribute in entity.attributes where attribute.attributeType != .composite {
        let before = try modelValue(original, attribute)
        let after = try modelValue(copy, attribute)
        let same =
          before.flatMap { value in after.map { value.isIdentical(to: $0) } } ?? (after == nil)
        #expect(
          same,
          "\(attribute.name): \(String(describing: before)) became \(String(describing: after))")
      }
      let place = try copy.value(forKey: "place") as? [String: Any]
      let originalPlace = try original.value(forKey: "place") as? [String: Any]
      #expect(place?["street"] as? String == originalPlace?["street"] as? String)
      let point = place?["point"] as? [String: Any]
      let originalPoint = originalPlace?["point"] as? [String: Any]
      #expect(point?["lat"] as? Double == originalPoint?["lat"] as? Double)
      #expect(point?["lon"] as? Double == originalPoint?["lon"] as? Double)
      #expect(try copy.value(forKey: "memo") == nil)
    }
    // A date the ISO text holds exactly is written as that text, any other as its seconds.
    let written = try #require(try jsonObject(data)["objects"] as? [[String: Any]])
    let dates = written.map { ($0["attributes"] as? [String: Any])?["date"] }
    #expect(dates[0] as? Double == 123_456.789_012_345_6)
    #expect(dates[1] as? String == "2001-01-02T00:00:00Z")
    // Copying the copies writes the same attribute JSON, byte for byte.
    let again = try jsonObject(try Pasteboard(copying: pasted).data())
    let first = try jsonObject(data)
    let attributes = { (json: [String: Any]) in
      (json["objects"] as? [[String: Any]] ?? []).map { object in
        try? JSONSerialization.data(
          withJSONObject: object["attributes"] ?? [:], options: [.sortedKeys])
      }
    }
    #expect(attributes(again) == attributes(first))
  }

  @Test("the JSON has the format, version, store, hashes, roots and objects")
  func layout() throws {
    let fixture = try BoardFixture()
    let pasteboard = try Pasteboard(copying: [fixture.board])
    let data = pasteboard.data()
    #expect(try Pasteboard(data: data) == pasteboard)
    #expect(try Pasteboard(data: data).data() == data)
    let json = try jsonObject(data)
    #expect(json["format"] as? String == "folio-pasteboard")
    #expect(json["version"] as? Int == 1)
    #expect(json["store"] as? String == fixture.context.storeIdentifier)
    let hashes = try #require(json["entities"] as? [String: String])
    #expect(Set(hashes.keys) == ["Board", "Card"])
    let boardHash = try #require(fixture.context.model.entity(named: "Board")?.versionHash)
    #expect(hashes["Board"] == boardHash.map { String(format: "%02x", $0) }.joined())
    #expect(json["roots"] as? [Int] == [0])
    let objects = try #require(json["objects"] as? [[String: Any]])
    #expect(objects.map { $0["entity"] as? String } == ["Board", "Card", "Card", "Card"])
    let board = objects[0]
    #expect(board["uri"] as? String == fixture.board.objectID.description)
    let attributes = try #require(board["attributes"] as? [String: Any])
    #expect(attributes.keys.sorted() == ["title"])
    let relationships = try #require(board["relationships"] as? [String: Any])
    #expect(relationships["cards"] as? [Int] == [1, 2, 3])
    #expect(relationships["owner"] as? String == fixture.ada.objectID.description)
    #expect(relationships["tags"] as? [String] == [fixture.tag.objectID.description])
    #expect(relationships["desk"] as? String == fixture.desk.objectID.description)
    let card = try #require(objects[1]["relationships"] as? [String: Any])
    #expect(card["board"] as? Int == 0)
    #expect(card["links"] as? [Int] == [])
  }

  @Test("text that is not JSON is malformed, with its line and column")
  func notJSON() throws {
    let fixture = try BoardFixture()
    let data = try Pasteboard(copying: [fixture.board]).data()
    for (broken, line, column) in [
      (data.prefix(40), 1, 41), (Data("{\n  \"format\": tru }".utf8), 2, 13),
      (Data([0x7B, 0xFF, 0x7D]), 1, 1),
      (Data("[".utf8 + Array(repeating: UInt8(ascii: "["), count: 100)), 1, 65),
    ] {
      do {
        _ = try Pasteboard(data: Data(broken))
        Issue.record("read \(String(decoding: broken, as: UTF8.self))")
      } catch {
        #expect(error.code == .malformed)
        #expect(error.code.description == "malformed")
        #expect(error.location?.line == line)
        #expect(error.location?.column == column)
        #expect(error.message.hasPrefix("not JSON: "))
      }
    }
  }

  @Test("JSON of the wrong shape is malformed, naming its JSON path")
  func wrongShape() throws {
    let fixture = try BoardFixture()
    let text = String(decoding: try Pasteboard(copying: [fixture.board]).data(), as: UTF8.self)
    let cases: [(from: String, to: String, path: String, code: PasteboardError.Code)] = [
      ("\"roots\":[0]", "\"roots\":[4]", "roots[0]", .malformed),
      ("\"cards\":[1,", "\"cards\":[true,", "objects[0].relationships.cards[0]", .malformed),
      ("\"entity\":\"Card\"", "\"entity\":\"Cord\"", "objects[1].entity", .malformed),
      ("\"store\":", "\"extra\":1,\"store\":", "extra", .malformed),
      ("\"version\":1", "\"version\":2", "version 2", .unsupportedFormat),
      ("folio-pasteboard", "other-board", "other-board", .unsupportedFormat),
    ]
    for (from, to, path, code) in cases {
      #expect(text.contains(from), "\(from)")
      do {
        _ = try Pasteboard(data: Data(text.replacingOccurrences(of: from, with: to).utf8))
        Issue.record("read a pasteboard with \(to)")
      } catch {
        #expect(error.code == code)
        #expect(error.message.contains(path), "\(error.message)")
      }
    }
  }

  /// Pastes `text` with `from` replaced by `to` into a context of `model`, expecting a
  /// `GraphError` of `code`; returns it.
  func pasteError(
    _ text: String, _ from: String, _ to: String, into context: ManagedObjectContext,
    _ code: GraphError.Code
  ) throws -> GraphError? {
    #expect(text.contains(from), "\(from)")
    let pasteboard = try Pasteboard(data: Data(text.replacingOccurrences(of: from, with: to).utf8))
    do {
      _ = try context.paste(pasteboard)
      Issue.record("pasted with \(to)")
      return nil
    } catch {
      #expect(error.code == code, "\(error)")
      return error
    }
  }

  @Test("an unknown entity or key, or a value of the wrong type, is refused naming it")
  func unknownNames() throws {
    let fixture = try BoardFixture()
    let text = String(decoding: try Pasteboard(copying: [fixture.board]).data(), as: UTF8.self)
    let context = fixture.context
    let inserted = context.insertedObjects
    let entity = try pasteError(text, "\"Board\"", "\"Plank\"", into: context, .unknownEntity)
    #expect(entity?.location?.entity == "Plank")
    let key = try pasteError(text, "\"title\":", "\"heading\":", into: context, .unknownKey)
    #expect(key?.location == InputLocation(entity: "Board", property: "heading"))
    #expect(key?.message.contains("objects[0].attributes.heading") == true)
    let relationship = try pasteError(text, "\"owner\":", "\"boss\":", into: context, .unknownKey)
    #expect(relationship?.location == InputLocation(entity: "Board", property: "boss"))
    let value = try pasteError(text, "\"text\":\"b\"", "\"text\":5", into: context, .typeMismatch)
    #expect(value?.location == InputLocation(entity: "Card", property: "text"))
    #expect(value?.message.contains("objects[2].attributes.text") == true)
    let shape = try pasteError(
      text, "\"cards\":[1,2,3]", "\"cards\":1", into: context, .typeMismatch)
    #expect(shape?.location == InputLocation(entity: "Board", property: "cards"))
    let target = try pasteError(text, "\"board\":0", "\"board\":1", into: context, .typeMismatch)
    #expect(target?.message.contains("objects[1].relationships.board") == true)
    let transient = try pasteError(text, "\"title\":", "\"scratch\":", into: context, .unknownKey)
    #expect(transient?.location?.property == "scratch")
    // Each refusal left the context as it was: nothing inserted.
    #expect(context.insertedObjects == inserted)
    #expect(try count("Card", in: context) == 3)
  }

  @Test("a pasteboard of another version of an entity is refused naming the entity")
  func versionHashMismatch() throws {
    let fixture = try BoardFixture()
    let pasteboard = try Pasteboard(copying: [fixture.board])
    let newer = try Document(model: try pasteboardModel(boardExtra: true))
    do {
      _ = try newer.context.paste(pasteboard)
      Issue.record("pasted into another model version")
    } catch {
      #expect(error.code == .modelMismatch)
      #expect(error.location?.entity == "Board")
      #expect(error.message.contains("Board"))
    }
    #expect(!newer.context.hasChanges)
    #expect(try count("Card", in: newer.context) == 0)
    // The same, with only the hash in the JSON changed.
    let text = String(decoding: pasteboard.data(), as: UTF8.self)
    let hash = try #require(
      (try jsonObject(pasteboard.data())["entities"] as? [String: String])?["Card"])
    let edited = try pasteError(
      text, hash, String(repeating: "0", count: 64), into: fixture.context, .modelMismatch)
    #expect(edited?.location?.entity == "Card")
    #expect(try count("Card", in: fixture.context) == 3)
  }

  @Test("damaged pasteboards are refused with typed errors, never a crash")
  func damaged() throws {
    let fixture = try BoardFixture()
    try fixture.cards[0].setValue(Set([fixture.cards[1]]), forKey: "links")
    let data = Array(try Pasteboard(copying: [fixture.board]).data())
    var generator = SeededGenerator(seed: 44)
    let alphabet = Array("{}[],:\"0123456789-.eE\\tnulrfa x".utf8)
    var read = 0
    for round in 0..<600 {
      var bytes = data
      if round < 100 {
        bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)))
      } else {
        for _ in 0...Int.random(in: 0..<3, using: &generator) {
          let position = Int.random(in: 0..<bytes.count, using: &generator)
          bytes[position] = alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
        }
      }
      let pasteboard: Pasteboard
      do {
        pasteboard = try Pasteboard(data: Data(bytes))
      } catch {
        #expect(error.code == .malformed || error.code == .unsupportedFormat)
        continue
      }
      read += 1
      let before = fixture.context.insertedObjects
      do {
        try fixture.context.paste(pasteboard)
      } catch {
        #expect(fixture.context.insertedObjects == before, "seed 44, round \(round)")
      }
    }
    // Some damage leaves a pasteboard that reads (a changed letter in a string).
    #expect(read > 0)
  }
}
