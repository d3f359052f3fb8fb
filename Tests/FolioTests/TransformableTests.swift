import Folio
import FolioTestSupport
import Foundation
import Testing

/// Transformable attributes read and set through the value transformer their model names.
/// Serialized: the tests register and unregister transformers in the one process-wide registry.
@Suite("Transformable values", .serialized)
struct TransformableTests {
  /// Archives CareKit's sample store holds (Core Data on iOS wrote them with
  /// `NSSecureUnarchiveFromData`): a vector clock, an `NSDictionary` from an `NSUUID` to a
  /// number, and an e-mail address book, from a string to a string.
  static let appleClock = hexData(
    "62706C6973743030D4010203040506070A582476657273696F6E592461726368697665725424746F7058246F",
    "626A6563747312000186A05F100F4E534B657965644172636869766572D1080954726F6F748001A60B0C1519",
    "1F2055246E756C6CD30D0E0F101214574E532E6B6579735A4E532E6F626A656374735624636C617373A11180",
    "02A11380048005D2160F17185C4E532E7575696462797465734F1010AF61205F1C3940F486D6820B6E38AD0D",
    "8003D21A1B1C1D5A24636C6173736E616D655824636C6173736573564E5355554944A21C1E584E534F626A65",
    "63741001D21A1B21225C4E5344696374696F6E617279A2231E5C4E5344696374696F6E61727900080011001A",
    "00240029003200370049004C00510053005A00600067006F007A00810083008500870089008B0090009D00B0",
    "00B200B700C200CB00D200D500DE00E000E500F200F500000000000002010000000000000024000000000000",
    "00000000000000000102")
  static let appleEmails = hexData(
    "62706C6973743030D4010203040506070A582476657273696F6E592461726368697665725424746F7058246F",
    "626A6563747312000186A05F100F4E534B657965644172636869766572D1080954726F6F748001A50B0C1516",
    "1755246E756C6CD30D0E0F101214574E532E6B6579735A4E532E6F626A656374735624636C617373A1118002",
    "A113800380045669436C6F75645F10166A616E6564616E69656C734069636C6F75642E636F6DD218191A1B5A",
    "24636C6173736E616D655824636C61737365735C4E5344696374696F6E617279A21C1D5C4E5344696374696F",
    "6E617279584E534F626A65637408111A24293237494C5153595F666E7980828486888A91AAAFBAC3D0D3E000",
    "00000000000101000000000000001E000000000000000000000000000000E9")

  static func hexData(_ parts: String...) -> Data {
    let text = Array(parts.joined().utf8)
    var bytes: [UInt8] = []
    for index in stride(from: 0, to: text.count, by: 2) {
      bytes.append(UInt8(String(decoding: text[index..<index + 2], as: UTF8.self), radix: 16) ?? 0)
    }
    return Data(bytes)
  }

  struct Palette: Codable, Equatable {
    var name: String
    var colors: [String]
  }

  static func model() throws -> ManagedObjectModel {
    var tags = AttributeDescription("tags", .transformable)
    tags.valueTransformerName = "NSSecureUnarchiveFromData"
    var palette = AttributeDescription("palette", .transformable)
    palette.valueTransformerName = "PaletteTransformer"
    palette.valueClassName = "Palette"
    var raw = AttributeDescription("raw", .transformable)
    raw.valueTransformerName = "NobodyRegisteredThis"
    return try ManagedObjectModel {
      EntityDescription("Sketch") {
        AttributeDescription("title", .string)
        tags
        palette
        raw
      }
    }
  }

  @Test("Apple's archives read as Swift values")
  func appleArchives() throws {
    let transformer = SecureUnarchiveTransformer()
    let clock = try #require(try transformer.value(from: Self.appleClock) as? [AnyHashable: Any])
    let uuid = try #require(UUID(uuidString: "AF61205F-1C39-40F4-86D6-820B6E38AD0D"))
    #expect(clock.count == 1)
    #expect(clock[AnyHashable(uuid)] as? Int == 1)
    let emails = try #require(try transformer.value(from: Self.appleEmails) as? [String: Any])
    #expect(emails as? [String: String] == ["iCloud": "janedaniels@icloud.com"])
    // Written again, each reads back the same.
    let again = try transformer.value(from: try transformer.data(from: clock))
    #expect((again as? [AnyHashable: Any])?[AnyHashable(uuid)] as? Int == 1)
    let emailsAgain = try transformer.value(from: try transformer.data(from: emails))
    #expect(emailsAgain as? [String: String] == ["iCloud": "janedaniels@icloud.com"])
  }

  @Test("every value the secure archive holds round-trips")
  func roundTrips() throws {
    let transformer = SecureUnarchiveTransformer()
    func back(_ value: Any) throws -> Any {
      try transformer.value(from: transformer.data(from: value))
    }
    let date = Date(timeIntervalSinceReferenceDate: 123_456.789)
    let uuid = UUID()
    #expect(try back("héllo") as? String == "héllo")
    #expect(try back(42) as? Int == 42)
    #expect(try back(Int64.min) as? Int == Int(Int64.min))
    #expect(try back(2.5) as? Double == 2.5)
    #expect(try back(true) as? Bool == true)
    #expect(try back(date) as? Date == date)
    #expect(try back(Data([0, 1, 255])) as? Data == Data([0, 1, 255]))
    #expect(try back(uuid) as? UUID == uuid)
    let base = try #require(URL(string: "https://example.com/a/"))
    let relative = try #require(URL(string: "b?c=1", relativeTo: base))
    #expect((try back(relative) as? URL)?.absoluteString == relative.absoluteString)
    let nested: [Any] = ["a", [1, 2] as [Any], ["k": date] as [String: Any]]
    let nestedBack = try #require(try back(nested) as? [Any])
    #expect(nestedBack.count == 3 && nestedBack[0] as? String == "a")
    #expect(nestedBack[1] as? [Int] == [1, 2])
    #expect((nestedBack[2] as? [String: Any])?["k"] as? Date == date)
    let set: Set<AnyHashable> = ["x", 3]
    #expect(try back(set) as? Set<AnyHashable> == set)
    let keyed: [AnyHashable: Any] = [AnyHashable(uuid): "u", AnyHashable(7): "seven"]
    let keyedBack = try #require(try back(keyed) as? [AnyHashable: Any])
    #expect(
      keyedBack[AnyHashable(uuid)] as? String == "u"
        && keyedBack[AnyHashable(7)] as? String == "seven")
  }

  @Test("what the secure archive cannot hold, and damaged archives, are refused with a reason")
  func refusals() throws {
    let transformer = SecureUnarchiveTransformer()
    struct Custom {}
    #expect(throws: TransformError.self) { try transformer.data(from: Custom()) }
    var deep: Any = ["leaf"]
    for _ in 0..<100 { deep = [deep] }
    #expect(throws: TransformError.self) { try transformer.data(from: deep) }
    for bytes in [
      Data(), Data("bplist00".utf8), Data("not an archive".utf8), Self.appleClock.prefix(60),
    ] {
      #expect(throws: TransformError.self) { try transformer.value(from: bytes) }
    }
    // A property list that is no keyed archive, and an archive of a class only its app has.
    let custom = Self.appleEmails.replacing(
      Data("NSDictionary".utf8), with: Data("OCKContactXY".utf8))
    let error = try #require(throws: TransformError.self) { try transformer.value(from: custom) }
    #expect(error.description.contains("OCKContactXY"))
    // Random damage never crashes.
    var random = SeededGenerator(seed: 7)
    for _ in 0..<500 {
      var damaged = Array(Self.appleEmails)
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(
          in: 0...255, using: &random)
      }
      _ = try? transformer.value(from: Data(damaged))
    }
  }

  @Test(
    "a transformable attribute reads and takes its transformer's values, kept as bytes, in every format"
  )
  func throughDocuments() throws {
    ValueTransformerRegistry.register(
      JSONValueTransformer<Palette>(), forName: "PaletteTransformer")
    defer { ValueTransformerRegistry.unregister(name: "PaletteTransformer") }
    let palette = Palette(name: "sea", colors: ["#003", "#06c"])
    for format in [XMLStore(), BinaryStore(), SQLiteStore()] as [any StoreFormat] {
      let fixture = try DocumentFixture()
      defer { fixture.remove() }
      let url = fixture.url("sketch.\(format.fileExtension)")
      let document = try Document(model: try Self.model(), eventLoop: fixture.loop)
      let sketch = try document.context.insertNewObject(forEntityName: "Sketch")
      try sketch.setValue(["waves", "sand"], forKey: "tags")
      try sketch.setValue(palette, forKey: "palette")
      try sketch.setValue(Data([1, 2, 3]), forKey: "raw")
      #expect(try sketch.value(forKey: "tags") as? [String] == ["waves", "sand"], "\(format)")
      fixture.loop.endTurn()
      try document.save(to: url, format: format)
      let reopened = try Document.open(
        url, model: try Self.model(), formats: [format], eventLoop: fixture.loop)
      let read = try #require(try reopened.context.objects(ofEntity: "Sketch").first)
      #expect(try read.value(forKey: "tags") as? [String] == ["waves", "sand"], "\(format)")
      #expect(try read.value(forKey: "palette", as: Palette.self) == palette, "\(format)")
      // An attribute whose transformer nobody registered keeps its bytes.
      #expect(try read.value(forKey: "raw") as? Data == Data([1, 2, 3]), "\(format)")
      // The store keeps the archive's bytes, as Core Data's stores do.
      let record = try #require(try format.read(from: url, model: try Self.model()).records.first)
      guard case .transformable(let bytes)? = record.attributes["tags"] else {
        Issue.record(
          "\(format): tags is not kept as bytes: \(String(describing: record.attributes["tags"]))")
        continue
      }
      #expect(bytes.starts(with: Data("bplist00".utf8)), "\(format)")
      #expect(
        try SecureUnarchiveTransformer().value(from: bytes) as? [String] == ["waves", "sand"])
    }
  }

  @Test(
    "a value its transformer does not take, or bytes it cannot read, are typed errors naming Entity.key"
  )
  func typedErrors() throws {
    ValueTransformerRegistry.register(
      JSONValueTransformer<Palette>(), forName: "PaletteTransformer")
    defer { ValueTransformerRegistry.unregister(name: "PaletteTransformer") }
    let context = ManagedObjectContext(model: try Self.model())
    let sketch = try context.insertNewObject(forEntityName: "Sketch")
    let wrong = try #require(throws: GraphError.self) {
      try sketch.setValue("not a palette", forKey: "palette")
    }
    #expect(wrong.code == .typeMismatch)
    #expect(wrong.location?.entity == "Sketch" && wrong.location?.property == "palette")
    // Bytes set as a model value are taken as they are, and read through the transformer.
    try sketch.setValue(AttributeValue.transformable(Data("{oops".utf8)), forKey: "palette")
    let unreadable = try #require(throws: GraphError.self) { try sketch.value(forKey: "palette") }
    #expect(unreadable.code == .typeMismatch)
    #expect(unreadable.message.contains("PaletteTransformer"))
    // Unregistered, the attribute is bytes again.
    ValueTransformerRegistry.unregister(name: "PaletteTransformer")
    #expect(try sketch.value(forKey: "palette") as? Data == Data("{oops".utf8))
  }

  /// A sketch as codegen writes its class for transformable attributes with a class.
  final class TypedSketch: ManagedObject {
    override class var entityName: String { "Sketch" }
    var tags: [String]? {
      get { transformedValue(forKey: "tags") }
      set { setTransformedValue(newValue, forKey: "tags") }
    }
    var sizes: [Int64]? {
      get { transformedValue(forKey: "tags") }
      set { setTransformedValue(newValue, forKey: "tags") }
    }
    var palette: Palette? {
      get { transformedValue(forKey: "palette") }
      set { setTransformedValue(newValue, forKey: "palette") }
    }
  }

  @Test("typed properties read and set transformable values through their transformer")
  func typedProperties() throws {
    ValueTransformerRegistry.register(
      JSONValueTransformer<Palette>(), forName: "PaletteTransformer")
    defer { ValueTransformerRegistry.unregister(name: "PaletteTransformer") }
    var model = try Self.model()
    try model.register([TypedSketch.self])
    let context = ManagedObjectContext(model: model)
    let sketch = TypedSketch(context: context)
    #expect(sketch.tags == nil && sketch.palette == nil)
    sketch.tags = ["a", "b"]
    #expect(sketch.tags == ["a", "b"])
    #expect(try sketch.value(forKey: "tags") as? [String] == ["a", "b"])
    // Numbers come back as any width the property asks for.
    sketch.sizes = [3, -4, Int64.max]
    #expect(sketch.sizes == [3, -4, Int64.max])
    sketch.palette = Palette(name: "dusk", colors: ["#222"])
    #expect(sketch.palette == Palette(name: "dusk", colors: ["#222"]))
    sketch.palette = nil
    #expect(try sketch.palette == nil && sketch.value(forKey: "palette") == nil)
  }

  @Test("a copy keeps a transformable attribute's bytes, and a paste puts them back")
  func pasteboard() throws {
    let context = ManagedObjectContext(model: try Self.model())
    let sketch = try context.insertNewObject(forEntityName: "Sketch")
    try sketch.setValue(["a", "b"], forKey: "tags")
    let pasted = try context.duplicate([sketch])
    let copy = try #require(pasted.roots.first)
    #expect(try copy.value(forKey: "tags") as? [String] == ["a", "b"])
  }
}
