import Foundation
import Testing

@testable import FolioModel

@Suite("Samples")
struct SampleTests {
  @Test("Expenses: Person ⟷ Spending with Cascade and Nullify")
  func expenses() throws {
    let model = try ManagedObjectModel(contentsOf: Paths.sample("Expenses"))
    #expect(model.diagnostics.isEmpty)
    let spendings = try #require(model.entity(named: "Person")?.relationship(named: "spendings"))
    #expect(spendings.isToMany && spendings.deleteRule == .cascade)
    let person = try #require(model.entity(named: "Spending")?.relationship(named: "person"))
    #expect(!person.isToMany && person.deleteRule == .nullify)
    #expect(model.entity(named: "Spending")?.attribute(named: "amount")?.attributeType == .double)
    #expect(model.entity(named: "Person")?.attribute(named: "name")?.attributeType == .string)
  }

  @Test("Company: employees, a self-relationship and Deny")
  func company() throws {
    let model = try ManagedObjectModel(contentsOf: Paths.sample("Company"))
    #expect(model.diagnostics.isEmpty)
    let employee = try #require(model.entity(named: "Employee"))
    #expect(employee.attribute(named: "salary")?.minimumValue == .decimal(0))
    #expect(employee.attribute(named: "hasDrivingLicense")?.attributeType == .boolean)
    #expect(employee.attribute(named: "birthday")?.attributeType == .date)
    let manager = try #require(employee.relationship(named: "manager"))
    #expect(manager.destinationEntityName == "Employee" && manager.inverseName == "reports")
    #expect(employee.relationship(named: "reports")?.isToMany == true)
    let department = try #require(model.entity(named: "Department"))
    #expect(department.relationship(named: "employees")?.deleteRule == .deny)
    #expect(department.uniquenessConstraints == [["name"]])
  }

  @Test("Messaging: ordered messages and many-to-many participants")
  func messaging() throws {
    let model = try ManagedObjectModel(contentsOf: Paths.sample("Messaging"))
    #expect(model.diagnostics.isEmpty)
    #expect(model.entity(named: "User")?.attribute(named: "credits")?.attributeType == .integer16)
    let conversation = try #require(model.entity(named: "Conversation"))
    let messages = try #require(conversation.relationship(named: "messages"))
    #expect(messages.isToMany && messages.isOrdered)
    let participants = try #require(conversation.relationship(named: "participants"))
    #expect(participants.isToMany)
    #expect(model.inverse(of: participants)?.isToMany == true)
    #expect(model.entity(named: "Message")?.attribute(named: "date")?.attributeType == .date)
  }
}
