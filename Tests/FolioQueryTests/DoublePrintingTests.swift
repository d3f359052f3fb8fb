import Foundation
import Testing

@testable import FolioQuery

@Suite("Printing doubles")
struct DoublePrintingTests {
  @Test(
    "doubles print as text that parses back to the same value",
    arguments: [
      Double.infinity, -Double.infinity, Double.nan, -Double.nan, 1e300, -1e300, -0.0, 0.0,
      5e-324, -5e-324, 0.1, Double.greatestFiniteMagnitude, 9_007_199_254_740_993,
    ])
  func doublesRoundTrip(_ value: Double) throws {
    let predicate = QueryPredicate.comparison(
      QueryComparison(.keyPath("x"), .equalTo, .constant(.double(value))))
    let reparsed = try QueryPredicate(format: predicate.description)
    #expect(reparsed == predicate, "printed as \(predicate.description)")
    guard case .comparison(let comparison) = reparsed,
      case .constant(.double(let read)) = comparison.right
    else {
      Issue.record("\(predicate.description) did not read back as a double")
      return
    }
    #expect(read.isNaN ? value.isNaN : read.bitPattern == value.bitPattern)
  }

  @Test("infinite and NaN dates, and doubles in lists, print as text that parses back")
  func specialValuesInContext() throws {
    let predicates: [QueryPredicate] = [
      .comparison(
        QueryComparison(
          .keyPath("when"), .lessThan,
          .constant(.date(Date(timeIntervalSinceReferenceDate: .infinity))))),
      .comparison(
        QueryComparison(
          .keyPath("x"), .in,
          .aggregate([
            .constant(.double(.nan)), .constant(.double(-.infinity)), .constant(.double(-0.0)),
          ]))),
    ]
    for predicate in predicates {
      #expect(try QueryPredicate(format: predicate.description) == predicate, "\(predicate)")
    }
    #expect(
      predicates[1].description
        == "x IN {CAST(\"nan\", \"NSNumber\"), CAST(\"-inf\", \"NSNumber\"), -0.0}")
  }

  @Test("-0.0 and 0.0 are different constants, and every NaN is the same constant")
  func constantEquality() {
    #expect(QueryValue.double(-0.0) != .double(0.0))
    #expect(QueryValue.double(.nan) == .double(-.nan))
    #expect(Set([QueryValue.double(.nan), .double(.nan), .double(0.0), .double(-0.0)]).count == 3)
  }
}
