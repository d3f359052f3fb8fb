import FolioBinaryStore
import FolioModel
import FolioStores
import FolioTestSupport
import FolioXMLStore
import Foundation
import Testing

@testable import FolioMigration

/// A file that must not read: its text, the code, and the description after the file's path.
struct BadMappingFile: CustomTestStringConvertible, Sendable {
  var id: String
  var text: String
  var code: MappingModelError.Code
  var message: String
  var testDescription: String { id }

  static let all: [BadMappingFile] = [
    BadMappingFile(
      id: "not XML", text: "name,value\nrating,5\n", code: .malformedFile,
      message: ":1:1: not a Core Data XML store: the file is not XML: it starts with \"name,value\""
    ),
    BadMappingFile(
      id: "XML that is no store",
      text: "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>\n",
      code: .malformedFile,
      message: ":2:1: not a Core Data XML store: expected <database>, found <plist>"),
    BadMappingFile(
      id: "a store of other entities, without metadata",
      text: MappingFixtures.store([
        "<object type=\"PERSON\" id=\"z1\">"
          + "<attribute name=\"name\" type=\"string\">Ann</attribute></object>"
      ]),
      code: .notAMappingModel,
      message: ":5:1: not an Xcode mapping model: unknown entity \"PERSON\""),
    BadMappingFile(
      id: "no root object", text: MappingFixtures.store([]), code: .malformedMapping,
      message: ": the store has no XDDevMappingModel object, the root of a mapping model"),
    BadMappingFile(
      id: "two root objects",
      text: MappingFixtures.store([
        MappingFixtures.root("", id: "z101"), MappingFixtures.root("", id: "z102"),
      ]),
      code: .malformedMapping,
      message: ": the store has 2 XDDevMappingModel objects; a mapping model has one root"),
    BadMappingFile(
      id: "two entity mappings of one name",
      text: MappingFixtures.store([
        MappingFixtures.root("z102 z103"),
        MappingFixtures.entityMapping("z102", source: "A", destination: "B", number: 1),
        MappingFixtures.entityMapping(
          "z103", source: "C", destination: "B", number: 2, name: "AToB"),
      ]),
      code: .malformedMapping,
      message:
        ": AToB: object z103: two entity mappings are named \"AToB\"; a mapping is found by its"
        + " name, so each needs its own"),
    BadMappingFile(
      id: "an entity mapping without entity names",
      text: MappingFixtures.store([
        MappingFixtures.root("z102"),
        MappingFixtures.entityMapping("z102", source: nil, destination: nil),
      ]),
      code: .malformedMapping,
      message: ": object z102: the entity mapping names neither a source nor a destination entity"),
    BadMappingFile(
      id: "an attribute mapping without a name",
      text: MappingFixtures.store([
        MappingFixtures.root("z102"),
        MappingFixtures.entityMapping(
          "z102", source: "Person", destination: "Person", attributes: "z103"),
        MappingFixtures.attributeMapping("z103", name: nil, owner: "z102"),
      ]),
      code: .malformedMapping,
      message: ": PersonToPerson: object z103: the attribute mapping has no name"),
    BadMappingFile(
      id: "two rows of one name",
      text: MappingFixtures.store([
        MappingFixtures.root("z102"),
        MappingFixtures.entityMapping(
          "z102", source: "Person", destination: "Person", attributes: "z103",
          relationships: "z104"),
        MappingFixtures.attributeMapping("z103", name: "name", owner: "z102"),
        MappingFixtures.relationshipMapping("z104", name: "name", owner: "z102"),
      ]),
      code: .malformedMapping,
      message:
        ": PersonToPerson.name: object z104: the entity mapping has two property mappings"
        + " named \"name\""
    ),
    BadMappingFile(
      id: "a custom source fetch",
      text: MappingFixtures.store([
        MappingFixtures.root("z102"),
        MappingFixtures.entityMapping(
          "z102", source: "Person", destination: "Person", autoGenerates: false,
          extra: MappingFixtures.attribute("sourceexpressiondata", "AAAA", type: "binary")),
      ]),
      code: .unsupportedExpression,
      message:
        ": PersonToPerson: object z102: the entity mapping fetches its source objects with a custom"
        + " source expression, which Folio does not read"),
    BadMappingFile(
      id: "a key path without a mapping name",
      text: MappingFixtures.store([
        MappingFixtures.root("z102"),
        MappingFixtures.entityMapping(
          "z102", source: "Mood", destination: "Mood", relationships: "z103"),
        MappingFixtures.relationshipMapping(
          "z103", name: "country", owner: "z102", keyPath: "$source.country"),
      ]),
      code: .unsupportedExpression,
      message:
        ": MoodToMood.country: object z103: the relationship mapping has the key path"
        + " \"$source.country\" but no mapping name to find the destination objects with"),
    BadMappingFile(
      id: "a key path that does not parse",
      text: MappingFixtures.store([
        MappingFixtures.root("z102"),
        MappingFixtures.entityMapping(
          "z102", source: "Mood", destination: "Mood", relationships: "z103"),
        MappingFixtures.relationshipMapping(
          "z103", name: "country", owner: "z102", keyPath: "country", mappingName: "CToC"),
      ]),
      code: .malformedMapping,
      message:
        ": MoodToMood.country: object z103: the relationship mapping's key path \"country\" does"
        + " not parse: column 1: the key path \"country\" starts from no variable; write it from"
        + " one, as in \"$source.country\""),
    BadMappingFile(
      id: "an archive that is no property list",
      text: MappingFixtures.storeWithArchive(
        Data("not an archive, just text that is long enough to hold a header".utf8)),
      code: .malformedExpression,
      message:
        ": PersonToPerson.name: object z103: the value expression is not a binary property list:"
        + " binary property list: the bytes start 0x6E 0x6F 0x74 0x20 0x61 0x6E 0x20 0x61, not"
        + " \"bplist00\""
    ),
    BadMappingFile(
      id: "a property list that is no keyed archive",
      text: MappingFixtures.storeWithArchive(BinaryPropertyList.encode(.string("$source.name"))),
      code: .malformedExpression,
      message:
        ": PersonToPerson.name: object z103: the value expression is not a keyed archive: its top"
        + " object is no dictionary"),
    BadMappingFile(
      id: "an archive that refers past its objects",
      text: MappingFixtures.storeWithArchive(
        ArchiveBuilder().data(root: ArchiveBuilder.reference(7))),
      code: .malformedExpression,
      message:
        ": PersonToPerson.name: object z103: the value expression has its root at object 7, but"
        + " the archive has only 1 object"),
    BadMappingFile(
      id: "a subquery expression",
      text: MappingFixtures.storeWithArchive(
        {
          var archive = ArchiveBuilder()
          let subquery = archive.object(
            "NSSubqueryExpression", ["NSVariable": archive.add(.string("x"))])
          return archive.data(root: subquery)
        }()),
      code: .unsupportedExpression,
      message:
        ": PersonToPerson.name: object z103: the value expression holds an expression of class"
        + " \"NSSubqueryExpression\", which Folio does not read"),
    BadMappingFile(
      id: "a constant of an unknown class",
      text: MappingFixtures.storeWithArchive(
        {
          var archive = ArchiveBuilder()
          let number = archive.object("NSDecimalNumber", ["NS.mantissa": .integer(5)])
          let constant = archive.object(
            "NSConstantValueExpression",
            ["NSConstantValue": number, "NSExpressionType": .integer(0)])
          return archive.data(root: constant)
        }()),
      code: .unsupportedExpression,
      message:
        ": PersonToPerson.name: object z103: the value expression holds a constant of class"
        + " \"NSDecimalNumber\", which Folio does not read"),
    BadMappingFile(
      id: "an expression that contains itself",
      text: MappingFixtures.storeWithArchive(
        {
          var archive = ArchiveBuilder()
          // Object 1 is the class, object 2 the key path, whose operand is object 2.
          let keyPath = archive.object(
            "NSKeyPathExpression", ["NSOperand": ArchiveBuilder.reference(2)])
          return archive.data(root: keyPath)
        }()),
      code: .malformedExpression,
      message:
        ": PersonToPerson.name: object z103: the value expression nests more than 100 expressions"
        + " deep"),
  ]
}

@Suite("Xcode mapping models: files that do not read")
struct XcodeMappingModelErrorTests {
  @Test("a bad file is a typed error naming the file and the place", arguments: BadMappingFile.all)
  func badFile(_ bad: BadMappingFile) throws {
    let file = try MappingFixtures.write(bad.text)
    let error = try #require(mappingError { _ = try MappingModel(contentsOf: file) })
    #expect(error.code == bad.code)
    #expect(error.description == file.path + bad.message)
  }

  @Test("a missing file is not found")
  func missing() throws {
    let url = try makeTemporaryFolder().appendingPathComponent("None.xcmappingmodel")
    let error = try #require(mappingError { _ = try MappingModel(contentsOf: url) })
    #expect(error.code == .notFound)
    #expect(error.description == "\(url.path): no mapping model at this path")
  }

  @Test("a folder without xcmapping.xml is not found")
  func emptyFolder() throws {
    let url = try makeTemporaryFolder()
    let error = try #require(mappingError { _ = try MappingModel(contentsOf: url) })
    #expect(error.code == .notFound)
    #expect(
      error.description
        == "\(url.path): the folder has no \"xcmapping.xml\"; an .xcmappingmodel folder holds one")
  }

  @Test("a Core Data XML store of another model is not a mapping model")
  func otherStore() throws {
    let model = try ManagedObjectModel {
      EntityDescription("Person") { AttributeDescription("name", .string) }
    }
    let file = try MappingFixtures.write("")
    try XMLStore().write(
      StoreContents(
        metadata: StoreMetadata(storeType: "XML"),
        records: [StoreRecord(entityName: "Person", id: 1, attributes: ["name": .string("Ann")])]),
      model: model, to: file)
    let error = try #require(mappingError { _ = try MappingModel(contentsOf: file) })
    #expect(error.code == .notAMappingModel)
    #expect(
      error.description
        == "\(file.path): not an Xcode mapping model: the store's model has the entities"
        + " \"Person\" and no \"XDDevMappingModel\"")
  }
}
