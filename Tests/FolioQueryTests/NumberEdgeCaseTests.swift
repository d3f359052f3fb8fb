import FolioTestSupport
import Foundation
import Testing

@testable import FolioQuery

/// One comparison evaluated on ``numberSample()``, and whether it holds.
struct NumberCase: Sendable, CustomTestStringConvertible {
  var format: String
  var arguments: [Argument] = []
  var holds: Bool
  var testDescription: String { format }

  init(_ format: String, _ holds: Bool) {
    self.format = format
    self.holds = holds
  }

  init(_ format: String, _ arguments: [Argument], _ holds: Bool) {
    self.format = format
    self.arguments = arguments
    self.holds = holds
  }
}

/// `x` is NaN; `big` is 2⁵³ + 1, which no double holds, and `double` the double 2⁵³.
func numberSample() -> Node {
  Node(
    "Sample",
    [
      "x": Double.nan, "one": 1.0, "big": 9_007_199_254_740_993, "double": 9_007_199_254_740_992.0,
      "values": [Double.nan, 1.0, -1.0], "halves": [Double.nan, 1.0], "none": nil,
    ])
}

let numberCases: [NumberCase] = [
  // A NaN is equal to nothing, itself included, and is neither less nor greater than anything.
  .init("x == 1", false),
  .init("x != 1", true),
  .init("x < 1", false),
  .init("x <= 1", false),
  .init("x > 1", false),
  .init("x >= 1", false),
  .init("1 >= x", false),
  .init("x == x", false),
  .init("x != x", true),
  .init("x == %@", [.value(Double.nan)], false),
  .init("x != %@", [.value(Double.nan)], true),
  .init("x BETWEEN {0, 2}", false),
  .init("x IN {1, x}", false),
  .init("x == nil", false),
  .init("x != nil", true),
  .init("ANY values == 1", true),
  .init("ALL values > -2", false),
  .init("values.@count == 3", true),
  // @min and @max order as sorting does: a NaN after every negative number, before the rest.
  .init("values.@min == -1", true),
  .init("values.@max == 1", true),
  .init("halves.@max == 1", true),
  // Integers and doubles compare exactly, not through doubles.
  .init("big == 9007199254740993", true),
  .init("big == 9007199254740992.0", false),
  .init("big != double", true),
  .init("big > double", true),
  .init("double < big", true),
  .init("9223372036854775807 < 9.2233720368547758e18", true),
  .init("-9223372036854775808 == -9.2233720368547758e18", true),
  .init("one == 1", true),
]

/// A sort key as a label; numbers of every type by their value, -0.0 as 0.0.
func sortLabel(_ value: Any?) -> String {
  switch value {
  case nil: return "nil"
  case let value as Double: return value.isNaN ? "nan" : "\(value + 0.0)"
  case let value as Float: return "\(Double(value))"
  case let value as Int: return "\(Double(value))"
  case let value as Decimal: return "\(NSDecimalNumber(decimal: value).doubleValue)"
  case let value?: return "\(value)"
  }
}

@Suite("Number edge cases")
struct NumberEdgeCaseTests {
  @Test(
    "NaN follows IEEE 754 in comparisons; integers and doubles compare exactly",
    arguments: numberCases)
  func comparisons(_ row: NumberCase) throws {
    let arguments = row.arguments.map { $0.resolve(in: []) }
    let predicate = try QueryPredicate(format: row.format, arguments: arguments)
    #expect(try predicate.evaluate(with: numberSample()) == row.holds)
  }

  @Test("@min of a NaN and larger numbers is the NaN, as sorting places it")
  func minimumWithNaN() throws {
    let minimum = try QueryExpression.keyPath("halves.@min").value(with: numberSample())
    #expect((minimum as? Double)?.isNaN == true)
  }

  @Test(
    "sorting with NaNs gives one order whatever the input order, typed or mixed",
    arguments: [true, false])
  func sortWithNaNs(ascending: Bool) throws {
    let doubles: [Any?] = [
      nil, Double.nan, -1.5, 0.0, 2.5, Double.nan, Double.infinity, -Double.infinity, 1.0,
      Double.nan,
    ]
    let mixed: [Any?] = [
      nil, Double.nan, -1.5, 0, Decimal(string: "2.5"), Double.nan, Double.infinity,
      -Double.infinity, Float(1), Double.nan,
    ]
    var order = [
      "-inf", "-1.5", "nan", "nan", "nan", "0.0", "1.0", "2.5", "inf",
    ]
    order = ascending ? ["nil"] + order : order.reversed() + ["nil"]
    let descriptor = QuerySortDescriptor(keyPath: "x", ascending: ascending)
    for keys in [doubles, mixed] {
      let nodes = keys.map { Node("Sample", ["x": $0]) }
      let seed: UInt64 = 0x5EED
      var generator = SeededGenerator(seed: seed)
      for round in 0..<40 {
        let shuffled = nodes.shuffled(using: &generator)
        let sorted = try shuffled.sorted(by: [descriptor])
        #expect(
          sorted.map { sortLabel($0.values["x"] ?? nil) } == order,
          "seed \(seed), round \(round)")
      }
    }
  }

  @Test("-0.0, 0.0 and the integer 0 tie when sorting, and a NaN sorts before all three")
  func signedZeros() throws {
    let keys: [Any] = [0.0, -0.0, 0, Double.nan, -0.0]
    let zeros = keys.map { Node("Sample", ["x": $0]) }
    let sorted = try zeros.sorted(by: [QuerySortDescriptor(keyPath: "x")])
    #expect(
      sorted.map { ($0.values["x"] ?? nil).map { "\($0)" } } == ["nan", "0.0", "-0.0", "0", "-0.0"])
  }
}
