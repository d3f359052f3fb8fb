import CFolioXML
import CLibXML2
import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores
@testable import FolioXMLStore

/// Paths, models and checks shared by the XML store tests.
enum XMLStoreSupport {
  /// `../shared/corpus/stores` beside the package, or `nil` when it is not there.
  static var corpusStores: URL? {
    let url = packageRoot.deletingLastPathComponent().appendingPathComponent(
      "shared/corpus/stores")
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
  }

  /// The corpus stores' file names, or an empty list when the corpus is absent.
  static var corpusNames: [String] {
    guard let folder = corpusStores else { return [] }
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
  }

  /// `Formats/xml-store.rng`.
  static let schema = packageRoot.appendingPathComponent("Formats/xml-store.rng")

  /// A model with an attribute of every storable type and every kind of relationship.
  static func everyTypeModel() throws -> ManagedObjectModel {
    let address = CompositeDescription(
      "Address",
      attributes: [
        AttributeDescription("street", .string), AttributeDescription("number", .integer32),
      ])
    var location = AttributeDescription("address", .composite)
    location.compositeName = "Address"
    var item = EntityDescription("Item") {
      AttributeDescription("text", .string)
      AttributeDescription("small", .integer16)
      AttributeDescription("medium", .integer32)
      AttributeDescription("large", .integer64)
      AttributeDescription("price", .decimal)
      AttributeDescription("ratio", .double)
      AttributeDescription("weight", .float)
      AttributeDescription("flag", .boolean)
      AttributeDescription("when", .date)
      AttributeDescription("blob", .binaryData)
      AttributeDescription("identifier", .uuid)
      AttributeDescription("link", .uri)
      AttributeDescription("payload", .transformable)
      AttributeDescription("reference", .objectID)
      RelationshipDescription("owner", to: "Owner", inverse: "items")
      RelationshipDescription("tags", to: "Tag", inverse: "items", toMany: true)
    }
    item.attributes.append(location)
    return try ManagedObjectModel(
      entities: [
        item,
        EntityDescription("Owner") {
          AttributeDescription("name", .string)
          RelationshipDescription(
            "items", to: "Item", inverse: "owner", toMany: true, ordered: true)
          RelationshipDescription("best", to: "Item")
        },
        EntityDescription("Tag") {
          AttributeDescription("name", .string)
          RelationshipDescription("items", to: "Item", inverse: "tags", toMany: true)
        },
      ], composites: [address])
  }

  /// The Expenses model: Person (name, spendings) and Spending (amount, content, date, person).
  static func expensesModel() throws -> ManagedObjectModel {
    try ManagedObjectModel {
      EntityDescription("Person") {
        AttributeDescription("name", .string)
        RelationshipDescription("spendings", to: "Spending", inverse: "person", toMany: true)
      }
      EntityDescription("Spending") {
        AttributeDescription("amount", .double)
        AttributeDescription("content", .string)
        AttributeDescription("date", .date)
        RelationshipDescription("person", to: "Person", inverse: "spendings")
      }
    }
  }

  /// Writes `text` to a file in `folder` and returns its URL.
  static func file(_ text: String, in folder: URL, name: String = "store.xml") throws -> URL {
    let url = folder.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url
  }

  /// An XML store around `objects`, with Core Data's prolog and no metadata.
  static func store(_ objects: String) -> String {
    """
    <?xml version="1.0"?>
    <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

    <database>
    \(objects)
    </database>

    """
  }

  /// The `StoreError` that `body` throws, or `nil`.
  static func storeError(_ body: () throws(StoreError) -> Void) -> StoreError? {
    do {
      try body()
      return nil
    } catch {
      return error
    }
  }

  /// Validates the file at `url` against `Formats/xml-store.rng` with libxml2's RELAX NG
  /// validator; returns the first error, or `nil` when the file is valid.
  static func schemaError(of url: URL) -> String? {
    lock.lock()
    defer { lock.unlock() }
    _ = initialize
    guard let parserContext = xmlRelaxNGNewParserCtxt(schema.path) else {
      return "cannot open the schema"
    }
    defer { xmlRelaxNGFreeParserCtxt(parserContext) }
    var parseError = folio_xml_first_error()
    folio_xml_relaxng_parser_capture_errors(parserContext, &parseError)
    guard let grammar = xmlRelaxNGParse(parserContext) else {
      return "the schema does not parse: \(message(of: parseError))"
    }
    defer { xmlRelaxNGFree(grammar) }
    let options = Int32(
      XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
    guard let document = xmlReadFile(url.path, nil, options) else { return "not well-formed XML" }
    defer { xmlFreeDoc(document) }
    guard let validator = xmlRelaxNGNewValidCtxt(grammar) else { return "no validator" }
    defer { xmlRelaxNGFreeValidCtxt(validator) }
    var validationError = folio_xml_first_error()
    folio_xml_relaxng_validator_capture_errors(validator, &validationError)
    let status = xmlRelaxNGValidateDoc(validator, document)
    guard status == 0 else {
      return "line \(validationError.line): \(message(of: validationError))"
    }
    return nil
  }

  /// libxml2's RELAX NG type registry is set up once, before any test thread uses it.
  private static let initialize: Void = {
    xmlInitParser()
    _ = xmlRelaxNGInitTypes()
  }()

  private static let lock = NSLock()

  private static func message(of error: folio_xml_first_error) -> String {
    withUnsafeBytes(of: error.message) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
