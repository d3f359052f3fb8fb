import Foundation
import Testing

@testable import FolioModel

@Suite("Writing Xcode models")
struct XcodeModelWriterTests {
  /// Reads `model`'s XML back, and checks the result equals `model` field by field, has its
  /// version hash, and writes the same text again.
  func expectRoundTrip(_ model: ManagedObjectModel, _ name: String) throws {
    let text = model.xcodeModelXML()
    let read = try ManagedObjectModel(xcodeModelData: Data(text.utf8), path: name)
    #expect(read.versionHash == model.versionHash, "\(name)")
    #expect(read == model, "\(name): \(firstDifference(read, model) ?? "")")
    #expect(read.xcodeModelXML() == text, "\(name)")
  }

  /// Names the first entity or property that differs, to make a failure readable.
  func firstDifference(_ lhs: ManagedObjectModel, _ rhs: ManagedObjectModel) -> String? {
    for (left, right) in zip(lhs.entities, rhs.entities) where left != right {
      for (a, b) in zip(left.attributes, right.attributes) where a != b {
        return "\(left.name).\(a.name): \(a) ≠ \(b)"
      }
      for (a, b) in zip(left.relationships, right.relationships) where a != b {
        return "\(left.name).\(a.name): \(a) ≠ \(b)"
      }
      return "\(left.name)"
    }
    return lhs.entities.count != rhs.entities.count ? "entity count" : nil
  }

  /// The corpus's Xcode models, by file name; empty without `../shared/corpus`.
  static var corpusNames: [String] {
    guard let folder = Paths.corpusModels else { return [] }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".xml") }.sorted()
  }

  @Test(
    "every corpus model that loads is written and read back equal, with the same text",
    .enabled(if: Paths.corpusModels != nil, "../shared/corpus is not beside the package"),
    arguments: corpusNames)
  func corpus(name: String) throws {
    // The one malformed corpus file is refused by the reader (CorpusTests); every other loads.
    guard malformedCorpusFiles[name] == nil else { return }
    let url = try #require(Paths.corpusModels).appendingPathComponent(name)
    let model = try ManagedObjectModel(contentsOf: url)
    try expectRoundTrip(model, name)
  }

  @Test(
    "the sample models are written and read back equal",
    arguments: [
      "Expenses", "Company", "Messaging",
    ])
  func samples(name: String) throws {
    try expectRoundTrip(try ManagedObjectModel(contentsOf: Paths.sample(name)), name)
  }

  /// A model in which every field the reader fills is away from its default.
  static func everyField() throws -> ManagedObjectModel {
    var amount = AttributeDescription("amount", .decimal, isOptional: false)
    amount.defaultValue = .decimal(try #require(Decimal(string: "12.50")))
    amount.minimumValue = .decimal(try #require(Decimal(string: "-0.001")))
    amount.maximumValue = .decimal(1_000_000)
    amount.isIndexed = true
    amount.usesScalarValueType = false
    amount.versionHashModifier = "v2"
    amount.renamingIdentifier = "sum"
    amount.userInfo = ["note": "a & b < c > d \"e\"\tf\ng\r\nh", "": ""]
    amount.preservesValueInHistoryOnDeletion = true
    amount.isIndexedBySpotlight = true
    amount.isStoredInExternalRecord = true
    var ratio = AttributeDescription("ratio", .double, defaultValue: .double(0.1))
    ratio.minimumValue = .double(-1e-5)
    ratio.maximumValue = .double(1e300)
    ratio.usesScalarValueType = true
    var weight = AttributeDescription("weight", .float, defaultValue: .float(0.3))
    weight.maximumValue = .float(3.4e38)
    var count = AttributeDescription("count", .integer64, defaultValue: .integer(Int64.min))
    count.maximumValue = .integer(Int64.max)
    var small = AttributeDescription("small", .integer16, defaultValue: .integer(-32768))
    small.minimumValue = .integer(-5)
    var when = AttributeDescription(
      "when", .date, defaultValue: .date(Date(timeIntervalSinceReferenceDate: 123.456)))
    when.minimumValue = .date(Date(timeIntervalSinceReferenceDate: -1e9))
    when.maximumValue = .date(Date(timeIntervalSinceReferenceDate: 1e9 + 0.5))
    var title = AttributeDescription("title", .string, defaultValue: .string("  <\"&\">\n  "))
    title.minimumLength = 0
    title.maximumLength = 80
    title.regularExpression = #"^[A-Z].*\d$"#
    var blob = AttributeDescription("blob", .binaryData)
    blob.allowsExternalBinaryDataStorage = true
    blob.maximumLength = 1024
    var shape = AttributeDescription("shape", .transformable)
    shape.valueTransformerName = "NSSecureUnarchiveFromData"
    shape.valueClassName = "[String: Int]"
    var total = AttributeDescription("total", .integer32)
    total.derivationExpression = "lines.@sum.amount"
    var empty = AttributeDescription("empty", .string)
    empty.derivationExpression = ""
    var scratch = AttributeDescription("scratch", .undefined)
    scratch.isTransient = true
    let flag = AttributeDescription(
      "flag", .boolean, isOptional: false, defaultValue: .boolean(true))
    let id = AttributeDescription("id", .uuid, defaultValue: .uuid(UUID()))
    let link = AttributeDescription(
      "link", .uri, defaultValue: .uri(try #require(URL(string: "https://example.com/a?b=c&d=e"))))
    let object = AttributeDescription("object", .objectID)
    var place = AttributeDescription("place", .composite)
    place.compositeName = "Location"

    var base = EntityDescription("Base", isAbstract: true)
    base.attributes = [amount, ratio, weight, count, small, when, title, blob, shape]
    base.representedClassName = "Module.Base"
    base.renamingIdentifier = "Root"
    base.versionHashModifier = "tweak"
    base.userInfo = ["k": "v"]
    var invoice = EntityDescription("Invoice", parent: "Base")
    invoice.attributes = [total, empty, scratch, flag, id, link, object, place]
    var lines = RelationshipDescription(
      "lines", to: "Line", inverse: "invoice", toMany: true, ordered: true, isOptional: false,
      deleteRule: .cascade)
    lines.minCount = 1
    lines.maxCount = 99
    lines.isIndexed = true
    lines.versionHashModifier = "m"
    lines.renamingIdentifier = "items"
    lines.userInfo = ["x": "y"]
    var owner = RelationshipDescription("owner", to: "Invoice", deleteRule: .noAction)
    owner.isTransient = true
    var notes = RelationshipDescription("notes", to: "Line", toMany: true, deleteRule: .deny)
    notes.inverseName = "annotated"
    notes.inverseEntityName = "Line"
    invoice.relationships = [lines, owner, notes]
    var big = FetchedPropertyDescription("bigLines", entity: "Line", predicate: "amount > 100")
    big.isOptional = false
    big.userInfo = ["a": "b"]
    invoice.fetchedProperties = [big, FetchedPropertyDescription("all", entity: "Line")]
    invoice.uniquenessConstraints = [["id"], ["flag", "link"], []]
    invoice.fetchIndexes = [
      FetchIndexDescription(
        "byTotal",
        elements: [
          .init(property: "total", ascending: false),
          .init(expression: "total + 1", kind: "R-Tree"),
        ]),
      FetchIndexDescription("draft", elements: []),
    ]
    invoice.compoundIndexes = [["total", "flag"]]
    var line = EntityDescription("Line")
    line.relationships = [
      RelationshipDescription("invoice", to: "Invoice", inverse: "lines"),
      RelationshipDescription("annotated", to: "Invoice", inverse: "notes", toMany: true),
    ]
    var x = AttributeDescription("x", .double, isOptional: false, defaultValue: .double(0))
    x.userInfo = ["unit": "m"]
    return try ManagedObjectModel(
      entities: [base, invoice, line],
      composites: [
        CompositeDescription("Location", attributes: [x, AttributeDescription("y", .float)])
      ],
      configurations: [ConfigurationDescription("Cloud", entityNames: ["Invoice", "Line"])],
      fetchRequestTemplates: [
        FetchRequestTemplate(
          "recent", entity: "Invoice", predicate: "when > $DATE AND title BEGINSWITH \"A\"",
          options: ["fetchLimit": "10", "includeSubentities": "YES", "resultType": "2"])
      ],
      versionIdentifier: "2.1 <beta>")
  }

  @Test("a model with every field set is written and read back equal")
  func everyFieldSet() throws {
    let model = try Self.everyField()
    try expectRoundTrip(model, "every field")
    let text = model.xcodeModelXML()
    #expect(
      text.contains(
        #"<entry key="note" value="a &amp; b &lt; c &gt; d &quot;e&quot;&#9;f&#10;g&#13;&#10;h"/>"#)
    )
    #expect(text.contains(#"defaultDateTimeInterval="123.456""#))
    #expect(text.contains(#"<attribute name="scratch" optional="YES" transient="YES"/>"#))
  }

  @Test("an unset usesScalarValueType and inverseEntity stay unset")
  func unsetStaysUnset() throws {
    let model = try readModel(
      """
      <entity name="A">
          <attribute name="n" attributeType="Integer 32"/>
          <relationship name="b" maxCount="1" destinationEntity="B" inverseName="a"/>
      </entity>
      <entity name="B">
          <relationship name="a" toMany="YES" destinationEntity="A" inverseName="b"/>
      </entity>
      """)
    let text = model.xcodeModelXML()
    #expect(!text.contains("usesScalarValueType"))
    #expect(!text.contains("inverseEntity"))
    #expect(try ManagedObjectModel(xcodeModelData: Data(text.utf8)) == model)
  }

  @Test("a default read leniently is written in the reader's own spelling")
  func coercedDefault() throws {
    let model = try readModel(
      #"<entity name="A"><attribute name="n" attributeType="Integer 16" defaultValueString="3.0"/></entity>"#
    )
    #expect(model.diagnostics.count == 1)
    let text = model.xcodeModelXML()
    #expect(text.contains(#"defaultValueString="3""#))
    let read = try ManagedObjectModel(xcodeModelData: Data(text.utf8))
    #expect(read.diagnostics.isEmpty)
    #expect(read == model)
  }

  @Test("equality compares every field but where parts were declared")
  func equality() throws {
    let model = try Self.everyField()
    var entities = model.entities
    entities[1].attributes[0].renamingIdentifier = "other"
    let changed = try ManagedObjectModel(
      entities: entities, composites: model.composites, configurations: model.configurations,
      fetchRequestTemplates: model.fetchRequestTemplates,
      versionIdentifier: model.versionIdentifier)
    #expect(changed != model)
    #expect(changed.versionHash == model.versionHash)
    var located = model.entities[0].attributes[0]
    located.sourceLocation = InputLocation(file: "contents", line: 12)
    #expect(located == model.entities[0].attributes[0])
  }
}
