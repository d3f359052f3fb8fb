import FolioModel
import FolioSupport
import Foundation

/// The literal syntax shared by the lexer (reading values) and the printer (writing them), so
/// that what `print` and `dump` write reads back as the same value.
///
/// Dates are proleptic Gregorian in UTC, read and converted by FolioModel's `ISODate` (without
/// a calendar object), so the result does not depend on the time zone or locale of the
/// machine.
package enum Literal {
  // MARK: Strings

  /// `text` in double quotes, with JSON's escapes for `"`, `\` and control characters: the
  /// language's strings are JSON's.
  package static func quoted(_ text: String) -> String { Quoting.json(text) }

  // MARK: Dates

  /// The date a literal's text after `@` names, or `nil` when it is not one (`ISODate`'s
  /// syntax: `YYYY-MM-DD`, midnight UTC, or `YYYY-MM-DDTHH:MM:SS`, optionally with a fraction
  /// of a second, followed by `Z` or an offset `+HH:MM` / `-HH:MM`).
  static func date(from text: String) -> Date? {
    try? ISODate.date(from: text)
  }

  /// `@YYYY-MM-DDTHH:MM:SSZ`, with up to six digits of fraction when the date has one.
  package static func text(of date: Date) -> String {
    var bytes: [UInt8] = [UInt8(ascii: "@")]
    ISODate.appendText(of: date, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}
