import Foundation

/// The literal syntax shared by the lexer (reading values) and the printer (writing them), so
/// that what `print` and `dump` write reads back as the same value.
///
/// Dates are proleptic Gregorian in UTC, converted with Howard Hinnant's `days_from_civil`
/// algorithm rather than a calendar object, so the result does not depend on the time zone or
/// locale of the machine.
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

  /// Seconds from 1970-01-01 to 2001-01-01, Foundation's reference date.
  private static let referenceOffset: Int64 = 978_307_200

  /// The date a literal's text after `@` names, or `nil` when it is not one.
  ///
  /// Accepts `YYYY-MM-DD` (midnight UTC) and `YYYY-MM-DDTHH:MM:SS`, optionally with a fraction
  /// of a second, followed by `Z` or an offset `+HH:MM` / `-HH:MM`.
  static func date(from text: String) -> Date? {
    var reader = DigitReader(Array(text.unicodeScalars))
    guard let year = reader.number(digits: 4), reader.skip("-"),
      let month = reader.number(digits: 2), reader.skip("-"),
      let day = reader.number(digits: 2),
      (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
    else { return nil }
    var seconds = daysFromCivil(year: year, month: month, day: day) * 86_400
    var fraction = 0.0
    if !reader.isAtEnd {
      guard reader.skip("T"), let hour = reader.number(digits: 2), reader.skip(":"),
        let minute = reader.number(digits: 2), reader.skip(":"),
        let second = reader.number(digits: 2),
        hour < 24, minute < 60, second < 60
      else { return nil }
      seconds += Int64(hour * 3600 + minute * 60 + second)
      if reader.skip(".") {
        let digits = reader.digits()
        guard !digits.isEmpty, let value = Double("0.\(digits)") else { return nil }
        fraction = value
      }
      if reader.skip("Z") {
        // UTC
      } else if let sign = reader.sign() {
        guard let hours = reader.number(digits: 2), reader.skip(":"),
          let minutes = reader.number(digits: 2), hours < 24, minutes < 60
        else { return nil }
        seconds -= Int64(sign * (hours * 3600 + minutes * 60))
      } else {
        return nil
      }
    }
    guard reader.isAtEnd else { return nil }
    return Date(timeIntervalSinceReferenceDate: Double(seconds - referenceOffset) + fraction)
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
    let unix = whole + referenceOffset
    let days = Int64((Double(unix) / 86_400).rounded(.down))
    let secondOfDay = unix - days * 86_400
    let (year, month, day) = civilFromDays(days)
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

  private static func isLeap(_ year: Int) -> Bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: isLeap(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days from 1970-01-01 to the given day of the proleptic Gregorian calendar.
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let m = Int64(month)
    let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The year, month and day `days` after 1970-01-01.
  static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return (year, month, day)
  }
}

/// Reads fixed-width numbers and separators from a date literal.
private struct DigitReader {
  let scalars: [Unicode.Scalar]
  var position = 0

  init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

  var isAtEnd: Bool { position == scalars.count }

  mutating func skip(_ scalar: Unicode.Scalar) -> Bool {
    guard position < scalars.count, scalars[position] == scalar else { return false }
    position += 1
    return true
  }

  mutating func number(digits count: Int) -> Int? {
    guard position + count <= scalars.count else { return nil }
    var value = 0
    for scalar in scalars[position..<position + count] {
      guard ("0"..."9").contains(scalar) else { return nil }
      value = value * 10 + Int(scalar.value - 48)
    }
    position += count
    return value
  }

  mutating func digits() -> String {
    var text = ""
    while position < scalars.count, ("0"..."9").contains(scalars[position]) {
      text.unicodeScalars.append(scalars[position])
      position += 1
    }
    return text
  }

  mutating func sign() -> Int? {
    if skip("+") { return 1 }
    if skip("-") { return -1 }
    return nil
  }
}
