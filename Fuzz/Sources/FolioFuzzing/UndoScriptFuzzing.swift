import FolioScript
import Foundation

/// The undo-script parser: any bytes, read as `folio replay` reads a script file (refused
/// unless UTF-8), then parsed. Scripts are only parsed, never run: running one reads and writes
/// the files it names.
package enum UndoScriptFuzzing: FuzzTarget {
  /// Warms the parser up.
  package static func prepare() {
    run(Data("model Expenses.xcdatamodeld\nnew\n".utf8))
  }

  /// Runs one input.
  package static func run(_ input: Data) {
    guard let text = String(data: input, encoding: .utf8) else { return }
    attempt("parsing") { try Script(parsing: text, file: "fuzz.undo") }
  }
}
