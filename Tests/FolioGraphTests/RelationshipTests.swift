import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

@Suite("Inverse relationships")
struct RelationshipTests {
  @Test("one-to-one: setting either side sets the other, and takes the partner from its old one")
  func oneToOne() throws {
    let context = try makeContext()
    let ada = try context.insertNewObject(forEntityName: "Employee")
    let bob = try context.insertNewObject(forEntityName: "Employee")
    let badge = try context.insertNewObject(forEntityName: "Badge")
    try ada.setValue(badge, forKey: "badge")
    #expect(try badge.value(forKey: "holder") as? ManagedObject === ada)
    try badge.setValue(bob, forKey: "holder")
    #expect(try bob.value(forKey: "badge") as? ManagedObject === badge)
    #expect(try ada.value(forKey: "badge") == nil)
    let other = try context.insertNewObject(forEntityName: "Badge")
    try bob.setValue(other, forKey: "badge")
    #expect(try badge.value(forKey: "holder") == nil)
    #expect(try other.value(forKey: "holder") as? ManagedObject === bob)
    try bob.setValue(nil, forKey: "badge")
    #expect(try other.value(forKey: "holder") == nil)
  }

  @Test("one-to-many: the to-one side moves an object between owners")
  func oneToManyFromToOne() throws {
    let context = try makeContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    let globex = try context.insertNewObject(forEntityName: "Company")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(acme, forKey: "company")
    #expect(set(try acme.value(forKey: "employees")) == [ada])
    try ada.setValue(globex, forKey: "company")
    #expect(set(try acme.value(forKey: "employees")).isEmpty)
    #expect(set(try globex.value(forKey: "employees")) == [ada])
    try ada.setValue(nil, forKey: "company")
    #expect(set(try globex.value(forKey: "employees")).isEmpty)
  }

  @Test("one-to-many: adding on the to-many side takes the object from its previous owner")
  func oneToManyFromToMany() throws {
    let context = try makeContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    let globex = try context.insertNewObject(forEntityName: "Company")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    let bob = try context.insertNewObject(forEntityName: "Employee")
    try acme.add(ada, toKey: "employees")
    try acme.add(bob, toKey: "employees")
    #expect(try ada.value(forKey: "company") as? ManagedObject === acme)
    try globex.add(ada, toKey: "employees")
    #expect(set(try acme.value(forKey: "employees")) == [bob])
    #expect(try ada.value(forKey: "company") as? ManagedObject === globex)
    try globex.setValue(Set([bob]), forKey: "employees")
    #expect(try ada.value(forKey: "company") == nil)
    #expect(try bob.value(forKey: "company") as? ManagedObject === globex)
    #expect(set(try acme.value(forKey: "employees")).isEmpty)
    try globex.remove(bob, fromKey: "employees")
    #expect(try bob.value(forKey: "company") == nil)
  }

  @Test("a self-relationship keeps manager and reports in step")
  func selfRelationship() throws {
    let context = try makeContext()
    let boss = try context.insertNewObject(forEntityName: "Employee")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(boss, forKey: "manager")
    #expect(set(try boss.value(forKey: "reports")) == [ada])
    try boss.remove(ada, fromKey: "reports")
    #expect(try ada.value(forKey: "manager") == nil)
  }

  @Test("many-to-many: adding and removing on either side")
  func manyToMany() throws {
    let context = try makeContext()
    let ada = try context.insertNewObject(forEntityName: "Employee")
    let bob = try context.insertNewObject(forEntityName: "Employee")
    let apollo = try context.insertNewObject(forEntityName: "Project")
    let gemini = try context.insertNewObject(forEntityName: "Project")
    try ada.add(apollo, toKey: "projects")
    try ada.add(gemini, toKey: "projects")
    try apollo.add(bob, toKey: "members")
    #expect(set(try apollo.value(forKey: "members")) == [ada, bob])
    #expect(set(try gemini.value(forKey: "members")) == [ada])
    #expect(set(try bob.value(forKey: "projects")) == [apollo])
    try apollo.remove(ada, fromKey: "members")
    #expect(set(try ada.value(forKey: "projects")) == [gemini])
    try ada.setValue([apollo], forKey: "projects")
    #expect(set(try gemini.value(forKey: "members")).isEmpty)
    #expect(set(try apollo.value(forKey: "members")) == [ada, bob])
  }

  @Test("ordered to-many keeps order: append, insert at an index, replace in a new order")
  func ordered() throws {
    let context = try makeContext()
    let mix = try context.insertNewObject(forEntityName: "Playlist")
    let a = try context.insertNewObject(forEntityName: "Track")
    let b = try context.insertNewObject(forEntityName: "Track")
    let c = try context.insertNewObject(forEntityName: "Track")
    try mix.add(a, toKey: "tracks")
    try mix.add(c, toKey: "tracks")
    try mix.add(b, toKey: "tracks", at: 1)
    #expect(try mix.value(forKey: "tracks") as? [ManagedObject] == [a, b, c])
    #expect(try b.value(forKey: "playlist") as? ManagedObject === mix)
    try mix.setValue([c, a], forKey: "tracks")
    #expect(try mix.value(forKey: "tracks") as? [ManagedObject] == [c, a])
    #expect(try b.value(forKey: "playlist") == nil)
    let other = try context.insertNewObject(forEntityName: "Playlist")
    try c.setValue(other, forKey: "playlist")
    #expect(try mix.value(forKey: "tracks") as? [ManagedObject] == [a])
    #expect(try other.value(forKey: "tracks") as? [ManagedObject] == [c])
  }

  @Test("a to-many set grown past the index threshold keeps membership right")
  func largeSets() throws {
    let context = try makeContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    var employees: [ManagedObject] = []
    for _ in 0..<100 {
      let employee = try context.insertNewObject(forEntityName: "Employee")
      try employee.setValue(acme, forKey: "company")
      employees.append(employee)
    }
    for employee in employees.enumerated() where employee.offset % 3 == 0 {
      try employee.element.setValue(nil, forKey: "company")
    }
    let remaining = set(try acme.value(forKey: "employees"))
    #expect(remaining.count == 66)
    #expect(remaining == Set(employees.enumerated().filter { $0.offset % 3 != 0 }.map(\.element)))
  }
}
