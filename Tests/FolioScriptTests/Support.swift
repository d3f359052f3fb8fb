import Folio
import FolioTestSupport
import Foundation
import Testing

@testable import FolioScript

/// The Expenses sample model, as a quoted absolute path for a `model` command.
let expensesModel = "\"\(packageRoot.path)/Samples/Expenses/Expenses.xcdatamodeld\""
/// The Company sample model, as a quoted absolute path.
let companyModel = "\"\(packageRoot.path)/Samples/Company/Company.xcdatamodeld\""
/// The Messaging sample model, as a quoted absolute path.
let messagingModel = "\"\(packageRoot.path)/Samples/Messaging/Messaging.xcdatamodeld\""

/// A model with every attribute type the script language writes, inheritance (abstract `Item`
/// with `Book` and `Magazine`), a derived attribute, an unordered to-many (`Shelf.items`,
/// Cascade) and an ordered many-to-many (`Reader.favourites` ⟷ `Book.readers`).
let libraryModelXML = """
  <model>
    <entity name="Item" isAbstract="YES">
      <attribute name="title" optional="YES" attributeType="String"/>
      <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="items" inverseEntity="Shelf"/>
    </entity>
    <entity name="Book" parentEntity="Item">
      <attribute name="small" optional="YES" attributeType="Integer 16"/>
      <attribute name="pages" optional="YES" attributeType="Integer 32"/>
      <attribute name="big" optional="YES" attributeType="Integer 64"/>
      <attribute name="price" optional="YES" attributeType="Decimal"/>
      <attribute name="weight" optional="YES" attributeType="Double"/>
      <attribute name="rating" optional="YES" attributeType="Float"/>
      <attribute name="inPrint" optional="YES" attributeType="Boolean"/>
      <attribute name="published" optional="YES" attributeType="Date"/>
      <attribute name="cover" optional="YES" attributeType="Binary"/>
      <attribute name="id" optional="YES" attributeType="UUID"/>
      <attribute name="homepage" optional="YES" attributeType="URI"/>
      <attribute name="shout" optional="YES" attributeType="String" derived="YES" derivationExpression="uppercase:(title)"/>
      <relationship name="readers" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Reader" inverseName="favourites" inverseEntity="Reader"/>
    </entity>
    <entity name="Magazine" parentEntity="Item">
      <attribute name="issue" optional="YES" attributeType="Integer 16"/>
    </entity>
    <entity name="Shelf">
      <attribute name="name" attributeType="String"/>
      <relationship name="items" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Item" inverseName="shelf" inverseEntity="Item"/>
    </entity>
    <entity name="Reader">
      <attribute name="name" attributeType="String"/>
      <relationship name="favourites" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="readers" inverseEntity="Book"/>
    </entity>
  </model>
  """

/// The library model written to a temporary `contents` file, as a quoted absolute path.
let libraryModel: String = {
  let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("folio-script-tests-\(UUID().uuidString)", isDirectory: true)
  try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let file = folder.appendingPathComponent("contents")
  try? Data(libraryModelXML.utf8).write(to: file)
  return "\"\(file.path)\""
}()

/// What running a script did: the lines it printed and the error that stopped it.
struct Replay {
  var output: [String]
  var error: ScriptError?
  var runner: ScriptRunner

  /// The error's full description, or `nil` when the script ran to its end.
  var failure: String? { error?.description }
}

/// Parses and runs `text` as the script `file`, with `formats` for `open` and `save`.
func replay(
  _ text: String, file: String = "t.undo", trace: Bool = false, formats: [any StoreFormat] = []
) -> Replay {
  var lines: [String] = []
  let runner = ScriptRunner(trace: trace, formats: formats) { lines.append($0) }
  do {
    try runner.run(Script(parsing: text, file: file))
    return Replay(output: lines, error: nil, runner: runner)
  } catch {
    return Replay(output: lines, error: error, runner: runner)
  }
}

/// Runs `text` as `t.undo` in a fresh folder, where its saves write XML stores.
func replayInFolder(_ text: String, trace: Bool = false) throws -> Replay {
  let folder = try makeTemporaryFolder()
  defer { try? FileManager.default.removeItem(at: folder) }
  return replay(
    text, file: folder.appendingPathComponent("t.undo").path, trace: trace,
    formats: [XMLStore()])
}

/// The syntax error `text` gives as the script `t.undo`, as `file:line:column: message`.
func syntaxError(_ text: String) -> String? {
  do {
    _ = try Script(parsing: text, file: "t.undo")
    return nil
  } catch {
    return error.code == .syntax ? error.description : "not a syntax error: \(error)"
  }
}

/// The kind of the only command in `line`.
func parsed(_ line: String) throws -> ScriptCommand.Kind {
  let script = try Script(parsing: line, file: "t.undo")
  try #require(script.commands.count == 1)
  return script.commands[0].kind
}
