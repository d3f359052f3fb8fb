import CSQLite
import FolioPostgresStore
import FolioSQLiteStore
import FolioStores
import FolioTestSupport
import Foundation
import Testing

/// Rows in COPY text format handed out as libpq hands them: each in a buffer of its own that
/// ends in a NUL after the row.
private final class CannedRows: CopyTextSource {
  let classes: [Int32]
  var rows: [[UInt8]]
  private(set) var outstanding = 0

  init(classes: [Int32], rows: [[UInt8]]) { (self.classes, self.rows) = (classes, rows) }

  var path: String { "canned" }
  func storageClasses(of sql: String, at place: String) -> [Int32] { classes }
  func startCopy(of sql: String, at place: String) {}

  func nextCopyRow(at place: String) -> (UnsafeMutablePointer<CChar>, Int)? {
    guard !rows.isEmpty else { return nil }
    let row = rows.removeFirst()
    let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: row.count + 1)
    for (index, byte) in row.enumerated() { buffer[index] = CChar(bitPattern: byte) }
    buffer[row.count] = 0
    outstanding += 1
    return (buffer, row.count)
  }

  func freeCopyRow(_ row: UnsafeMutablePointer<CChar>) {
    row.deallocate()
    outstanding -= 1
  }

  func finishCopy(at place: String) { rows.removeAll() }
}

@Suite("Rows in PostgreSQL's COPY text format")
struct CopyTextRowsTests {
  /// `text` as COPY writes a row.
  static func row(_ text: String) -> [UInt8] { Array(text.utf8) }

  @Test("each field reads with its column's storage class; \\N is NULL, escapes are undone")
  func fields() throws {
    let source = CannedRows(
      classes: [SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_TEXT],
      rows: [
        Self.row("-42\t2.5\tcaf\u{E9}\t\\\\x0aff\t\\N\n"),
        Self.row("7\t\\N\ta\\tb\\nc\\\\d\\101\t\\N\tplain text of some length\n"),
      ])
    let rows = try CopyTextDatabase(source, listedKeysTable: "keys").rows("q", at: "Q")
    #expect(try rows.nextRow())
    #expect(rows.int64(0) == -42)
    #expect(rows.double(1) == 2.5)
    #expect(rows.validatedText(2) == "caf\u{E9}")
    #expect(rows.blob(3) == Data([0x0a, 0xff]))
    #expect(rows.type(4) == SQLITE_NULL)
    #expect(rows.text(4) == nil)
    #expect(try rows.nextRow())
    #expect(rows.double(0) == 7)
    #expect(rows.isNull(1))
    #expect(rows.text(2) == "a\tb\nc\\dA")
    #expect(rows.validatedText(2) == "a\tb\nc\\dA")
    #expect(rows.blob(3) == nil)
    #expect(rows.text(4) == "plain text of some length")
    #expect(try !rows.nextRow())
    #expect(source.outstanding == 0)
  }

  @Test("text that is not UTF-8 reads as nil when validated, repaired otherwise")
  func badText() throws {
    // \351 is the byte 0xE9 alone: Latin-1's é, no UTF-8 sequence.
    let source = CannedRows(classes: [SQLITE_TEXT], rows: [Self.row("caf\\351\n")])
    let rows = try CopyTextDatabase(source, listedKeysTable: "keys").rows("q", at: "Q")
    #expect(try rows.nextRow())
    #expect(rows.validatedText(0) == nil)
    #expect(rows.text(0) == "caf\u{FFFD}")
  }

  @Test("a row of too few or too many fields is a malformed store naming the query")
  func wrongWidth() throws {
    for (text, count) in [("1\t2\n", "2"), ("1\t2\t3\t4\n", "more than 3")] {
      let source = CannedRows(
        classes: [SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_INTEGER], rows: [Self.row(text)])
      let rows = try CopyTextDatabase(source, listedKeysTable: "keys").rows("q", at: "ZITEM")
      let error = try #require(throws: StoreError.self) { try rows.nextRow() }
      #expect(error.code == .malformedStore)
      #expect(error.message == "ZITEM: a row of \(count) values for 3 columns")
    }
  }

  /// A random field: empty, short or long, with tabs, newlines, backslashes and non-ASCII
  /// letters escaped as COPY escapes them; `nil` for NULL.
  static func randomField(_ random: inout SeededGenerator) -> (text: String?, escaped: String) {
    if Int.random(in: 0..<8, using: &random) == 0 { return (nil, "\\N") }
    let alphabet: [Character] = ["a", "7", " ", "\t", "\n", "\\", "\u{E9}", "\u{1F600}", "N", "-"]
    let length = [0, 1, 2, 7, 8, 9, 15, 16, 17, 40].randomElement(using: &random) ?? 0
    let text = String((0..<length).map { _ in alphabet.randomElement(using: &random) ?? "a" })
    var escaped = ""
    for character in text {
      switch character {
      case "\t": escaped += "\\t"
      case "\n": escaped += "\\n"
      case "\\": escaped += "\\\\"
      default: escaped.append(character)
      }
    }
    return (text, escaped)
  }

  @Test(
    "random rows read as the plain splitter reads them",
    arguments: [UInt64(1), 2, 3, 4])
  func differential(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let width = Int.random(in: 1...9, using: &random)
    var expected: [[String?]] = []
    var texts: [[UInt8]] = []
    for _ in 0..<300 {
      let fields = (0..<width).map { _ in Self.randomField(&random) }
      expected.append(fields.map(\.text))
      texts.append(Self.row(fields.map(\.escaped).joined(separator: "\t") + "\n"))
    }
    // The plain splitter, the fast reader's twin, agrees with what was written.
    for (text, values) in zip(texts, expected) {
      let plain = text.withUnsafeBytes { PostgresCopyRow(UnsafeRawBufferPointer($0)).fields() }
      let decoded = plain.map { field in
        field.map { String(decoding: CopyText.unescaped($0), as: UTF8.self) }
      }
      #expect(decoded == values, "seed \(seed)")
    }
    let source = CannedRows(
      classes: Array(repeating: SQLITE_TEXT, count: width), rows: texts)
    let rows = try CopyTextDatabase(source, listedKeysTable: "keys").rows("q", at: "Q")
    for (number, values) in expected.enumerated() {
      #expect(try rows.nextRow())
      for (column, value) in values.enumerated() {
        #expect(rows.validatedText(column) == value, "seed \(seed), row \(number), \(column)")
        #expect(rows.text(column) == value, "seed \(seed), row \(number), \(column)")
      }
    }
    #expect(try !rows.nextRow())
  }

  @Test("a reader that stops early drops the rest of the rows and frees every buffer")
  func stopsEarly() throws {
    let source = CannedRows(
      classes: [SQLITE_INTEGER], rows: [Self.row("1\n"), Self.row("2\n"), Self.row("3\n")])
    do {
      let rows = try CopyTextDatabase(source, listedKeysTable: "keys").rows("q", at: "Q")
      #expect(try rows.nextRow())
      #expect(rows.int64(0) == 1)
    }
    #expect(source.rows.isEmpty)
    #expect(source.outstanding == 0)
  }
}
