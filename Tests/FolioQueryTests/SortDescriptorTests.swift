import FolioTestSupport
import Foundation
import Testing

@testable import FolioQuery

@Suite("Sort descriptors")
struct SortDescriptorTests {
  func names(_ nodes: [Node]) -> [String] { nodes.map(\.name) }

  @Test("one key ascending and descending, nil first when ascending")
  func oneKey() throws {
    let people = makePeople()
    let byAge = QuerySortDescriptor(keyPath: "age")
    #expect(names(try people.sorted(by: [byAge])) == ["eve", "Bob", "Ann", "Dmitri", "Cécile"])
    let byAgeDescending = QuerySortDescriptor(keyPath: "age", ascending: false)
    #expect(
      names(try people.sorted(by: [byAgeDescending])) == ["Cécile", "Dmitri", "Ann", "Bob", "eve"])
  }

  @Test("numbers order by value across Int, Double, Float and Decimal")
  func mixedNumbers() throws {
    let people = makePeople()
    #expect(
      names(try people.sorted(by: [QuerySortDescriptor(keyPath: "balance")]))
        == ["eve", "Bob", "Cécile", "Dmitri", "Ann"])
    #expect(
      names(try people.sorted(by: [QuerySortDescriptor(keyPath: "spendings.@sum.amount")]))
        == ["Cécile", "Dmitri", "Ann", "Bob", "eve"])
  }

  @Test("several levels break ties in order, and full ties keep their order")
  func multiLevel() throws {
    let people = makePeople()
    let descriptors = [
      QuerySortDescriptor(keyPath: "isActive", ascending: false),
      QuerySortDescriptor(keyPath: "friend.name"),
      QuerySortDescriptor(keyPath: "age", ascending: false),
    ]
    // Active: Ann (friend Bob), Cécile (no friend), Dmitri (friend Ann); then Bob, eve.
    #expect(
      names(try people.sorted(by: descriptors)) == ["Cécile", "Dmitri", "Ann", "Bob", "eve"])
    let stable = try people.sorted(by: [QuerySortDescriptor(keyPath: "isActive")])
    #expect(names(stable) == ["Bob", "eve", "Ann", "Cécile", "Dmitri"])
  }

  @Test("default, case-insensitive and localized-standard string orders")
  func stringComparisons() throws {
    let files = ["file10", "File2", "file1", "apple"].map { Node("File", ["name": $0]) }
    #expect(
      names(try files.sorted(by: [QuerySortDescriptor(keyPath: "name")]))
        == ["File2", "apple", "file1", "file10"])
    #expect(
      names(
        try files.sorted(by: [QuerySortDescriptor(keyPath: "name", comparison: .caseInsensitive)]))
        == ["apple", "file1", "file10", "File2"])
    #expect(
      names(
        try files.sorted(by: [QuerySortDescriptor(keyPath: "name", comparison: .localizedStandard)])
      )
        == ["apple", "file1", "File2", "file10"])
  }

  @Test("nil sorts first ascending and last descending")
  func nilOrdering() throws {
    let people = makePeople()
    let byNickname = QuerySortDescriptor(keyPath: "nickname")
    #expect(
      names(try people.sorted(by: [byNickname])) == ["Bob", "eve", "Ann", "Cécile", "Dmitri"])
    let descending = QuerySortDescriptor(keyPath: "nickname", ascending: false)
    #expect(
      names(try people.sorted(by: [descending])) == ["Dmitri", "Cécile", "Ann", "Bob", "eve"])
  }

  @Test("compare orders two objects")
  func compareTwo() throws {
    let people = makePeople()
    let byName = QuerySortDescriptor(keyPath: "name")
    #expect(try byName.compare(people[0], people[1]) == .orderedAscending)
    #expect(try byName.compare(people[1], people[1]) == .orderedSame)
    #expect(byName.description == "name ascending")
  }

  @Test("an unknown key or values with no order throw")
  func errors() throws {
    let people = makePeople()
    #expect {
      _ = try people.sorted(by: [QuerySortDescriptor(keyPath: "nmae")])
    } throws: { error in
      (error as? QueryError)?.description
        == "cannot read \"nmae\" of key path \"nmae\": Person has no key \"nmae\""
    }
    let mixed = [Node("X", ["v": 1]), Node("X", ["v": "a"])]
    #expect {
      _ = try mixed.sorted(by: [QuerySortDescriptor(keyPath: "v")])
    } throws: { error in
      let description = (error as? QueryError)?.description
      return description == "cannot compare \"a\" with 1"
        || description == "cannot compare 1 with \"a\""
    }
  }

  @Test(
    "typed columns sort as the general comparison does: nil first, ties stable, per direction",
    arguments: [1, 2, 3])
  func typedColumnsAgree(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let words = ["b", "B", "a", "é", "e\u{301}", "Zoë", "zoe", "10", "9"]
    let nodes = (0..<300).map { index in
      Node(
        "Row",
        [
          "name": "\(index)",
          "word": random.next() % 5 == 0 ? nil : words[Int(random.next() % UInt64(words.count))],
          "real": random.next() % 7 == 0 ? nil : Double(random.next() % 6) / 2,
          "count": random.next() % 9 == 0 ? nil : Int(random.next() % 4),
        ])
    }
    for ascending in [true, false] {
      let descriptors = [
        QuerySortDescriptor(keyPath: "word", ascending: ascending),
        QuerySortDescriptor(keyPath: "real", ascending: !ascending),
        QuerySortDescriptor(keyPath: "count", ascending: ascending),
      ]
      let sorted = try nodes.sorted(by: descriptors)
      #expect(Set(sorted.map(\.name)) == Set(nodes.map(\.name)))
      for (first, second) in zip(sorted, sorted.dropFirst()) {
        var order = ComparisonResult.orderedSame
        for descriptor in descriptors where order == .orderedSame {
          order = try descriptor.compare(first, second)
        }
        #expect(order != .orderedDescending, "\(first) before \(second)")
        if order == .orderedSame {
          #expect(Int(first.name)! < Int(second.name)!, "ties keep their order")
        }
      }
    }
  }

  @Test("folding ASCII without Foundation gives Foundation's result")
  func asciiFolding() {
    let samples = [
      "", "abc", "ABC", "MiXeD 123 _-@[`{", "Straße", "ÉCOLE", "ǅungla", "\u{212A}elvin",
    ]
    for text in samples {
      for options: QueryComparison.Options in [
        [], .caseInsensitive, .diacriticInsensitive,
        [.caseInsensitive, .diacriticInsensitive],
      ] {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        let expected = options.isEmpty ? text : text.folding(options: folding, locale: nil)
        #expect(options.fold(text) == expected, "\(text) \(options)")
      }
    }
  }
}
