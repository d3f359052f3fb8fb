import FolioModel
import Foundation

/// The literal syntax shared by the lexer (reading values) and the printer (writing them), so
/// that what `print` and `dump` write reads back as the same value.
///
/// Dates are proleptic Gregorian in UTC, read and converted by FolioModel's `ISODate` (without
/// a calendar object), so the result does not depend on the time zone or locale of the
/// machine.
package enum Literal {
  // MARK: Strings

  /// `text` in double quotes, with JSON's escapes for `"`, `\` and control characters.
  package static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{08}": out += "\\b"
      case "\u{0C}": out += "\\f"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16, uppercase: false)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }

  // MARK: Dates

  /// The date a literal's text after `@` names, or `nil` when it is not one (`ISODate`'s
  /// syntax: `YYYY-MM-DD`, midnight UTC, or `YYYY-MM-DDTHH:MM:SS`, optionally with a fraction
  /// of a second, followed by `Z` or an offset `+HH:MM` / `-HH:MM`).
  static func date(from text: String) -> Date? {
    try? ISODate.date(from: text)
  }

  /// `@YYYY-MM-DDTHH:MM:SSZ`, with up to six digits of fraction when the date has one.
  package static func text(of date: Date) -> String {
    let interval = date.timeIntervalSinceReferenceDate
    guard interval.isFinite, abs(interval) < 1e12 else { return "@\(interval)" }
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
    var text =
      "@\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
      + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
    if micros != 0 {
      var fraction = pad(micros, 6)
      while fraction.hasSuffix("0") { fraction.removeLast() }
      text += ".\(fraction)"
    }
    return text + "Z"
  }

  private static func pad(_ number: Int64, _ width: Int) -> String {
    let digits = String(abs(number))
    let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
    return number < 0 ? "-" + padded : padded
  }
}
