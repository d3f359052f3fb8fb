import FolioMigration
import FolioModel
import FolioQuery
import FolioStores
import Foundation

/// Xcode mapping models and their value expressions (`Formats/xcmappingmodel.md`).
///
/// The first byte of an input chooses what the rest is:
/// - 0 (mod 3): an `xcmapping.xml`, read with `XcodeMappingModel(contentsOf:)`.
/// - 1: UTF-8 text (invalid sequences replaced) for `MappingExpression(format:)`, which must
///   parse or throw `.syntax` at a column of the text.
/// - 2: a stored value expression (`valueExpressionData`: a keyed archive in a binary property
///   list), wrapped in a one-mapping `xcmapping.xml` and read as in 0.
///
/// A mapping that reads has its default expressions resolved with each source model of the
/// mapping fixtures (`Tests/FolioMigrationTests/Fixtures/`), which must give a mapping or
/// `.modelMismatch`; resolving again must change nothing. An expression that parses must print
/// as text that parses back to an equal expression (a NaN equal to a NaN), as `description`
/// promises; so must every expression a mapping reads with, unless it holds a name the text
/// cannot write (`Formats/xcmappingmodel.md` §7.4). The harness traps when one does not.
package enum MappingModelFuzzing: FuzzTarget {
  private static let scratch = ScratchFile("xcmapping.xml")

  /// The source models of the three mapping fixtures.
  static let sourceModels: [ManagedObjectModel] = [
    "objcio__core-data__Moody_2", "jessesquires__JSQCoreDataKit__Version_2",
    "alemar11__CoreDataPlus__SampleModel2",
  ].map { name in
    let url = FixedModels.root.appendingPathComponent(
      "Tests/FolioMigrationTests/Fixtures/\(name).xcdatamodel.contents.xml")
    do {
      return try ManagedObjectModel(contentsOf: url)
    } catch {
      preconditionFailure("the model \(url.path) does not load: \(error)")
    }
  }

  /// Loads the models and warms the readers up, the schema of mapping files included.
  package static func prepare() {
    _ = sourceModels
    func reference(_ number: Int64) -> PropertyListValue {
      .dictionary(["CF$UID": .integer(number)])
    }
    let archive = BinaryPropertyList.encode(
      .dictionary([
        "$archiver": .string("NSKeyedArchiver"), "$top": .dictionary(["root": reference(1)]),
        "$objects": .array([
          .string("$null"), .dictionary(["NSVariable": reference(2), "$class": reference(3)]),
          .string("source"), .dictionary(["$classname": .string("NSVariableExpression")]),
        ]),
      ]))
    run(Data([0]))
    run(Data([1]) + Data("FUNCTION($manager, \"a:\", now(), -1.5 * 2).b".utf8))
    run(Data([2]) + archive)
  }

  /// Runs one input.
  package static func run(_ input: Data) {
    guard let mode = input.first else { return }
    let rest = Data(input.dropFirst())
    switch mode % 3 {
    case 0: mappingFile(rest)
    case 1: formatText(String(decoding: rest, as: UTF8.self))
    default: mappingFile(Data(wrapping(archive: rest).utf8))
    }
  }

  // MARK: Mapping files

  private static func mappingFile(_ bytes: Data) {
    let url = scratch.write(bytes)
    guard
      let mapping = attempt("reading", { try XcodeMappingModel(contentsOf: url).mappingModel })
    else { return }
    checkExpressions(of: mapping)
    for model in sourceModels {
      let resolved: MappingModel
      do {
        resolved = try mapping.resolvingDefaultExpressions(sourceModel: model)
      } catch {
        precondition(error.code == .modelMismatch, "resolving throws \(error.code): \(error)")
        continue
      }
      do {
        let again = try resolved.resolvingDefaultExpressions(sourceModel: model)
        precondition(again == resolved, "resolving twice changes the mapping")
      } catch {
        preconditionFailure("a resolved mapping does not resolve again: \(error)")
      }
      checkExpressions(of: resolved)
    }
  }

  private static func checkExpressions(of mapping: MappingModel) {
    for entityMapping in mapping.entityMappings {
      for row in entityMapping.attributeMappings + entityMapping.relationshipMappings {
        if let expression = row.valueExpression, isWritable(expression) {
          checkRoundTrip(expression, from: "the row \(entityMapping.name).\(row.name)")
        }
      }
    }
  }

  /// A one-mapping `xcmapping.xml` whose one attribute mapping stores `archive`.
  static func wrapping(archive: Data) -> String {
    """
    <?xml version="1.0" standalone="no"?>
    <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

    <database>
        <object type="XDDEVMAPPINGMODEL" id="z101">
            <attribute name="sourcemodelpath" type="string">Moody.xcdatamodeld/Moody 2.xcdatamodel</attribute>
            <attribute name="destinationmodelpath" type="string">Moody.xcdatamodeld/Moody 3.xcdatamodel</attribute>
            <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z102"></relationship>
        </object>
        <object type="XDDEVENTITYMAPPING" id="z102">
            <attribute name="sourcename" type="string">Mood</attribute>
            <attribute name="destinationname" type="string">Mood</attribute>
            <attribute name="mappingnumber" type="int16">1</attribute>
            <attribute name="autogenerateexpression" type="bool">1</attribute>
            <relationship name="mappingmodel" type="1/1" destination="XDDEVMAPPINGMODEL" idrefs="z101"></relationship>
            <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z103"></relationship>
        </object>
        <object type="XDDEVATTRIBUTEMAPPING" id="z103">
            <attribute name="name" type="string">rating</attribute>
            <attribute name="valueexpressiondata" type="binary">\(archive.base64EncodedString())</attribute>
            <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="z102"></relationship>
        </object>
    </database>

    """
  }

  // MARK: Format text

  private static func formatText(_ text: String) {
    let expression: MappingExpression
    do {
      expression = try MappingExpression(format: text)
    } catch {
      attempt("parsing") { throw error }
      precondition(error.code == .syntax, "\(text) throws \(error.code): \(error)")
      let column = error.location?.column ?? 0
      precondition(
        (1...text.count + 1).contains(column),
        "\(text) throws at column \(column), outside the text: \(error)")
      return
    }
    checkRoundTrip(expression, from: text)
  }

  /// Traps unless `expression` prints as text that parses back to it; `origin` names it.
  private static func checkRoundTrip(_ expression: MappingExpression, from origin: String) {
    let printed = expression.description
    do {
      let again = try MappingExpression(format: printed)
      precondition(
        again == expression || isSame(again, expression),
        "\(origin) prints as \(printed), which parses differently")
    } catch {
      preconditionFailure("\(origin) prints as \(printed), which does not parse: \(error)")
    }
  }

  /// Equality, but for a NaN, which is equal to a NaN here.
  private static func isSame(_ left: MappingExpression, _ right: MappingExpression) -> Bool {
    switch (left, right) {
    case (.constant(.double(let a)), .constant(.double(let b))),
      (.constant(.date(let a)), .constant(.date(let b))):
      return a == b || (a.isNaN && b.isNaN)
    case (.keyPath(let a, let path), .keyPath(let b, let otherPath)):
      return path == otherPath && isSame(a, b)
    case (.function(let a, let selector, let arguments), .function(let b, let other, let more)):
      return selector == other && isSame(a, b) && isSame(arguments, more)
    case (.builtin(let name, let arguments), .builtin(let other, let more)):
      return name == other && isSame(arguments, more)
    default:
      return left == right
    }
  }

  private static func isSame(_ left: [MappingExpression], _ right: [MappingExpression]) -> Bool {
    left.count == right.count && zip(left, right).allSatisfy { isSame($0, $1) }
  }

  // MARK: Names the text can write

  /// Whether every name in `expression` can be written as format text
  /// (`Formats/predicate-format.md` §2.1): variables and key path steps are names (a step may
  /// be an `@` operator, and prints escaped with `#` when spelled like a keyword); a built-in
  /// is a name that is not a keyword, `TERNARY` or `FUNCTION`, or names each followed by a
  /// colon (`add:to:`, some but the first may be left out, `a::`), the first not a keyword.
  /// The reader reads any string there, and `description` documents that those others do not
  /// parse back.
  static func isWritable(_ expression: MappingExpression) -> Bool {
    switch expression {
    case .constant:
      return true
    case .variable(let name):
      return QueryExpression.isName(name)
    case .keyPath(let base, let path):
      let steps = path.split(separator: ".", omittingEmptySubsequences: false)
      return isWritable(base)
        && steps.allSatisfy {
          QueryExpression.isName($0) || ($0.first == "@" && QueryExpression.isName($0.dropFirst()))
        }
    case .function(let receiver, _, let arguments):
      return isWritable(receiver) && arguments.allSatisfy(isWritable)
    case .builtin(let name, let arguments):
      let parts = name.split(separator: ":", omittingEmptySubsequences: false)
      let first = parts[0]
      guard QueryExpression.isName(first), !QueryExpression.isKeyword(first) else { return false }
      let isCallable =
        parts.count == 1
        ? !(first.utf8.allSatisfy { $0 < 0x80 }
          && ["TERNARY", "FUNCTION"].contains(first.uppercased()))
        : parts.last?.isEmpty == true
          && parts.dropFirst().dropLast().allSatisfy { $0.isEmpty || QueryExpression.isName($0) }
      return isCallable && arguments.allSatisfy(isWritable)
    }
  }
}
