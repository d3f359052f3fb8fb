import Foundation
import Testing

@testable import FolioQuery

/// `@2024-05-01`, `CAST("2024-05-01", "NSDate")`: the instant each names, in seconds since
/// 2001-01-01T00:00:00Z.
private let literals: [(text: String, seconds: Double)] = [
  ("@2001-01-01", 0),
  ("@2024-05-01", 736_214_400),
  ("@2024-05-01T12:30:00Z", 736_259_400),
  ("@2024-05-01T12:30:00+02:00", 736_252_200),
  ("@2024-05-01T12:30:00-00:30", 736_261_200),
  ("@2024-05-01T12:30:00.25Z", 736_259_400.25),
  ("@2024-02-29", 730_857_600),
  ("@1970-01-01", -978_307_200),
  ("CAST(\"2024-05-01\", \"NSDate\")", 736_214_400),
  ("CAST('2024-05-01T12:30:00.5+02:00', \"NSDate\")", 736_252_200.5),
]

/// Bad dates and the exact error: the column of the `@` (or of CAST's string) and why.
private let badDates: [(format: String, message: String)] = [
  (
    "date > @2024-13-01",
    "column 8: invalid date \"@2024-13-01\": month 13 is not between 01 and 12"
  ),
  (
    "date > @2024-00-10",
    "column 8: invalid date \"@2024-00-10\": month 00 is not between 01 and 12"
  ),
  ("date > @2024-02-30", "column 8: invalid date \"@2024-02-30\": February 2024 has no day 30"),
  ("date > @2023-02-29", "column 8: invalid date \"@2023-02-29\": February 2023 has no day 29"),
  ("date > @2024-04-31", "column 8: invalid date \"@2024-04-31\": April 2024 has no day 31"),
  (
    "date < @2024-05-01T24:00:00Z",
    "column 8: invalid date \"@2024-05-01T24:00:00Z\": hour 24 is not between 00 and 23"
  ),
  (
    "date < @2024-05-01T12:60:00Z",
    "column 8: invalid date \"@2024-05-01T12:60:00Z\": minute 60 is not between 00 and 59"
  ),
  (
    "date < @2024-05-01T12:30:60Z",
    "column 8: invalid date \"@2024-05-01T12:30:60Z\": second 60 is not between 00 and 59"
  ),
  (
    "date < @2024-05-01T12:30:00",
    "column 8: invalid date \"@2024-05-01T12:30:00\": a time needs a zone: Z or an offset such "
      + "as +02:00"
  ),
  (
    "date < @2024-05-01T12:30:00+25:00",
    "column 8: invalid date \"@2024-05-01T12:30:00+25:00\": the zone's hour 25 is not between "
      + "00 and 23"
  ),
  (
    "date < @2024-5-1",
    "column 8: invalid date \"@2024-5-1\": expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS with Z or "
      + "an offset such as +02:00"
  ),
  (
    "a == 1 AND date IN {@2024-01-01, @2024-01-32}",
    "column 34: invalid date \"@2024-01-32\": January 2024 has no day 32"
  ),
  (
    "date > CAST(\"2024-13-01\", \"NSDate\")",
    "column 13: cannot CAST \"2024-13-01\" to \"NSDate\": month 13 is not between 01 and 12"
  ),
  (
    "date > CAST(\"May 1st\", \"NSDate\")",
    "column 13: cannot CAST \"May 1st\" to \"NSDate\": expected YYYY-MM-DD or "
      + "YYYY-MM-DDTHH:MM:SS with Z or an offset such as +02:00"
  ),
]

@Suite("Date literals")
struct DateLiteralTests {
  @Test("an ISO 8601 literal is a date constant: midnight UTC without a time", arguments: literals)
  func parses(literal: (text: String, seconds: Double)) throws {
    let predicate = try QueryPredicate(format: "date == \(literal.text)")
    let expected = Date(timeIntervalSinceReferenceDate: literal.seconds)
    #expect(
      predicate
        == .comparison(QueryComparison(.keyPath("date"), .equalTo, .constant(.date(expected)))))
  }

  @Test("a date literal prints as CAST of its seconds, which reads back equal")
  func printsBack() throws {
    let predicate = try QueryPredicate(format: "date >= @2024-05-01T12:30:00.25Z")
    #expect(predicate.description == "date >= CAST(736259400.25, \"NSDate\")")
    #expect(try QueryPredicate(format: predicate.description) == predicate)
  }

  @Test("date literals compare with stored dates, in lists and BETWEEN too")
  func comparesWithStoredDates() throws {
    let people = makePeople()
    func names(_ format: String) throws -> String {
      let predicate = try QueryPredicate(format: format)
      return try people.filter { try predicate.evaluate(with: $0) }.map(\.name)
        .joined(separator: " ")
    }
    // Birthdays: Cécile 1984-01-07, Ann 1994-01-11, Bob 1999-07-18, Dmitri 2001-01-01, eve nil.
    #expect(try names("birthday > @1994-01-11") == "Ann Bob Dmitri")
    #expect(try names("birthday > @1994-01-11T16:53:20Z") == "Bob Dmitri")
    #expect(try names("birthday >= @1994-01-11T17:53:20+01:00") == "Ann Bob Dmitri")
    #expect(try names("birthday == @2001-01-01") == "Dmitri")
    #expect(try names("birthday == @2001-01-01T00:00:00.000Z") == "Dmitri")
    #expect(try names("birthday < CAST(\"1990-01-01\", \"NSDate\")") == "Cécile")
    #expect(try names("birthday BETWEEN {@1990-01-01, @2000-01-01}") == "Ann Bob")
    #expect(try names("birthday IN {@2001-01-01, @1984-01-07T07:06:40Z}") == "Cécile Dmitri")
  }

  @Test("a bad date is a syntax error at the column of its literal", arguments: badDates)
  func badLiteral(bad: (format: String, message: String)) {
    #expect {
      try QueryPredicate(format: bad.format)
    } throws: { error in
      guard let error = error as? QueryError else { return false }
      return error.code == .syntax && error.description == bad.message
    }
  }

  @Test("@ followed by a digit is always a date: not arithmetic, not a collection operator")
  func notArithmetic() throws {
    let error = try #require(throws: QueryError.self) {
      try QueryPredicate(format: "date == @2024-05-01-1")
    }
    #expect(error.location?.column == 9)
    // Without the @, a date is not a literal: it is subtraction, as Core Data reads it, and
    // ordering a date against the number is an error, not a silent false.
    let bare = try QueryPredicate(format: "birthday > 2024-05-01")
    #expect(bare.description == "birthday > 2024 - 5 - 1")
    let ordering = try #require(throws: QueryError.self) {
      try bare.evaluate(with: makePeople()[0])
    }
    #expect(ordering.code == QueryError.Code.invalidOperand)
    #expect(try QueryPredicate(format: "@count == 2").description == "@count == 2")
  }
}
