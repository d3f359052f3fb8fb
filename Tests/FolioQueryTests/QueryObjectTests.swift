import FolioQuery
import Testing

/// What a predicate keeps of an object given as an argument: its identity and description,
/// values that may cross isolation domains, and never the object itself.
@Suite("Objects in predicates")
struct QueryObjectTests {
  @Test("a wrapped object equals itself and no other, and its description is taken when wrapped")
  func identity() {
    let ann = Node("Person", ["name": "Ann"])
    let other = Node("Person", ["name": "Ann"])
    let wrapped = QueryObject(ann)
    #expect(wrapped == QueryObject(ann))
    #expect(wrapped != QueryObject(other))
    #expect(Set([wrapped, QueryObject(ann), QueryObject(other)]).count == 2)
    ann.values["name"] = "Anne"
    #expect(wrapped.description == "Person(Ann)")
    #expect(QueryObject(ann).description == "Person(Anne)")
  }

  @Test("a predicate holding an object keeps it alive, so its identity never names a new object")
  func keepsIdentity() throws {
    var predicate: QueryPredicate?
    do {
      let gone = Node("Person", ["name": "Gone"])
      predicate = try QueryPredicate(format: "SELF == %@", gone)
    }
    let fresh = (0..<100).map { Node("Person", ["name": "Fresh \($0)"]) }
    let held = try #require(predicate)
    #expect(try fresh.allSatisfy { try !held.evaluate(with: $0) })
  }

  @Test("a predicate with an object argument crosses to another task and matches it there")
  func crossesIsolation() async throws {
    let bob = Node("Person", ["name": "Bob"])
    let predicate = try QueryPredicate(format: "SELF == %@ OR friend == %@", bob, bob)
    let printed = await Task.detached { predicate.description }.value
    #expect(printed == "SELF == Person(Bob) OR friend == Person(Bob)")
    #expect(try predicate.evaluate(with: bob))
    #expect(try predicate.evaluate(with: Node("Person", ["name": "Cy", "friend": bob])))
    #expect(try !predicate.evaluate(with: Node("Person", ["name": "Di", "friend": nil])))
  }
}
