import FolioTestSupport
import Foundation
import Testing

@testable import FolioModel

/// "Did you mean" suggestions, which every reader's unknown-name errors add. The suggestion
/// passes over candidates whose length alone puts them too far away; these tests hold it to
/// the plain definition, which computes every distance.
@Suite("Suggestions for unknown names")
struct SuggestionTests {
  /// The definition: the first known name at the smallest edit distance (case aside) that is
  /// within its limit, computed for every candidate.
  static func reference(for name: String, among known: [String]) -> String {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
      var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
      for i in 0...a.count { table[i][0] = i }
      for j in 0...b.count { table[0][j] = j }
      for i in stride(from: 1, through: a.count, by: 1) {
        for j in stride(from: 1, through: b.count, by: 1) {
          table[i][j] = Swift.min(
            table[i - 1][j] + 1, table[i][j - 1] + 1,
            table[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
      }
      return table[a.count][b.count]
    }
    var best: (name: String, distance: Int)?
    for candidate in known {
      let limit = candidate.count <= 2 ? 0 : candidate.count <= 5 ? 2 : (candidate.count + 2) / 3
      let found = distance(Array(name.lowercased()), Array(candidate.lowercased()))
      if found <= limit, found < (best?.distance ?? .max) { best = (candidate, found) }
    }
    return best.map { " (did you mean \"\($0.name)\"?)" } ?? ""
  }

  @Test("the suggestion is the definition's, for 20,000 random names and lists")
  func matchesDefinition() {
    let alphabet: [Character] = ["a", "b", "c", "A", "B", "é", "E\u{301}", "İ", "ß", "_", "1"]
    var random = SeededGenerator(seed: 20_261_125)
    func word(upTo length: Int) -> String {
      String(
        (0..<Int.random(in: 0...length, using: &random)).map { _ in
          alphabet.randomElement(using: &random) ?? "a"
        })
    }
    var suggested = 0
    for _ in 0..<20_000 {
      let known = (0..<Int.random(in: 0...6, using: &random)).map { _ in word(upTo: 12) }
      // Names near a known one, as a typo makes them, and names of any length.
      var name = word(upTo: 16)
      if let near = known.randomElement(using: &random), Bool.random(using: &random) {
        name = near + word(upTo: 3)
      }
      let expected = Self.reference(for: name, among: known)
      #expect(
        nameSuggestion(for: name, among: known) == expected,
        "\"\(name)\" among \(known)")
      if !expected.isEmpty { suggested += 1 }
    }
    // The cases exercise both outcomes.
    #expect(suggested > 2_000 && suggested < 18_000, "\(suggested) of 20,000 suggested")
  }

  @Test("a candidate is suggested up to its limit of edits, and not one edit beyond")
  func lengthBound() {
    // "spending" (8 characters) allows (8 + 2) / 3 = 3 edits; "date" (4) allows 2.
    let known = ["date", "spending"]
    #expect(
      nameSuggestion(for: "SPENDINGxyz", among: known) == " (did you mean \"spending\"?)")
    #expect(nameSuggestion(for: "spendingwxyz", among: known) == "")
    #expect(nameSuggestion(for: "pending", among: known) == " (did you mean \"spending\"?)")
    #expect(nameSuggestion(for: "dt", among: known) == " (did you mean \"date\"?)")
    #expect(nameSuggestion(for: "d", among: known) == "")
  }

  @Test("a name of 1,000,000 characters gets no suggestion, and its error names it")
  func longName() throws {
    let name = String(repeating: "spending", count: 125_000)
    let known = (0..<200).map { "entity\($0)" } + ["spending"]
    #expect(nameSuggestion(for: name, among: known) == "")
    let error = ModelError.unknownAttributeType(name, at: nil)
    #expect(error.code == .unknownAttributeType)
    #expect(error.description.hasSuffix("unknown attribute type \"\(name)\""))
  }
}
