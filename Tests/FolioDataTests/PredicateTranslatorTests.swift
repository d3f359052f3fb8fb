import FolioData
import FolioQuery
import FolioTestSupport
import Foundation
import Testing

/// A model class as `@Model` makes one: stored properties the namer knows by key path.
final class Member: KeyValueReadable {
  var name: String
  var age: Int
  var score: Double?
  var joined: Date
  var mentor: Member?
  var friends: [Member] = []
  var tags: [String] = []

  init(name: String, age: Int, score: Double?, joined: Date) {
    (self.name, self.age, self.score, self.joined) = (name, age, score, joined)
  }

  /// The names of the stored properties, by key path: what the macro's metadata gives.
  nonisolated(unsafe) static let names: [AnyKeyPath: String] = [
    \Member.name: "name", \Member.age: "age", \Member.score: "score", \Member.joined: "joined",
    \Member.mentor: "mentor", \Member.friends: "friends",
  ]

  func value(forKeyPath keyPath: String) throws -> Any? {
    switch keyPath {
    case "name": name
    case "age": age
    case "score": score
    case "joined": joined
    case "mentor": mentor
    case "friends": friends
    default: throw QueryError(.unknownKey, "no key \(keyPath)")
    }
  }
}

@Suite("Foundation's predicates translated into Folio's")
struct PredicateTranslatorTests {
  static var translator: PredicateTranslator { PredicateTranslator { Member.names[$0] } }
  static let day = Date(timeIntervalSinceReferenceDate: 800_000_000)

  /// Each predicate with what it translates to, in Folio's format syntax.
  static func cases() -> [(Predicate<Member>, String)] {
    let day = Self.day
    let names = ["Ada", "Alan"]
    // A forced unwrap, as predicates write one after a test for nil.
    // swift-format-ignore: NeverForceUnwrap
    let unwrapped = #Predicate<Member> { $0.score != nil && $0.score! > 2.5 }
    return [
      (#Predicate<Member> { $0.age >= 40 }, "age >= 40"),
      (#Predicate<Member> { $0.age < 30 || $0.name == "Ada" }, "age < 30 OR name == 'Ada'"),
      (#Predicate<Member> { !($0.age != 36) }, "NOT age != 36"),
      (#Predicate<Member> { $0.name.contains("an") }, "name CONTAINS 'an'"),
      (#Predicate<Member> { $0.name.starts(with: "Al") }, "name BEGINSWITH 'Al'"),
      (#Predicate<Member> { $0.score == nil }, "score == nil"),
      (unwrapped, "score != nil AND score > 2.5"),
      (#Predicate<Member> { $0.joined < day }, "joined < %@"),
      (#Predicate<Member> { $0.mentor?.name == "Ada" }, "mentor.name == 'Ada'"),
      (#Predicate<Member> { $0.mentor?.mentor?.age == 50 }, "mentor.mentor.age == 50"),
      (#Predicate<Member> { names.contains($0.name) }, "name IN {'Ada', 'Alan'}"),
      (#Predicate<Member> { $0.friends.count > 1 }, "friends.@count > 1"),
      (
        #Predicate<Member> { $0.friends.contains { $0.age > 40 } },
        "SUBQUERY(friends, $element1, $element1.age > 40).@count > 0"
      ),
      (
        #Predicate<Member> { $0.friends.allSatisfy { $0.name.contains("a") } },
        "SUBQUERY(friends, $element1, NOT $element1.name CONTAINS 'a').@count == 0"
      ),
    ]
  }

  @Test("each form translates to the predicate format syntax writes for it")
  func shapes() throws {
    for (predicate, format) in Self.cases() {
      let translated = try Self.translator.translate(predicate)
      #expect(translated == (try QueryPredicate(format: format, Self.day)), "\(format)")
    }
  }

  /// Members with random values and links, names from a small set so that comparisons hit.
  static func members(seed: UInt64, count: Int) -> [Member] {
    var random = SeededGenerator(seed: seed)
    let names = ["Ada", "Alan", "Grace", "ada", "Édouard", "Anna", ""]
    let members = (0..<count).map { _ in
      Member(
        name: names.randomElement(using: &random) ?? "",
        age: Int.random(in: 20...60, using: &random),
        score: Bool.random(using: &random)
          ? nil : Double(Int.random(in: 0...10, using: &random)) / 2,
        joined: Self.day.addingTimeInterval(Double(Int.random(in: -3...3, using: &random)) * 86_400)
      )
    }
    for member in members {
      if Bool.random(using: &random) { member.mentor = members.randomElement(using: &random) }
      member.friends = (0..<Int.random(in: 0...3, using: &random)).compactMap { _ in
        members.randomElement(using: &random)
      }
    }
    return members
  }

  @Test(
    "on random objects, the translated predicate answers as Predicate.evaluate does",
    arguments: [UInt64(1), 2, 3])
  func differential(seed: UInt64) throws {
    let members = Self.members(seed: seed, count: 300)
    for (predicate, format) in Self.cases() {
      let translated = try Self.translator.translate(predicate)
      for (index, member) in members.enumerated() {
        let plain = try predicate.evaluate(member)
        let fast = try translated.evaluate(with: member)
        #expect(plain == fast, "\(format), seed \(seed), member \(index)")
      }
    }
  }

  @Test("a node without an equivalent makes the predicate untranslatable, naming the node")
  func untranslatable() throws {
    let predicates: [(Predicate<Member>, String)] = [
      (#Predicate<Member> { ($0.score ?? 0) > 1 }, "NilCoalesce"),
      (#Predicate<Member> { $0.name < "B" }, "Comparison"),
      (#Predicate<Member> { $0.tags.isEmpty }, "KeyPath"),
      (#Predicate<Member> { $0.age + 1 > 40 }, "Arithmetic"),
      (#Predicate<Member> { $0.name.count > 3 }, "KeyPath"),
    ]
    for (predicate, node) in predicates {
      let error = try #require(throws: UntranslatablePredicate.self) {
        try Self.translator.translate(predicate)
      }
      #expect(error.node.contains(node), "\(error.node)")
    }
  }
}

@Suite("Foundation's sort descriptors translated into Folio's")
struct SortDescriptorTranslationTests {
  @Test("each translates to the property, the order and the comparison")
  func shapes() throws {
    let translator = PredicateTranslatorTests.translator
    let cases: [(SortDescriptor<Member>, QuerySortDescriptor)] = [
      (SortDescriptor(\Member.age), QuerySortDescriptor(keyPath: "age")),
      (
        SortDescriptor(\Member.joined, order: .reverse),
        QuerySortDescriptor(keyPath: "joined", ascending: false)
      ),
      (SortDescriptor(\Member.name, comparator: .lexical), QuerySortDescriptor(keyPath: "name")),
    ]
    for (descriptor, expected) in cases {
      #expect(try translator.translate(descriptor) == expected)
    }
    #expect(throws: UntranslatablePredicate.self) {
      try translator.translate(SortDescriptor(\Member.tags.count))
    }
  }

  @Test(
    "on random objects, the translated descriptors order as Foundation's do",
    arguments: [UInt64(1), 2, 3])
  func differential(seed: UInt64) throws {
    let translator = PredicateTranslatorTests.translator
    let members = PredicateTranslatorTests.members(seed: seed, count: 200)
    let descriptors: [[SortDescriptor<Member>]] = [
      [SortDescriptor(\Member.age)],
      [SortDescriptor(\Member.name, comparator: .lexical), SortDescriptor(\Member.age)],
      [
        SortDescriptor(\Member.joined, order: .reverse),
        SortDescriptor(\Member.age, order: .reverse),
      ],
    ]
    for foundation in descriptors {
      let folio = try foundation.map { (descriptor) throws(UntranslatablePredicate) in
        try translator.translate(descriptor)
      }
      for (index, (first, second)) in zip(members, members.shuffled()).enumerated() {
        var plain = ComparisonResult.orderedSame
        for descriptor in foundation where plain == .orderedSame {
          plain = descriptor.compare(first, second)
        }
        var fast = ComparisonResult.orderedSame
        for descriptor in folio where fast == .orderedSame {
          fast = try descriptor.compare(first, second)
        }
        #expect(plain == fast, "\(folio), seed \(seed), pair \(index)")
      }
    }
  }
}
