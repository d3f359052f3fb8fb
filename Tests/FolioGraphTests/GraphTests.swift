import FolioTestSupport
import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel

/// A model with every cardinality and delete rule:
/// Company ⟷ Employee (one-to-many, Deny from Company), Employee ⟷ Employee (manager/reports),
/// Employee ⟷ Badge (one-to-one, Cascade), Employee ⟷ Project (many-to-many), Playlist ⟷ Track
/// (ordered), Node (self cascade: children), Note (No Action to Employee).
func graphModel() throws -> ManagedObjectModel {
  var salary = AttributeDescription(
    "salary", .decimal, isOptional: false, defaultValue: .decimal(0))
  salary.minimumValue = .decimal(0)
  var code = AttributeDescription("code", .string)
  code.regularExpression = "[A-Z]{3}-[0-9]+"
  code.minimumLength = 5
  code.maximumLength = 8
  var age = AttributeDescription("age", .integer16)
  age.minimumValue = .integer(16)
  age.maximumValue = .integer(99)
  var members = RelationshipDescription(
    "members", to: "Employee", inverse: "projects", toMany: true)
  members.maxCount = 3
  members.minCount = 2
  return try ManagedObjectModel {
    EntityDescription("Company") {
      AttributeDescription("name", .string, isOptional: false)
      RelationshipDescription(
        "employees", to: "Employee", inverse: "company", toMany: true, deleteRule: .deny)
      UniquenessConstraint("name")
    }
    EntityDescription("Person", isAbstract: true) {
      AttributeDescription("lastName", .string, isOptional: false, defaultValue: .string("Doe"))
      age
    }
    EntityDescription("Employee", parent: "Person") {
      salary
      AttributeDescription("nickname", .string)
      AttributeDescription("active", .boolean, isOptional: false, defaultValue: .boolean(true))
      AttributeDescription("hired", .date)
      AttributeDescription("scratch", .undefined).transient()
      RelationshipDescription("company", to: "Company", inverse: "employees")
      RelationshipDescription("manager", to: "Employee", inverse: "reports")
      RelationshipDescription("reports", to: "Employee", inverse: "manager", toMany: true)
      RelationshipDescription("badge", to: "Badge", inverse: "holder", deleteRule: .cascade)
      RelationshipDescription("projects", to: "Project", inverse: "members", toMany: true)
    }
    EntityDescription("Badge") {
      code
      RelationshipDescription("holder", to: "Employee", inverse: "badge")
    }
    EntityDescription("Project") {
      AttributeDescription("title", .string)
      AttributeDescription("budget", .double, defaultValue: .double(0))
      members
    }
    MusicEntities.playlist
    MusicEntities.track
    EntityDescription("Node") {
      AttributeDescription("label", .string)
      RelationshipDescription(
        "children", to: "Node", inverse: "parents", toMany: true, deleteRule: .cascade)
      RelationshipDescription("parents", to: "Node", inverse: "children", toMany: true)
    }
    EntityDescription("Note") {
      AttributeDescription("text", .string)
      RelationshipDescription("about", to: "Employee", deleteRule: .noAction)
    }
  }
}

extension AttributeDescription {
  func transient() -> AttributeDescription {
    var copy = self
    copy.isTransient = true
    return copy
  }
}

func makeContext() throws -> ManagedObjectContext {
  ManagedObjectContext(model: try graphModel())
}

/// The `GraphError` that `body` throws, or `nil`.
func graphError(_ body: () throws -> Void) -> GraphError? {
  do {
    try body()
    return nil
  } catch let error as GraphError {
    return error
  } catch {
    Issue.record("expected a GraphError, got \(error)")
    return nil
  }
}

func set(_ value: Any?) -> Set<ManagedObject> { value as? Set<ManagedObject> ?? [] }
