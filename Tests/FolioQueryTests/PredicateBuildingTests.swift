import Foundation
import Testing

@testable import FolioQuery

@Suite("Predicates built in Swift, and substitution")
struct PredicateBuildingTests {
  static func builtCases() -> [(QueryPredicate, String)] {
    var cases: [(QueryPredicate, String)] = []
    let age: QueryPredicate = .key("age") > 30
    cases.append((age, "age > 30"))
    let adults: QueryPredicate = .key("age") >= 18 && .key("name").beginsWith("a", .caseInsensitive)
    cases.append((adults, "age >= 18 AND name BEGINSWITH[c] \"a\""))
    let young: QueryPredicate = .key("age") < 26 || .key("age") > 40
    let either: QueryPredicate = young || .key("name") == "eve"
    cases.append((either, "age < 26 OR age > 40 OR name == \"eve\""))
    let notAnn: QueryPredicate = .key("friend.name") != "Ann"
    cases.append((!notAnn, "NOT friend.name != \"Ann\""))
    cases.append((.any(.key("spendings.amount") > 50.0), "ANY spendings.amount > 50.0"))
    cases.append((.all(.key("tags") == "swift"), "ALL tags == \"swift\""))
    cases.append((.none(.key("tags") == "swift"), "NONE tags == \"swift\""))
    let city: QueryPredicate = .key("city").contains(
      "zur", [.caseInsensitive, .diacriticInsensitive])
    cases.append((city, "city CONTAINS[cd] \"zur\""))
    cases.append((.key("name").isIn(["Ann", "Bob"]), "name IN {\"Ann\", \"Bob\"}"))
    cases.append((.key("age").isBetween(25, and: 35), "age BETWEEN {25, 35}"))
    let like: QueryPredicate = .key("name").like("?ob")
    let matches: QueryPredicate = .key("name").matches("B.*")
    let ends: QueryPredicate = .key("name").endsWith("b")
    cases.append(
      (
        like && matches && ends,
        "name LIKE \"?ob\" AND name MATCHES \"B.*\" AND name ENDSWITH \"b\""
      ))
    cases.append((.key("nickname").isNil, "nickname == nil"))
    cases.append((.key("friend.friend").equals(.evaluatedObject), "friend.friend == SELF"))
    let active: QueryPredicate = .key("isActive") == true
    let younger: QueryPredicate = .key("age") <= 30
    cases.append((active && younger, "isActive == YES AND age <= 30"))
    return cases
  }

  @Test("built predicates equal their parsed form and print as it")
  func builtEqualsParsedAll() throws {
    for (built, format) in Self.builtCases() {
      try builtEqualsParsed(built, format)
    }
  }

  func builtEqualsParsed(_ built: QueryPredicate, _ format: String) throws {
    #expect(built == (try QueryPredicate(format: format)))
    #expect(try QueryPredicate(format: built.description) == built)
  }

  @Test("a built predicate evaluates like its format string")
  func builtEvaluates() throws {
    let people = makePeople()
    let predicate: QueryPredicate =
      .key("age") > 26 && .key("city").contains("zur", [.caseInsensitive, .diacriticInsensitive])
    let names = try people.filter { try predicate.evaluate(with: $0) }.map(\.name)
    #expect(names == ["Ann", "Dmitri"])
  }

  @Test("substitution replaces variables with constants, lists, nil and objects")
  func substitution() throws {
    let people = makePeople()
    let template = try QueryPredicate(
      format: "age > $minimum AND name IN $names AND nickname != $none AND friend != $friend")
    let filled = try template.withSubstitutionVariables([
      "minimum": 20, "names": ["Ann", "Bob", "Dmitri"], "none": nil, "friend": people[1],
    ])
    #expect(
      filled.description.hasPrefix(
        "age > 20 AND name IN {\"Ann\", \"Bob\", \"Dmitri\"} AND nickname != nil AND friend != "))
    let names = try people.filter { try filled.evaluate(with: $0) }.map(\.name)
    #expect(names == ["Dmitri"])
  }

  @Test("substitution leaves a SUBQUERY's own variable alone")
  func substitutionInSubquery() throws {
    let template = try QueryPredicate(
      format: "SUBQUERY(spendings, $s, $s.amount > $limit).@count > 0")
    let filled = try template.withSubstitutionVariables(["limit": 150])
    #expect(filled.description == "SUBQUERY(spendings, $s, $s.amount > 150).@count > 0")
    let names = try makePeople().filter { try filled.evaluate(with: $0) }.map(\.name)
    #expect(names == ["eve"])
  }

  @Test("substitution without a value for a variable throws")
  func substitutionMissing() throws {
    let template = try QueryPredicate(format: "age > $minimum")
    #expect {
      _ = try template.withSubstitutionVariables([:])
    } throws: { error in
      (error as? QueryError)?.description == "no value for variable $minimum"
    }
  }

  @Test("case folding follows Unicode, not ASCII")
  func unicodeFolding() throws {
    let street = Node("Street", ["name": "Straße", "greek": "ΣΊΣΥΦΟΣ"])
    #expect(try QueryPredicate(format: "name ==[c] \"STRASSE\"").evaluate(with: street))
    #expect(try QueryPredicate(format: "name BEGINSWITH[c] \"STRAS\"").evaluate(with: street))
    #expect(try QueryPredicate(format: "greek ==[cd] \"σισυφος\"").evaluate(with: street))
    #expect(try !QueryPredicate(format: "greek == \"σίσυφος\"").evaluate(with: street))
  }

  @Test("printing escapes quotes, backslashes and control characters")
  func printingEscapes() throws {
    let predicate: QueryPredicate = .key("motto") == "a \"b\" \\ c\n\u{1}"
    #expect(predicate.description == #"motto == "a \"b\" \\ c\n\u0001""#)
    #expect(try QueryPredicate(format: predicate.description) == predicate)
  }

  @Test("NONE and SOME print as NOT ANY and ANY")
  func modifiersPrintCanonically() throws {
    #expect(try QueryPredicate(format: "NONE tags == 'x'").description == "NOT ANY tags == \"x\"")
    #expect(try QueryPredicate(format: "some tags = 'x'").description == "ANY tags == \"x\"")
  }

  @Test("keys spelled like keywords print escaped with #")
  func keywordKeys() throws {
    let predicate = try QueryPredicate(format: "#in.#all == 1")
    #expect(predicate == (.key("in.all") == 1))
    #expect(predicate.description == "#in.#all == 1")
  }

  @Test("variadic arguments fill placeholders in order")
  func variadicArguments() throws {
    let predicate = try QueryPredicate(format: "%K > %d AND name != %@", "age", 20, "Bob")
    #expect(predicate.description == "age > 20 AND name != \"Bob\"")
  }

  @Test("an expression's value reads a key path from an object")
  func expressionValue() throws {
    let ann = makePeople()[0]
    #expect(try QueryExpression.key("spendings.@sum.amount").value(with: ann) as? Double == 39.5)
    #expect(try QueryExpression.key("friend.name").value(with: ann) as? String == "Bob")
  }
}
