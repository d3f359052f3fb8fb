import FolioTestSupport
import Foundation
import Testing

/// scripts/man-page.py, which finishes the man page swift-argument-parser's plugin writes
/// from folio's help, on a page of the plugin's shape.
@Suite("the man page")
struct ManPageTests {
  static let progress =
    "On a terminal, a store of 8 MB or more shows the progress of the work on standard error."

  /// A page as the plugin writes it: help paragraphs as lines, blank lines, indented
  /// examples, the progress paragraph in two commands (one with a sentence of its own).
  static let generated = """
    .Dd November 29, 2026
    .Dt FOLIO 1
    .Os
    .Sh NAME
    .Nm folio
    .Nd "Core Data on Linux."
    .Sh DESCRIPTION
    Examples:
      folio info Samples/Expenses/Expenses.xml
      folio query Samples/Expenses/Expenses.xml Spending --where "amount > 10" \\e
        --sort amount:desc
    .Bl -tag -width 6n
    .It Em info
    Show a store's format.
    .Pp
    Example:
      folio info Samples/Expenses/Expenses.xml

    \(progress)
    .It Em dump
    Print every object.

    Objects are named by entity.

    \(progress) The line is not drawn while standard output is the terminal too.
    .El
    .Sh "EXIT STATUS"
    .Ex -std

    """

  func finish(_ page: String) throws -> String {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = folder.appendingPathComponent("in.1")
    let output = folder.appendingPathComponent("out.1")
    try page.write(to: input, atomically: true, encoding: .utf8)
    let result = try run(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "python3", packageRoot.appendingPathComponent("scripts/man-page.py").path, input.path,
        output.path,
      ])
    #expect(result.status == 0, "\(result.standardError)")
    return try String(contentsOf: output, encoding: .utf8)
  }

  @Test("examples become displays, the progress paragraph one section, and the statuses folio's")
  func finished() throws {
    let page = try finish(Self.generated)
    let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    // No empty input line: mdoc warns of each.
    #expect(!lines.dropLast().contains(""))
    #expect(
      page.contains(
        """
        Examples:
        .Bd -literal -offset indent
        folio info Samples/Expenses/Expenses.xml
        folio query Samples/Expenses/Expenses.xml Spending --where "amount > 10" \\e
          --sort amount:desc
        .Ed
        """))
    #expect(page.components(separatedBy: Self.progress).count == 2)
    #expect(page.contains(".Sh PROGRESS\n\(Self.progress)\n"))
    #expect(page.contains("The line is not drawn while standard output is the terminal too."))
    #expect(page.contains("Print every object.\n.Pp\nObjects are named by entity.\n"))
    #expect(!page.contains(".Ex -std"))
    for status in ["0", "1", "64", "130"] { #expect(page.contains(".It \(status)\n")) }
    #expect(page.contains(".Sh ENVIRONMENT"))
    let groff = URL(fileURLWithPath: "/usr/bin/groff")
    if FileManager.default.isExecutableFile(atPath: groff.path) {
      let folder = try makeTemporaryFolder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let file = folder.appendingPathComponent("folio.1")
      try page.write(to: file, atomically: true, encoding: .utf8)
      let check = try run(groff, ["-mandoc", "-ww", "-z", file.path])
      #expect(check.standardError.isEmpty, "\(check.standardError)")
    }
  }
}
