import FolioModel
import FolioStores
import FolioTestSupport
import FolioXMLStore
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The progress line is drawn only on a terminal: these tests run `folio` under util-linux's
/// `script`, which gives it a pseudo-terminal, and read what the terminal was sent. The store
/// is a few megabytes, so `FOLIO_PROGRESS_THRESHOLD` lowers the 8 MB threshold below it, and
/// read in a tenth of a second or so, so `FOLIO_PROGRESS_INTERVAL` redraws the line every 2 ms
/// rather than every 100, for frames drawn while the work is under way however fast it goes.
@Suite(
  "progress on a terminal",
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"),
    "needs util-linux's script (Debian's bsdutils) for a terminal"))
struct ProgressTests {
  /// The threshold the tests set, below the store's size and above the samples'.
  static let threshold = "200000"

  /// A folder with an XML store of items and its model's bundle, made once for the suite.
  static let files = Result { try makeFiles() }

  /// The files, in a temporary folder of a fixed name kept from one run to the next (the
  /// suite has no end to remove them at), made there once.
  static func makeFiles() throws -> (store: URL, bundle: URL) {
    let kept = FileManager.default.temporaryDirectory
      .appendingPathComponent("folio-progress-tests-2", isDirectory: true)
    let files = (
      kept.appendingPathComponent("items.xml"),
      kept.appendingPathComponent("Items.xcdatamodeld")
    )
    if FileManager.default.fileExists(atPath: files.0.path) { return files }
    let folder = try makeTemporaryFolder()
    try writeFiles(in: folder)
    // Another run may have put its own there meanwhile: those are as good.
    if rename(folder.path, kept.path) != 0 { try? FileManager.default.removeItem(at: folder) }
    return files
  }

  static func writeFiles(in folder: URL) throws {
    let model = try ManagedObjectModel {
      EntityDescription("Item") {
        AttributeDescription("name", .string)
        AttributeDescription("count", .integer64)
        AttributeDescription("ratio", .double)
      }
    }
    let bundle = folder.appendingPathComponent("Items.xcdatamodeld")
    let version = bundle.appendingPathComponent("Items.xcdatamodel")
    try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
    try model.xcodeModelXML().write(
      to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
    let records = (1...10_000).map { index in
      StoreRecord(
        entityName: "Item", id: Int64(index),
        attributes: [
          "name": .string("item number \(index), with a name long enough to take some room"),
          "count": .integer(Int64(index) * 7), "ratio": .double(Double(index) / 3),
        ])
    }
    let store = folder.appendingPathComponent("items.xml")
    try XMLStore().write(
      StoreContents(metadata: StoreMetadata(storeType: "XML"), records: records), model: model,
      to: store)
    // As Core Data writes it: without the model Folio's writer carries in the metadata, so
    // that `info` has to infer it.
    let text = try String(contentsOf: store, encoding: .utf8)
    let stripped = text.replacingOccurrences(
      of: "<key>\(XMLStore.carriedModelKey)</key>", with: "<key>AppModelNote</key>")
    #expect(stripped != text, "the writer carried no model to take out")
    try Data(stripped.utf8).write(to: store)
  }

  /// `folio arguments` with its standard streams on a terminal, standard output sent to
  /// `output` instead when given: what the terminal showed (line ends as `\r\n`), and the
  /// exit status.
  func runOnTerminal(
    _ arguments: [String], output: URL? = nil, environment: [String: String] = [:]
  ) throws -> ProcessResult {
    var command = ([folio.path] + arguments).map(Self.quoted).joined(separator: " ")
    if let output { command += " > " + Self.quoted(output.path) }
    let settings = [
      "TERM": "xterm", "NO_COLOR": "", "FOLIO_PROGRESS_THRESHOLD": Self.threshold,
      "FOLIO_PROGRESS_INTERVAL": "2",
    ]
    return try run(
      URL(fileURLWithPath: "/usr/bin/script"), ["-qefc", command, "/dev/null"],
      environment: settings.merging(environment) { $1 }, input: Data())
  }

  static func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  /// The lines the progress line was drawn as, each from its `\r` to its erase-to-end.
  static func frames(_ terminal: String) -> [String] {
    terminal.components(separatedBy: "\r").filter { $0.hasSuffix("\u{1B}[K") && $0.count > 3 }
  }

  /// `text` without its SGR sequences (bold, colours).
  static func plain(_ text: String) -> String {
    text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
  }

  /// Whether `text` holds an SGR sequence (bold, colours).
  static func hasStyle(_ text: String) -> Bool {
    text.range(of: "\u{1B}\\[[0-9;]*m", options: .regularExpression) != nil
  }

  /// Whether `frame` shows some of the work done: a percentage above 0 and objects or bytes.
  static func showsWorkDone(_ frame: String, objects: Bool) -> Bool {
    frame.range(of: "\\] +[1-9][0-9]*%", options: .regularExpression) != nil
      && frame.range(of: "[0-9.]+ of [0-9.]+ [kM]B", options: .regularExpression) != nil
      && (!objects || frame.range(of: "[1-9][0-9,]* objects", options: .regularExpression) != nil)
  }

  @Test(
    "info, dump, query, validate and convert show bytes, objects and a percentage, then erase it",
    arguments: [
      ["info"], ["dump", "--jsonl"], ["query", "STORE", "Item", "--limit", "1"], ["validate"],
      ["convert", "STORE", "OUT"],
    ])
  func progressOnTerminal(_ command: [String]) throws {
    let (store, bundle) = try Self.files.get()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let converted = folder.appendingPathComponent("items.folio")
    var arguments = command.map { $0 == "STORE" ? store.path : $0 == "OUT" ? converted.path : $0 }
    if !command.contains("STORE") { arguments.append(store.path) }
    // Only info infers the model, on another thread as it reads: the others save the work.
    let infers = command[0] == "info"
    if !infers { arguments += ["--model", bundle.path] }
    let output = folder.appendingPathComponent("stdout")
    let shown = try runOnTerminal(arguments, output: output)
    #expect(shown.status == 0, "\(shown.standardOutput)")
    let frames = Self.frames(shown.standardOutput).map(Self.plain)
    // Without --model, the model is inferred from the file as it is read.
    #expect(
      frames.contains { $0.hasPrefix("reading, inferring") } == infers, "\(frames)")
    let isConvert = command[0] == "convert"
    #expect(
      frames.contains { $0.hasPrefix("reading") && Self.showsWorkDone($0, objects: !isConvert) },
      "\(frames)")
    if isConvert {
      // A binary store is deflated whole before its first byte is written: its line counts
      // no bytes, which would stay at zero (or count the line's own) until the very end.
      let writing = frames.filter { $0.hasPrefix("writing 10,000 objects") }
      #expect(!writing.isEmpty, "\(frames)")
      #expect(!writing.contains { $0.contains(" B") }, "\(frames)")
    }
    // Erased at the end, standard output having gone to its file.
    #expect(shown.standardOutput.hasSuffix("\r\u{1B}[K"))
    // Standard output is what it is without a terminal.
    let plainArguments = arguments.map {
      $0 == converted.path ? folder.appendingPathComponent("again.folio").path : $0
    }
    let plain = try run(
      folio, plainArguments, environment: ["FOLIO_PROGRESS_THRESHOLD": "0", "TERM": "xterm"])
    #expect(plain.status == 0)
    // Standard error is not a terminal: nothing is drawn.
    #expect(plain.standardError == "")
    #expect(try String(contentsOf: output, encoding: .utf8) == plain.standardOutput)
    // Bold phase, as colour is allowed.
    #expect(Self.hasStyle(shown.standardOutput))
  }

  @Test("NO_COLOR leaves the line plain: no escape but the carriage return and erase-line")
  func noColor() throws {
    let (store, bundle) = try Self.files.get()
    let shown = try runOnTerminal(
      ["info", store.path, "--model", bundle.path], environment: ["NO_COLOR": "1"])
    #expect(shown.status == 0)
    #expect(!Self.frames(shown.standardOutput).isEmpty)
    #expect(!Self.hasStyle(shown.standardOutput))
    let escapes = shown.standardOutput.components(separatedBy: "\u{1B}").dropFirst()
    #expect(escapes.allSatisfy { $0.hasPrefix("[K") })
  }

  @Test("TERM=dumb, a store under the threshold, and dump to the terminal draw nothing")
  func notShown() throws {
    let (store, bundle) = try Self.files.get()
    let model = ["--model", bundle.path]
    let dumb = try runOnTerminal(["info", store.path] + model, environment: ["TERM": "dumb"])
    #expect(dumb.status == 0)
    #expect(!dumb.standardOutput.contains("\u{1B}"))
    let small = try runOnTerminal(
      ["info", "Samples/Expenses/Expenses.xml"],
      environment: ["FOLIO_PROGRESS_THRESHOLD": "8000000"])
    #expect(small.status == 0)
    #expect(!small.standardOutput.contains("\u{1B}"))
    // dump prints as it reads: on the same terminal, the line would break up its output.
    let dump = try runOnTerminal(["dump", "--jsonl", store.path] + model)
    #expect(dump.status == 0)
    #expect(!dump.standardOutput.contains("\u{1B}"))
  }

  @Test("the line is erased before an error is printed")
  func erasedBeforeError() throws {
    let (store, bundle) = try Self.files.get()
    let shown = try runOnTerminal(["query", store.path, "Nothing", "--model", bundle.path])
    #expect(shown.status == 1)
    let terminal = shown.standardOutput
    let error = try #require(terminal.range(of: "Error: "))
    #expect(!Self.frames(String(terminal[..<error.lowerBound])).isEmpty)
    #expect(terminal[..<error.lowerBound].hasSuffix("\r\u{1B}[K"))
  }

  @Test("migrate shows its steps")
  func migrateSteps() throws {
    let (store, bundle) = try Self.files.get()
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    // A second version that adds an optional attribute: one lightweight step.
    let copy = folder.appendingPathComponent("items.xml")
    try FileManager.default.copyItem(at: store, to: copy)
    let bundleCopy = folder.appendingPathComponent("Items.xcdatamodeld")
    try FileManager.default.copyItem(at: bundle, to: bundleCopy)
    let first = bundleCopy.appendingPathComponent("Items.xcdatamodel/contents")
    let second = bundleCopy.appendingPathComponent("Items 2.xcdatamodel")
    try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
    let contents = try String(contentsOf: first, encoding: .utf8)
    try contents.replacingOccurrences(
      of: "<attribute name=\"count\"",
      with: "<attribute name=\"note\" optional=\"YES\" attributeType=\"String\"/>"
        + "<attribute name=\"count\""
    ).write(
      to: second.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
    try """
    <?xml version="1.0" encoding="UTF-8"?>
    <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Items 2.xcdatamodel</string></dict></plist>
    """.write(
      to: bundleCopy.appendingPathComponent(".xccurrentversion"), atomically: true,
      encoding: .utf8)
    let shown = try runOnTerminal(["migrate", copy.path, "--model", bundleCopy.path])
    #expect(shown.status == 0, "\(shown.standardOutput)")
    let frames = Self.frames(shown.standardOutput).map(Self.plain)
    #expect(frames.contains { $0.hasPrefix("reading") }, "\(frames)")
    #expect(
      frames.contains { $0.hasPrefix("step 1 of 1: ") && $0.contains("objects") }, "\(frames)")
  }
}
