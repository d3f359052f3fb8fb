import Testing

@testable import FolioModel

/// What every error about input prints, and how its code reads.
@Suite("Diagnostic errors")
struct DiagnosticErrorTests {
  @Test("an error prints `location: message`, or the message alone")
  func description() {
    let located = ModelError(.missingValue, "<entity> has no name", at: InputLocation(line: 3))
    #expect(located.description == "<entity> has no name")
    let placed = ModelError(
      .missingValue, "<entity> has no name", at: InputLocation(file: "contents", line: 3))
    #expect(placed.description == "contents:3: <entity> has no name")
    #expect(ModelError(.missingValue, "<entity> has no name").description == "<entity> has no name")
    #expect(placed.locatedMessage == placed.description)
    let column = ModelError(.invalidValue, "expected a value", at: InputLocation(column: 7))
    #expect(column.description == "column 7: expected a value")
  }

  @Test("each module's error is its own type: a catch for one lets the other through")
  func distinctTypes() {
    let error: any Error = CodedError<OtherCode>(.init(), "other")
    #expect(!(error is ModelError))
    #expect(error is CodedError<OtherCode>)
    #expect(ModelError.Code.self == ModelErrorCode.self)
  }

  private struct OtherCode: Hashable, Sendable, CustomStringConvertible {
    var description: String { "other" }
  }

  @Test("a code prints its member's name and matches in a switch")
  func codes() {
    let code = ModelError.Code.unknownInverse
    #expect(code.description == "unknownInverse")
    #expect(code == .unknownInverse)
    #expect(code != .inverseMismatch)
    let matched: Bool
    switch code {
    case .inverseMismatch: matched = false
    case .unknownInverse: matched = true
    default: matched = false
    }
    #expect(matched)
  }
}

/// What attributes and relationships share, as Core Data's `NSPropertyDescription` holds it.
@Suite("Property traits")
struct PropertyTraitsTests {
  @Test("an attribute and a relationship read and write their shared traits as their own")
  func sharedTraits() {
    var attribute = AttributeDescription("name", .string)
    var relationship = RelationshipDescription("owner", to: "Person")
    attribute.isTransient = true
    attribute.renamingIdentifier = "title"
    relationship.userInfo["note"] = "kept"
    relationship.isIndexed = true
    #expect(attribute.traits.isTransient && attribute.traits.renamingIdentifier == "title")
    #expect(relationship.traits.userInfo == ["note": "kept"] && relationship.traits.isIndexed)
    func transient(_ properties: [any PropertyDescribing]) -> [String] {
      properties.filter(\.traits.isTransient).map(\.name)
    }
    #expect(transient([attribute, relationship]) == ["name"])
  }

  @Test("where a property was declared is not part of its equality")
  func sourceLocationIgnored() {
    var declared = AttributeDescription("name", .string)
    declared.sourceLocation = InputLocation(file: "contents", line: 3)
    #expect(declared == AttributeDescription("name", .string))
    #expect(declared.sourceLocation?.line == 3)
    declared.versionHashModifier = "2"
    #expect(declared != AttributeDescription("name", .string))
  }
}
