import Foundation
import Testing

@testable import FolioModel

@Suite("Edge cases of model files")
struct ModelFileEdgeCaseTests {
  @Test("a composite that contains itself is refused, not recursed into")
  func compositeCycle() throws {
    let error = try #require(
      modelError {
        _ = try readModel(
          """
          <entity name="A"><attribute name="p" optional="YES" attributeType="Composite" composite="P"/></entity>
          <composite name="P"><attribute name="q" optional="YES" attributeType="Composite" composite="Q"/></composite>
          <composite name="Q"><attribute name="p" optional="YES" attributeType="Composite" composite="P"/></composite>
          """)
      })
    #expect(error.code == .compositeCycle)
    #expect(error.description == "contents:4: P: composites contain each other: P → Q → P")
  }

  @Test("two composite members with one name are refused")
  func duplicateCompositeMember() throws {
    let error = try #require(
      modelError {
        _ = try readModel(
          """
          <composite name="P">
            <attribute name="x" attributeType="Double"/>
            <attribute name="x" attributeType="Float"/>
          </composite>
          """)
      })
    #expect(error.code == .duplicateProperty)
    #expect(error.description == "contents:5: P.x: property \"x\" is defined twice")
  }

  @Test("an empty entity or property name is refused")
  func emptyNames() throws {
    let entity = try #require(modelError { _ = try readModel(#"<entity name=""/>"#) })
    #expect(entity.description == "contents:3: an entity has an empty name")
    let property = try #require(
      modelError {
        _ = try readModel(#"<entity name="A"><attribute name="" attributeType="String"/></entity>"#)
      })
    #expect(property.description == "contents:3: A: a property has an empty name")
  }

  @Test("line numbers past 65535 are exact")
  func bigLines() throws {
    let padding = String(repeating: "\n", count: 70_000)
    let error = try #require(
      modelError {
        _ = try readModel(
          padding + #"<entity name="A"><attribute name="x" attributeType="Strng"/></entity>"#)
      })
    #expect(error.location?.line == 70_003)
  }

  @Test("a leniently read bound is a constraint error in strict mode")
  func strictBound() throws {
    let body =
      #"<entity name="A"><attribute name="n" attributeType="Integer 16" minValueString="1.0"/></entity>"#
    let model = try readModel(body)
    #expect(model.entity(named: "A")?.attribute(named: "n")?.minimumValue == .integer(1))
    #expect(model.diagnostics.first?.kind == .coercedBound)
    let error = try #require(modelError { _ = try readModel(body, strict: true) })
    #expect(error.code == .invalidConstraint)
    #expect(
      error.description == "contents:3: A.n: minValueString \"1.0\" is read as 1, as Core Data does"
    )
  }

  @Test("an .xcdatamodeld loads its current version even when an old one is broken")
  func brokenOldVersion() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let bundle = try writeBundle(
      in: folder,
      versions: [
        "Library": #"<entity name="Book" parentEntity="Gone"/>"#,
        "Library 2": #"<entity name="Book"/>"#,
      ],
      current: "Library 2.xcdatamodel")
    let model = try ManagedObjectModel(contentsOf: bundle)
    #expect(model.entity(named: "Book") != nil)
    let error = try #require(modelError { _ = try ModelBundle(contentsOf: bundle) })
    #expect(error.code == .unknownParentEntity)
  }

  @Test("a .xccurrentversion with no dictionary is refused")
  func plistWithoutDictionary() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let bundle = try writeBundle(in: folder, versions: ["Library": ""], current: nil)
    try Data("<plist version=\"1.0\"><array/></plist>".utf8)
      .write(to: bundle.appendingPathComponent(".xccurrentversion"))
    let error = try #require(modelError { _ = try ModelBundle(contentsOf: bundle) })
    #expect(error.code == .unexpectedContent)
    #expect(error.message == "the property list holds no <dict>")
  }
}
