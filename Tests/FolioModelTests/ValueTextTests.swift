import Foundation
import Testing

@testable import FolioModel

@Suite("Reading values from model text")
struct ValueTextTests {
  @Test(
    "canonical spellings read exactly",
    arguments: [
      (AttributeType.integer16, "-32768", AttributeValue.integer(-32768)),
      (.integer32, "2147483647", .integer(2_147_483_647)),
      (.integer64, "-9223372036854775808", .integer(Int64.min)),
      (.double, "2.5", .double(2.5)),
      (.double, "-1e3", .double(-1000)),
      (.float, "0.25", .float(0.25)),
      (.decimal, "12.75", .decimal(Decimal(string: "12.75")!)),
      (.boolean, "YES", .boolean(true)),
      (.boolean, "NO", .boolean(false)),
      (.boolean, "1", .boolean(true)),
      (.boolean, "0", .boolean(false)),
      (.string, "", .string("")),
      (.date, "0", .date(Date(timeIntervalSinceReferenceDate: 0))),
      (
        .uuid, "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
        .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
      ),
      (.uri, "https://example.com/a", .uri(URL(string: "https://example.com/a")!)),
    ])
  func exact(type: AttributeType, text: String, value: AttributeValue) throws {
    #expect(try ValueText.read(text, as: type) == .exact(value))
  }

  @Test(
    "Core Data's lenient spellings are coerced and explained",
    arguments: [
      (
        AttributeType.integer16, "0.0", AttributeValue.integer(0),
        "\"0.0\" is read as 0, as Core Data does"
      ),
      (.integer64, "NO", .integer(0), "the Boolean \"NO\" is read as 0, as Core Data does"),
      (.integer32, "YES", .integer(1), "the Boolean \"YES\" is read as 1, as Core Data does"),
      (.boolean, "100", .boolean(true), "the number \"100\" is read as YES, as Core Data does"),
      (
        .integer64, "9.1e18", .integer(9_100_000_000_000_000_000),
        "\"9.1e18\" is read as 9100000000000000000, as Core Data does"
      ),
      (.boolean, "0.0", .boolean(false), "the number \"0.0\" is read as NO, as Core Data does"),
      (.boolean, "true", .boolean(true), "\"true\" is read as YES, as Core Data does"),
    ])
  func coerced(type: AttributeType, text: String, value: AttributeValue, note: String) throws {
    #expect(try ValueText.read(text, as: type) == .coerced(value, note: note))
  }

  @Test("a UUID or URI default that is not one is ignored, as Core Data ignores it")
  func ignored() throws {
    #expect(
      try ValueText.read("empy", as: .uuid) == .ignored(note: "not a UUID, so Core Data ignores it")
    )
    #expect(
      try ValueText.read("", as: .uri) == .ignored(note: "not a URI, so Core Data ignores it"))
  }

  @Test(
    "text that no rule reads is an error with its reason",
    arguments: [
      (AttributeType.integer16, "abc", "expected a whole number"),
      (.integer16, "1.5", "expected a whole number"),
      (.integer16, "40000", "outside -32768...32767"),
      (.integer32, "2147483648", "outside -2147483648...2147483647"),
      (.integer64, "99999999999999999999", "outside -9223372036854775808...9223372036854775807"),
      (.integer64, "1e19", "outside -9223372036854775808...9223372036854775807"),
      (.double, "nan", "expected a decimal number"),
      (.double, "0x10", "expected a decimal number"),
      (.float, "1e39", "outside the range of Float"),
      (.decimal, "twelve", "expected a decimal number"),
      (.boolean, "maybe", "expected YES or NO"),
      (
        .date, "yesterday",
        "expected seconds since 2001-01-01 (Xcode writes defaultDateTimeInterval)"
      ),
      (.binaryData, "00", "Binary attributes take no default value"),
      (.transformable, "x", "Transformable attributes take no default value"),
    ])
  func failures(type: AttributeType, text: String, reason: String) {
    #expect(throws: ReadFailure(reason)) { try ValueText.read(text, as: type) }
  }
}
