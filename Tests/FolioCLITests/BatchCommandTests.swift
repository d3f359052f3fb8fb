import FolioBinaryStore
import FolioModel
import FolioSQLiteStore
import FolioStores
import FolioTestSupport
import FolioXMLStore
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `folio delete` and `folio update`: what they print and change on each format, what they
/// refuse, another process saving the same store at the same moment, and a kill midway.
@Suite("folio delete and update")
struct BatchCommandTests {
  static let model = packageRoot.appendingPathComponent("Samples/Expenses/Expenses.xcdatamodeld")
  static let formats: [String: any StoreFormat] = [
    "xml": XMLStore(), "folio": BinaryStore(), "sqlite": SQLiteStore(),
  ]

  /// A store of `people` people named `p0`… with `spendings` spendings each, `s<person>-<n>`
  /// of amount n.
  static func contents(people: Int, spendings: Int) -> StoreContents {
    var records: [StoreRecord] = []
    var id: Int64 = 1
    for person in 0..<people {
      let personID = id
      id += 1
      var owned: [Int64] = []
      for spending in 0..<spendings {
        records.append(
          StoreRecord(
            entityName: "Spending", id: id,
            attributes: [
              "content": .string("s\(person)-\(spending)"), "amount": .double(Double(spending)),
            ], relationships: ["person": [personID]]))
        owned.append(id)
        id += 1
      }
      records.append(
        StoreRecord(
          entityName: "Person", id: personID, attributes: ["name": .string("p\(person)")],
          relationships: ["spendings": owned]))
    }
    return StoreContents(metadata: StoreMetadata(storeType: "Test"), records: records)
  }

  /// A store of `fileExtension`'s format in `folder` (``contents(people:spendings:)``).
  static func makeStore(
    _ fileExtension: String, in folder: URL, people: Int = 3, spendings: Int = 4
  ) throws -> URL {
    let url = folder.appendingPathComponent("expenses.\(fileExtension)")
    let format = try #require(formats[fileExtension])
    try format.write(
      contents(people: people, spendings: spendings),
      model: try ManagedObjectModel(contentsOf: model), to: url)
    return url
  }

  /// Each record of the store at `url` as a line, sorted.
  static func state(_ url: URL) throws -> [String] {
    let format = try #require(formats[url.pathExtension])
    return try format.read(from: url, model: try ManagedObjectModel(contentsOf: model)).records
      .map { record in
        let attributes = record.attributes.keys.sorted().map {
          "\($0)=\(record.attributes[$0].map { "\($0)" } ?? "nil")"
        }
        let relationships = record.relationships.keys.sorted().map {
          "\($0)=\((record.relationships[$0] ?? []).sorted())"
        }
        return
          "\(record.entityName) \(StoreKeySpace.key(of: record.id)) \(attributes) \(relationships)"
      }.sorted()
  }

  /// The values of `key` of the store's `entity` objects, sorted.
  static func values(_ url: URL, _ entity: String, _ key: String) throws -> [String] {
    let format = try #require(formats[url.pathExtension])
    return try format.read(from: url, model: try ManagedObjectModel(contentsOf: model)).records
      .filter { $0.entityName == entity }
      .map { $0.attribute(key).map { "\($0.readerValue)" } ?? "nil" }.sorted()
  }

  @Test(
    "delete and update report the count and change the store",
    arguments: ["xml", "folio", "sqlite"])
  func reportAndChange(fileExtension: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try Self.makeStore(fileExtension, in: folder)
    let deleted = try run(
      folio, ["delete", url.path, "--entity", "Spending", "--where", "amount >= 2"])
    #expect(deleted.status == 0, "\(deleted.standardError)")
    #expect(deleted.standardOutput == "deleted 6 Spending objects\n")
    #expect(
      try Self.values(url, "Spending", "amount") == ["0.0", "0.0", "0.0", "1.0", "1.0", "1.0"])
    let updated = try run(
      folio,
      [
        "update", url.path, "--entity", "Spending", "--where", "amount == 1", "--set",
        "content='one'", "--set", "amount=amount * 10", "--json",
      ])
    #expect(updated.status == 0, "\(updated.standardError)")
    #expect(
      updated.standardOutput
        == "{\"entity\":\"Spending\",\"file\":\"\(url.path)\",\"updated\":3}\n")
    #expect(
      try Self.values(url, "Spending", "content") == ["one", "one", "one", "s0-0", "s1-0", "s2-0"])
    // Person.spendings cascades.
    let people = try run(
      folio, ["delete", url.path, "--entity", "Person", "--where", "name == 'p1'"])
    #expect(
      people.standardOutput == "deleted 1 Person object, and 2 more by Cascade delete rules\n")
    #expect(try Self.values(url, "Person", "name") == ["p0", "p2"])
    #expect(try Self.values(url, "Spending", "amount") == ["0.0", "0.0", "10.0", "10.0"])
    let none = try run(
      folio, ["delete", url.path, "--entity", "Person", "--where", "name == 'nobody'", "--json"])
    #expect(
      none.standardOutput
        == "{\"cascaded\":0,\"deleted\":0,\"entity\":\"Person\",\"file\":\"\(url.path)\"}\n")
  }

  @Test("bad input is refused naming the place, and the store is left as it was")
  func refusals() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = try Self.makeStore("sqlite", in: folder)
    let before = try Self.state(url)
    let path = url.path
    let cases: [([String], Int32, String)] = [
      (
        ["delete", path, "--entity", "Spnding", "--where", "TRUEPREDICATE"], 1,
        "Error: \(path): unknown entity \"Spnding\" (did you mean \"Spending\"?)\n"
      ),
      (
        ["delete", path, "--entity", "Spending", "--where", "amout > 1"], 1,
        "Error: \(path): Spending.amout: \"Spending\" has no property \"amout\" (did you mean \"amount\"?)\n"
      ),
      (
        ["delete", path, "--entity", "Spending", "--where", "amount >"], 64,
        "Error: --where \"amount >\": column 9: expected a value after \">\", found end of input\n"
      ),
      (
        [
          "update", path, "--entity", "Spending", "--where", "TRUEPREDICATE", "--set", "amount='x'",
        ],
        1, "Error: \(path): Spending.amount: \"x\" (a string) is not of type Double\n"
      ),
      (
        ["update", path, "--entity", "Spending", "--where", "TRUEPREDICATE", "--set", "amout=1"],
        1,
        "Error: \(path): Spending.amout: \"Spending\" has no property \"amout\" (did you mean \"amount\"?)\n"
      ),
      (
        ["update", path, "--entity", "Spending", "--where", "TRUEPREDICATE", "--set", "content=x"],
        64,
        "Error: --set content=x: Spending has no property \"x\"; text is written in quotes: content='x'\n"
      ),
      (
        [
          "update", path, "--entity", "Spending", "--where", "TRUEPREDICATE", "--set", "person=nil",
        ],
        1,
        "Error: \(path): Spending.person: \"person\" is a relationship; a batch update sets attributes only\n"
      ),
      (
        ["update", path, "--entity", "Spending", "--where", "TRUEPREDICATE", "--set", "amount"], 64,
        "Error: --set takes KEY=VALUE, not \"amount\"\n"
      ),
    ]
    for (arguments, status, message) in cases {
      let result = try run(folio, arguments)
      #expect(result.status == status, "\(arguments)")
      #expect(result.standardError == message, "\(arguments)")
      #expect(result.standardOutput.isEmpty)
    }
    let missing = try run(folio, ["delete", path, "--entity", "Spending"])
    #expect(missing.status == 64)
    #expect(missing.standardError.hasPrefix("Error: Missing expected argument '--where <where>'"))
    let stdin = try run(folio, ["delete", "-", "--entity", "Spending", "--where", "TRUEPREDICATE"])
    #expect(stdin.status == 64)
    #expect(
      stdin.standardError.hasPrefix(
        "Error: delete changes a store file in place; it cannot read one from -\n"))
    #expect(try Self.state(url) == before)
  }
}
