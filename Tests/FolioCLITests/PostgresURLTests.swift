import FolioTestSupport
import Foundation
import Testing

/// What `folio` says of a PostgreSQL URL it refuses before connecting: a password in it is bad
/// usage and never repeated, and the commands that cannot work on a server's document yet say
/// so. None of this needs a server.
@Suite("folio and PostgreSQL URLs, without a server")
struct PostgresURLTests {
  static let model = "Samples/Expenses/Expenses.xcdatamodeld"

  /// Every place a command takes a store, with the URL `url` there.
  static func commandLines(_ url: String) -> [[String]] {
    [
      ["info", url], ["dump", url], ["query", url, "Person"], ["validate", url],
      ["convert", url, "/tmp/never-written.xml"],
      ["convert", "Samples/Expenses/Expenses.xml", url, "--model", model],
      ["metadata", url], ["migrate", url, "--model", model],
      ["delete", url, "--entity", "Person", "--where", "TRUEPREDICATE"],
      ["update", url, "--entity", "Person", "--where", "TRUEPREDICATE", "--set", "name='A'"],
      ["shell", url], ["model", "infer", url],
    ]
  }

  @Test(
    "a URL with a password is refused as bad usage by every command, and never repeated",
    arguments: [
      "postgresql://me:hunter2@127.0.0.1:1/db?schema=doc",
      "postgres://me@127.0.0.1:1/db?schema=doc&password=hunter2",
    ])
  func password(url: String) throws {
    for arguments in Self.commandLines(url) {
      let result = try run(folio, arguments)
      #expect(result.status == 64, "\(arguments)")
      let firstLine = result.standardError.split(separator: "\n").first.map(String.init)
      #expect(
        firstLine
          == "Error: postgresql://…: the URL carries a password; give it in PGPASSWORD or ~/.pgpass, never on a command line",
        "\(arguments)")
      #expect(!(result.standardOutput + result.standardError).contains("hunter2"), "\(arguments)")
    }
  }

  @Test("a URL naming no database is bad usage naming the URL")
  func noDatabase() throws {
    let result = try run(folio, ["info", "postgresql://me@127.0.0.1:1"])
    #expect(result.status == 64)
    #expect(
      result.standardError.hasPrefix(
        "Error: postgresql://me@127.0.0.1:1: the URL names no database (postgresql://USER@HOST:PORT/DATABASE)\nUsage: folio info "
      ))
  }

  @Test("a URL that does not parse is bad usage that shows the form, not the text")
  func unparsable() throws {
    let result = try run(folio, ["dump", "postgresql://me:hunter2@db:port/app"])
    #expect(result.status == 64)
    #expect(
      result.standardError.hasPrefix(
        "Error: the store's URL does not parse: write it as postgresql://USER@HOST:PORT/DATABASE?schema=NAME, special characters %-encoded\nUsage: folio dump "
      ))
    #expect(!result.standardError.contains("hunter2"))
  }

  @Test("delete and update refuse a PostgreSQL document before connecting, naming what is missing")
  func batchRefused() throws {
    let url = "postgresql://me@127.0.0.1:1/db?schema=doc"
    let common = ["--entity", "Person", "--where", "TRUEPREDICATE", "--model", Self.model]
    for (verb, extra) in [("delete", [String]()), ("update", ["--set", "name='A'"])] {
      let result = try run(folio, [verb, url] + common + extra)
      #expect(result.status == 1, "\(verb)")
      #expect(
        result.standardError
          == "Error: \(url): \(verb) is not implemented for PostgreSQL documents yet: batch requests run on SQLite, XML and binary stores only (nothing was changed)\n",
        "\(verb)")
    }
  }

  @Test("the shell keeps no undo history for a document on a server")
  func shellHistoryRefused() throws {
    let result = try run(
      folio, ["shell", "postgresql://me@127.0.0.1:1/db?schema=doc", "--keep-history"])
    #expect(result.status == 64)
    #expect(
      result.standardError.hasPrefix(
        "Error: --keep-history keeps the undo history in a file beside the store, which a document on a server does not have: leave it out\n"
      ))
  }

  @Test("convert names a file format or a URL, and a .postgresql file is no PostgreSQL document")
  func convertOutput() throws {
    let result = try run(folio, ["convert", "Samples/Expenses/Expenses.xml", "/tmp/x.postgresql"])
    #expect(result.status == 64)
    #expect(
      result.standardError.hasPrefix(
        "Error: \"/tmp/x.postgresql\": the extension names no store format (use .sqlite, .xml or .folio, or a postgresql:// URL)\n"
      ))
  }
}
