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
    appendText(of: date, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends `date` as `text(of:)` writes it, without the `@`, as UTF-8: JSON's dates, written
  /// a million at a time, take no string of their own.
  package static func appendText(of date: Date, to bytes: inout [UInt8]) {
    let interval = date.timeIntervalSinceReferenceDate
    guard interval.isFinite, abs(interval) < 1e12 else {
      bytes += "\(interval)".utf8
      return
    }
    var whole = Int64(interval.rounded(.down))
    var micros = Int64(((interval - Double(whole)) * 1_000_000).rounded())
    if micros == 1_000_000 {
      whole += 1
      micros = 0
    }
    let unix = whole + ISODate.referenceOffset
    let days = Int64((Double(unix) / 86_400).rounded(.down))
    let secondOfDay = unix - days * 86_400
    let (year, month, day) = ISODate.civilFromDays(days)
    if year < 0 { bytes.append(UInt8(ascii: "-")) }
    appendDigits(abs(year), 4, to: &bytes)
    bytes.append(UInt8(ascii: "-"))
    appendDigits(month, 2, to: &bytes)
    bytes.append(UInt8(ascii: "-"))
    appendDigits(day, 2, to: &bytes)
    bytes.append(UInt8(ascii: "T"))
    appendDigits(secondOfDay / 3600, 2, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
    appendDigits(secondOfDay / 60 % 60, 2, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
    appendDigits(secondOfDay % 60, 2, to: &bytes)
    if micros != 0 {
      var digits = 6
      while micros % 10 == 0 {
        micros /= 10
        digits -= 1
      }
      bytes.append(UInt8(ascii: "."))
      appendDigits(micros, digits, to: &bytes)
    }
    bytes.append(UInt8(ascii: "Z"))
  }

  /// Appends `number` (not negative) in decimal, with leading zeros to `width` digits.
  private static func appendDigits(_ number: Int64, _ width: Int, to bytes: inout [UInt8]) {
    var divisor: Int64 = 1
    var count = 1
    while count < width || number / divisor >= 10 {
      divisor *= 10
      count += 1
    }
    while divisor > 0 {
      bytes.append(UInt8(48 + number / divisor % 10))
      divisor /= 10
    }
  }
}
