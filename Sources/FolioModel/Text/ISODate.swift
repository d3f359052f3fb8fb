import Foundation

/// The ISO 8601 dates Folio's text languages write: undo scripts' `@2026-11-21T10:00:00Z` and
/// predicates' `@2026-11-21`.
///
/// ```
/// date = year "-" month "-" day [ "T" hour ":" minute ":" second [ "." digits ] zone ]
/// zone = "Z" | ( "+" | "-" ) hour ":" minute
/// ```
///
/// The year has exactly 4 digits, the other fields exactly 2; the fraction any number. A date
/// without a time is midnight UTC, and a time needs a zone, so a literal names one instant
/// whatever the machine's time zone. Days are those of the proleptic Gregorian calendar, in
/// UTC, converted with Howard Hinnant's `days_from_civil` algorithm rather than a calendar
/// object, so the result does not depend on the machine's time zone or locale either. There
/// are no leap seconds.
package enum ISODate {
  /// Seconds from 1970-01-01 to 2001-01-01, Foundation's reference date.
  package static let referenceOffset: Int64 = 978_307_200

  /// Why a text is not a date: a sentence fragment such as `month 13 is not between 01 and
  /// 12`, for a message that quotes the text before it.
  package struct Failure: Error, Equatable, Sendable {
    package var reason: String
  }

  private static let shape = Failure(
    reason: "expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS with Z or an offset such as +02:00")

  /// The instant `text` names.
  ///
  /// - Throws: a ``Failure`` saying which field is out of range, or that the text does not
  ///   have the shape of a date.
  package static func date(from text: some StringProtocol) throws(Failure) -> Date {
    var reader = DigitReader(Array(text.unicodeScalars))
    guard let year = reader.number(digits: 4), reader.skip("-"),
      let month = reader.number(digits: 2), reader.skip("-"),
      let day = reader.number(digits: 2)
    else { throw shape }
    guard (1...12).contains(month) else {
      throw Failure(reason: "month \(pad(month)) is not between 01 and 12")
    }
    let days = daysIn(month: month, year: year)
    guard (1...days).contains(day) else {
      throw Failure(reason: "\(monthNames[month - 1]) \(year) has no day \(pad(day))")
    }
    var seconds = daysFromCivil(year: year, month: month, day: day) * 86_400
    var fraction = 0.0
    if !reader.isAtEnd {
      guard reader.skip("T"), let hour = reader.number(digits: 2), reader.skip(":"),
        let minute = reader.number(digits: 2), reader.skip(":"),
        let second = reader.number(digits: 2)
      else { throw shape }
      try check(hour, "hour", below: 24)
      try check(minute, "minute", below: 60)
      try check(second, "second", below: 60)
      seconds += Int64(hour * 3600 + minute * 60 + second)
      if reader.skip(".") {
        let digits = reader.digits()
        guard !digits.isEmpty, let value = Double("0.\(digits)") else { throw shape }
        fraction = value
      }
      if reader.skip("Z") {
        // UTC
      } else if let sign = reader.sign() {
        guard let hours = reader.number(digits: 2), reader.skip(":"),
          let minutes = reader.number(digits: 2)
        else { throw shape }
        try check(hours, "the zone's hour", below: 24)
        try check(minutes, "the zone's minute", below: 60)
        seconds -= Int64(sign * (hours * 3600 + minutes * 60))
      } else if reader.isAtEnd {
        throw Failure(reason: "a time needs a zone: Z or an offset such as +02:00")
      } else {
        throw shape
      }
    }
    guard reader.isAtEnd else { throw shape }
    return Date(timeIntervalSinceReferenceDate: Double(seconds - referenceOffset) + fraction)
  }

  /// Appends `date` as `YYYY-MM-DDTHH:MM:SSZ` in UTF-8, with up to six digits of fraction when
  /// the date has one (rounded to the microsecond): the undo-script language's date literal
  /// without its `@`, and `folio dump`'s JSON dates, written a million at a time without a
  /// string each. A date more than about 31,000 years from 2001, or not finite, is written as
  /// its seconds since 2001 instead (`1e+13`, `nan`).
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

  private static func check(_ value: Int, _ field: String, below limit: Int) throws(Failure) {
    guard value >= limit else { return }
    throw Failure(reason: "\(field) \(pad(value)) is not between 00 and \(limit - 1)")
  }

  private static func pad(_ number: Int) -> String {
    number < 10 ? "0\(number)" : "\(number)"
  }

  private static let monthNames = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
  ]

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
  package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let m = Int64(month)
    let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The year, month and day `days` after 1970-01-01.
  package static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
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

/// Reads fixed-width numbers and separators from a date.
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
