import Folio
import Foundation

/// Text renderings of values for `dump`.
enum DumpText {
  static func text(of value: AttributeValue) -> String {
    switch value {
    case .string(let text): return quoted(text)
    case .date(let date): return ObjectJSON.iso8601(date)
    default: return value.modelText
    }
  }

  /// `text` in double quotes, on one line: escaped as a JSON string, as an undo script's
  /// `print` writes strings (`\"`, `\\`, `\n`, `\t`, `\u001b`).
  static func quoted(_ text: String) -> String { ObjectJSON.string(text) }
}
