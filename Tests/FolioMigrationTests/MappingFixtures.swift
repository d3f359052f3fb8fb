import FolioBinaryStore
import FolioModel
import FolioStores
import FolioTestSupport
import Foundation

/// The mapping model files the tests read: the copies in `Fixtures/`, the corpus beside the
/// package, and small stores written for one case.
enum MappingFixtures {
  /// `Fixtures/` beside this file.
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

  static func fixture(_ name: String) -> URL { folder.appendingPathComponent(name) }

  static let moody = fixture("objcio__core-data__Moody_2-Moody_3.xcmappingmodel.xcmapping.xml")
  static let employees = fixture(
    "jessesquires__JSQCoreDataKit__Version2_to_Version3.xcmappingmodel.xcmapping.xml")
  static let cars = fixture("alemar11__CoreDataPlus__V2toV3.xcmappingmodel.xcmapping.xml")

  static func moodyModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(
      contentsOf: fixture("objcio__core-data__Moody_2.xcdatamodel.contents.xml"))
  }

  static func employeesModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(
      contentsOf: fixture("jessesquires__JSQCoreDataKit__Version_2.xcdatamodel.contents.xml"))
  }

  static func carsModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(
      contentsOf: fixture("alemar11__CoreDataPlus__SampleModel2.xcdatamodel.contents.xml"))
  }

  // MARK: The corpus

  /// `../shared/corpus` beside the package, or `nil` when it is not there.
  static var corpus: URL? {
    let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
  }

  /// One mapping model of the corpus and the models its manifest row says it maps between.
  struct CorpusMapping: CustomStringConvertible, Sendable {
    var file: String
    var sourceModel: String?
    var destinationModel: String?
    var description: String { file }

    var url: URL? { corpus?.appendingPathComponent("stores/\(file)") }

    /// The model named `name` in the corpus, or `nil` when it is not there.
    static func model(_ name: String?) throws -> ManagedObjectModel? {
      guard let name, let corpus else { return nil }
      let url = corpus.appendingPathComponent("models/\(name)")
      guard FileManager.default.fileExists(atPath: url.path) else { return nil }
      return try ManagedObjectModel(contentsOf: url)
    }
  }

  /// The corpus's mapping models, from its manifest; empty without the corpus.
  static let corpusMappings: [CorpusMapping] = {
    guard let corpus,
      let manifest = try? String(
        contentsOf: corpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
    else { return [] }
    return manifest.split(separator: "\n").compactMap { line in
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard let file = fields.first, file.hasSuffix(".xcmappingmodel.xcmapping.xml") else {
        return nil
      }
      // The notes end "maps <source model> -> <destination model>".
      let notes = fields.last ?? ""
      guard let range = notes.range(of: "maps ") else {
        return CorpusMapping(file: file)
      }
      let sides = notes[range.upperBound...].components(separatedBy: " -> ")
      return CorpusMapping(
        file: file, sourceModel: sides.first,
        destinationModel: sides.count > 1
          ? sides[1].split(separator: " ").first.map(String.init) : nil)
    }.sorted { $0.file < $1.file }
  }()

  // MARK: Stores written for one case

  /// An `xcmapping.xml` store holding `objects`, the `<object>` elements.
  static func store(_ objects: [String]) -> String {
    """
    <?xml version="1.0" standalone="no"?>
    <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

    <database>
    \(objects.joined(separator: "\n"))
    </database>

    """
  }

  /// The root object, owning the entity mappings `entityMappings` (`"z102 z103"`).
  static func root(_ entityMappings: String, id: String = "z101") -> String {
    """
        <object type="XDDEVMAPPINGMODEL" id="\(id)">
            <attribute name="sourcemodelpath" type="string">Demo/Shop.xcdatamodeld/Shop.xcdatamodel</attribute>
            <attribute name="destinationmodelpath" type="string">Demo/Shop.xcdatamodeld/Shop 2.xcdatamodel</attribute>
            <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="\(entityMappings)"></relationship>
        </object>
    """
  }

  /// An entity mapping with the given attributes (`nil` leaves one out).
  static func entityMapping(
    _ id: String, source: String?, destination: String?, number: Int? = 1, name: String? = nil,
    attributes: String = "", relationships: String = "", autoGenerates: Bool = true,
    extra: String = ""
  ) -> String {
    var lines: [String] = []
    if let source { lines.append(attribute("sourcename", source)) }
    if let destination { lines.append(attribute("destinationname", destination)) }
    if let name { lines.append(attribute("name", name)) }
    if let number { lines.append(attribute("mappingnumber", String(number), type: "int16")) }
    lines.append(attribute("mappingtypename", "Undefined"))
    lines.append(attribute("autogenerateexpression", autoGenerates ? "1" : "0", type: "bool"))
    if !extra.isEmpty { lines.append(extra) }
    return """
          <object type="XDDEVENTITYMAPPING" id="\(id)">
      \(lines.joined(separator: "\n"))
              <relationship name="mappingmodel" type="1/1" destination="XDDEVMAPPINGMODEL" idrefs="z101"></relationship>
              <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="\(attributes)"></relationship>
              <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="\(relationships)"></relationship>
          </object>
      """
  }

  /// An attribute mapping of entity mapping `owner`, with an archived expression when
  /// `archive` is given.
  static func attributeMapping(_ id: String, name: String?, owner: String, archive: Data? = nil)
    -> String
  {
    var lines: [String] = []
    if let name { lines.append(attribute("name", name)) }
    if let archive {
      lines.append(attribute("valueexpressiondata", archive.base64EncodedString(), type: "binary"))
    }
    return """
          <object type="XDDEVATTRIBUTEMAPPING" id="\(id)">
      \(lines.joined(separator: "\n"))
              <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="\(owner)"></relationship>
          </object>
      """
  }

  /// A relationship mapping of entity mapping `owner` with Xcode's Key Path and Mapping Name
  /// fields.
  static func relationshipMapping(
    _ id: String, name: String, owner: String, keyPath: String? = nil, mappingName: String? = nil
  ) -> String {
    var lines = [attribute("name", name), attribute("autogenerateexpression", "1", type: "bool")]
    if let keyPath { lines.append(attribute("sourcekeypath", keyPath)) }
    if let mappingName { lines.append(attribute("sourcemappingname", mappingName)) }
    return """
          <object type="XDDEVRELATIONSHIPMAPPING" id="\(id)">
      \(lines.joined(separator: "\n"))
              <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="\(owner)"></relationship>
          </object>
      """
  }

  static func attribute(_ name: String, _ value: String, type: String = "string") -> String {
    let escaped = value.replacingOccurrences(of: "&", with: "&amp;")
      .replacingOccurrences(of: "<", with: "&lt;")
    return "            <attribute name=\"\(name)\" type=\"\(type)\">\(escaped)</attribute>"
  }

  /// A one-mapping store (`PersonToPerson`, attribute `name` as object z103) whose attribute
  /// mapping holds `archive`.
  static func storeWithArchive(_ archive: Data) -> String {
    store([
      root("z102"),
      entityMapping("z102", source: "Person", destination: "Person", attributes: "z103"),
      attributeMapping("z103", name: "name", owner: "z102", archive: archive),
    ])
  }

  /// Writes `text` as `xcmapping.xml` in a new `.xcmappingmodel` folder, and returns the file.
  static func write(_ text: String) throws -> URL {
    let folder = try makeTemporaryFolder().appendingPathComponent("Shop.xcmappingmodel")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("xcmapping.xml")
    try Data(text.utf8).write(to: file)
    return file
  }
}

/// Builds NSKeyedArchiver archives of expressions, as Foundation writes them.
struct ArchiveBuilder {
  private var objects: [PropertyListValue] = [.string("$null")]
  private var classes: [String: PropertyListValue] = [:]

  /// A reference to object `number`, as some archivers write it.
  static func reference(_ number: Int) -> PropertyListValue {
    .dictionary(["CF$UID": .integer(Int64(number))])
  }

  /// The reference to `$null`.
  static let null = reference(0)

  /// Adds `value` to the objects and returns a reference to it.
  mutating func add(_ value: PropertyListValue) -> PropertyListValue {
    objects.append(value)
    return Self.reference(objects.count - 1)
  }

  /// Adds an instance of `className` with `fields`, and returns a reference to it.
  mutating func object(_ className: String, _ fields: [String: PropertyListValue])
    -> PropertyListValue
  {
    let classReference: PropertyListValue
    if let known = classes[className] {
      classReference = known
    } else {
      classReference = add(
        .dictionary([
          "$classname": .string(className),
          "$classes": .array([.string(className), .string("NSObject")]),
        ]))
      classes[className] = classReference
    }
    var fields = fields
    fields["$class"] = classReference
    return add(.dictionary(fields))
  }

  mutating func variable(_ name: String) -> PropertyListValue {
    object(
      "NSVariableExpression", ["NSVariable": add(.string(name)), "NSExpressionType": .integer(2)])
  }

  mutating func constant(_ value: PropertyListValue?) -> PropertyListValue {
    var fields: [String: PropertyListValue] = ["NSExpressionType": .integer(0)]
    if let value { fields["NSConstantValue"] = add(value) }
    return object("NSConstantValueExpression", fields)
  }

  mutating func keyPath(_ operand: PropertyListValue, _ path: String) -> PropertyListValue {
    let specifier = object(
      "NSKeyPathSpecifierExpression",
      ["NSKeyPath": add(.string(path)), "NSExpressionType": .integer(10)])
    let arguments = object("NSMutableArray", ["NS.objects": .array([specifier])])
    return object(
      "NSKeyPathExpression",
      [
        "NSOperand": operand, "NSSelectorName": add(.string("valueForKeyPath:")),
        "NSArguments": arguments, "NSExpressionType": .integer(4),
      ])
  }

  mutating func function(
    _ operand: PropertyListValue, _ selector: String, _ arguments: [PropertyListValue]
  ) -> PropertyListValue {
    let array = object("NSArray", ["NS.objects": .array(arguments)])
    return object(
      "NSFunctionExpression",
      [
        "NSOperand": operand, "NSSelectorName": add(.string(selector)), "NSArguments": array,
        "NSExpressionType": .integer(4),
      ])
  }

  /// The operand of a built-in function: the class that implements them.
  mutating func builtinsClass() -> PropertyListValue {
    object(
      "NSConstantValueExpression",
      [
        "NSConstantValueClassName": add(.string("_NSPredicateUtilities")),
        "NSExpressionType": .integer(0),
      ])
  }

  /// The archive, as a binary property list, with `root` as its root object.
  func data(root: PropertyListValue) -> Data {
    BinaryPropertyList.encode(
      .dictionary([
        "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
        "$top": .dictionary(["root": root]), "$objects": .array(objects),
      ]))
  }
}
