import Foundation
import Testing

@testable import FolioQuery

@Suite("Integer literals")
struct IntegerLiteralTests {
  @Test(
    "Int64.max and Int64.min are integer literals that print back exactly",
    arguments: [
      ("x == 9223372036854775807", Int.max), ("x == -9223372036854775808", Int.min),
      ("x == 0x7FFFFFFFFFFFFFFF", Int.max), ("x == -0x8000000000000000", Int.min),
    ])
  func integerLimits(_ format: String, _ value: Int) throws {
    let predicate = try QueryPredicate(format: format)
    let expected = QueryPredicate.comparison(
      QueryComparison(.keyPath("x"), .equalTo, .constant(.integer(value))))
    #expect(predicate == expected)
    #expect(try QueryPredicate(format: predicate.description) == expected)
    #expect(predicate.description == "x == \(value)")
  }

  @Test("an integer too large for 64 bits is written as a double to be one")
  func largeDoubleLiteral() throws {
    let predicate = try QueryPredicate(format: "x == 9223372036854775808.0")
    #expect(
      predicate
        == .comparison(QueryComparison(.keyPath("x"), .equalTo, .constant(.double(0x1p63)))))
  }
}
