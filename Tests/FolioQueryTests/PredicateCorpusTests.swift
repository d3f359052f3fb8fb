import Foundation
import Testing

@testable import FolioQuery

/// Real format strings from public code (`Fixtures/predicate-corpus.txt`, each with the
/// repository and file it came from), parsed with arguments of the kinds their specifiers
/// take: as a predicate, or, when that fails, as an expression (`NSExpression(format:)`'s
/// strings are in the corpus too). The ones Folio refuses are listed, with the reason it gives, in
/// `Fixtures/predicate-corpus-refusals.txt`: a string that starts or stops parsing changes
/// that list, and the test fails until the list is written again
/// (`FOLIO_RECORD_CORPUS=1 swift test --filter PredicateCorpus`).
@Suite("Predicate corpus: format strings from public code")
struct PredicateCorpusTests {
  struct Entry {
    var source: String
    var format: String
  }

  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

  static func entries() throws -> [Entry] {
    let text = try String(
      contentsOf: folder.appendingPathComponent("predicate-corpus.txt"), encoding: .utf8)
    var entries: [Entry] = []
    var source: String?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("# ") {
        source = String(line.dropFirst(2))
      } else if !line.isEmpty, let current = source {
        entries.append(Entry(source: current, format: String(line)))
        source = nil
      }
    }
    return entries
  }

  /// An argument for each specifier outside quotes, of the kind it takes: a key for `%K`, a
  /// string for `%@`, 1 for an integer's, 1.5 for a double's.
  static func arguments(for format: String) -> [Any?] {
    var arguments: [Any?] = []
    var quote: Character?
    var characters = format[...]
    while let character = characters.popFirst() {
      if let open = quote {
        if character == "\\" { _ = characters.popFirst() } else if character == open { quote = nil }
        continue
      }
      if character == "\"" || character == "'" {
        quote = character
        continue
      }
      guard character == "%" else { continue }
      let body = characters.prefix { FormatSpecifier.isInside($0) }
      characters = characters.dropFirst(body.count)
      guard let conversion = characters.popFirst() else { break }
      switch conversion {
      case "K": arguments.append("name")
      case "d", "i", "u", "o", "x", "X", "D", "U", "O", "c": arguments.append(1)
      case "f", "F", "e", "E", "g", "G", "a", "A": arguments.append(1.5)
      default: arguments.append("text")
      }
    }
    return arguments
  }

  @Test("every corpus string parses, prints and reads back, or is a listed refusal")
  func corpus() throws {
    let entries = try Self.entries()
    #expect(entries.count >= 300)
    var refusals: [String] = []
    var parsed = 0
    for entry in entries {
      let arguments = Self.arguments(for: entry.format)
      do {
        let predicate = try QueryPredicate(format: entry.format, arguments: arguments)
        parsed += 1
        let printed = predicate.description
        #expect(
          try QueryPredicate(format: printed) == predicate,
          "\(entry.format) (\(entry.source)) prints as \(printed)")
      } catch {
        do {
          let expression = try QueryExpression(format: entry.format, arguments: arguments)
          parsed += 1
          let printed = expression.description
          #expect(
            try QueryExpression(format: printed) == expression,
            "\(entry.format) (\(entry.source)) prints as \(printed)")
        } catch let expressionError {
          refusals.append(
            "\(entry.format)\n  as a predicate: \(error.description)\n"
              + "  as an expression: \(expressionError.description)\n")
        }
      }
    }
    let share = Double(parsed) / Double(entries.count)
    let report =
      "# \(parsed) of \(entries.count) corpus strings parse "
      + "(\(Int((share * 100).rounded())) %); the rest, each with Folio's reason:\n\n"
      + refusals.joined(separator: "\n")
    let url = Self.folder.appendingPathComponent("predicate-corpus-refusals.txt")
    if ProcessInfo.processInfo.environment["FOLIO_RECORD_CORPUS"] == "1" {
      try report.write(to: url, atomically: true, encoding: .utf8)
    }
    let recorded = try String(contentsOf: url, encoding: .utf8)
    #expect(recorded == report, "the refusals changed: FOLIO_RECORD_CORPUS=1 writes them again")
  }
}
