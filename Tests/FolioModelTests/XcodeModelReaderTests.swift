import Foundation
import Testing

@testable import FolioModel

@Suite("Reading Xcode model files")
struct XcodeModelReaderTests {
  @Test("every attribute type Xcode writes is read")
  func attributeTypes() throws {
    let model = try readModel(
      """
      <entity name="All">
        <attribute name="i16" attributeType="Integer 16" defaultValueString="7"/>
        <attribute name="i32" attributeType="Integer 32" defaultValueString="-7"/>
        <attribute name="i64" attributeType="Integer 64" defaultValueString="9000000000"/>
        <attribute name="dec" attributeType="Decimal" defaultValueString="1.25"/>
        <attribute name="dbl" attributeType="Double" defaultValueString="2.5"/>
        <attribute name="flt" attributeType="Float" defaultValueString="0.5"/>
        <attribute name="str" attributeType="String" defaultValueString="hello"/>
        <attribute name="bool" attributeType="Boolean" defaultValueString="YES"/>
        <attribute name="date" attributeType="Date" defaultDateTimeInterval="631123200"/>
        <attribute name="bin" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
        <attribute name="uuid" attributeType="UUID" defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F"/>
        <attribute name="uri" attributeType="URI" defaultValueString="https://example.com"/>
        <attribute name="xf" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="NSArray"/>
        <attribute name="oid" optional="YES" attributeType="ObjectID"/>
        <attribute name="oid2" optional="YES" attributeType="Object ID"/>
        <attribute name="loc" optional="YES" attributeType="Composite" composite="Point"/>
        <attribute name="any" optional="YES" transient="YES"/>
      </entity>
      <composite name="Point">
        <attribute name="x" attributeType="Double" defaultValueString="0.0"/>
        <attribute name="y" optional="YES" attributeType="Double"/>
      </composite>
      """)
    let entity = try #require(model.entity(named: "All"))
    let types = entity.attributes.map(\.attributeType)
    #expect(
      types == [
        .integer16, .integer32, .integer64, .decimal, .double, .float, .string, .boolean, .date,
        .binaryData, .uuid, .uri, .transformable, .objectID, .objectID, .composite, .undefined,
      ])
    let defaults = Dictionary(
      uniqueKeysWithValues: entity.attributes.map { ($0.name, $0.defaultValue) })
    #expect(defaults["i16"] == .integer(7))
    #expect(defaults["i32"] == .integer(-7))
    #expect(defaults["i64"] == .integer(9_000_000_000))
    #expect(defaults["dec"] == .decimal(Decimal(string: "1.25")!))
    #expect(defaults["dbl"] == .double(2.5))
    #expect(defaults["flt"] == .float(0.5))
    #expect(defaults["str"] == .string("hello"))
    #expect(defaults["bool"] == .boolean(true))
    #expect(defaults["date"] == .date(Date(timeIntervalSinceReferenceDate: 631_123_200)))
    #expect(defaults["uuid"] == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
    #expect(defaults["uri"] == .uri(URL(string: "https://example.com")!))
    #expect(entity.attribute(named: "bin")?.allowsExternalBinaryDataStorage == true)
    let transformable = try #require(entity.attribute(named: "xf"))
    #expect(transformable.valueTransformerName == "NSSecureUnarchiveFromData")
    #expect(transformable.valueClassName == "NSArray")
    #expect(entity.attribute(named: "loc")?.compositeName == "Point")
    #expect(model.composite(named: "Point")?.attributes.map(\.name) == ["x", "y"])
    #expect(entity.attribute(named: "any")?.isTransient == true)
    #expect(entity.attribute(named: "i16")?.isOptional == false)
    #expect(entity.attribute(named: "bin")?.isOptional == true)
  }

  @Test("constraints: value bounds, date bounds, lengths and patterns")
  func constraints() throws {
    let model = try ManagedObjectModel(
      contentsOf: Paths.fixture(
        "ChristianKienle__Core-Data-Editor__iOS_Example.xcdatamodel.contents.xml"))
    let entity = try #require(model.entity(named: "ValidationTest"))
    #expect(entity.attribute(named: "integer16Attribute")?.minimumValue == .integer(10))
    #expect(entity.attribute(named: "integer16Attribute")?.maximumValue == .integer(1000))
    #expect(entity.attribute(named: "doubleAttribute")?.maximumValue == .double(1000))
    #expect(entity.attribute(named: "floatAttribute")?.maximumValue == .float(10000))
    #expect(entity.attribute(named: "decimalAttribute")?.maximumValue == .decimal(100))
    let date = try #require(entity.attribute(named: "dateAttribute"))
    #expect(date.minimumValue == .date(Date(timeIntervalSinceReferenceDate: 407_847_600)))
    #expect(date.maximumValue == .date(Date(timeIntervalSinceReferenceDate: 439_470_000)))
    let email = try #require(entity.attribute(named: "email"))
    #expect(email.minimumLength == 3)
    #expect(email.maximumLength == 1000)
    #expect(email.minimumValue == nil)
    #expect(email.regularExpression == #"\A[^@]+@([^@\.]+\.)+[^@\.]+\z"#)
    let pet = try #require(model.entity(named: "Pet"))
    #expect(pet.attribute(named: "name")?.minimumLength == 3)
    #expect(pet.attribute(named: "name")?.maximumLength == 10)
  }

  @Test("relationships: to-one, to-many, ordered, counts, inverses and every delete rule")
  func relationships() throws {
    let model = try readModel(
      """
      <entity name="House">
        <relationship name="people" optional="YES" toMany="YES" minCount="1" maxCount="8" deletionRule="Cascade" ordered="YES" destinationEntity="Person" inverseName="house" inverseEntity="Person"/>
        <relationship name="owner" maxCount="1" deletionRule="Deny" destinationEntity="Person" inverseName="owned" inverseEntity="Person"/>
        <relationship name="log" optional="YES" toMany="YES" deletionRule="No Action" destinationEntity="Person"/>
      </entity>
      <entity name="Person">
        <relationship name="house" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="House" inverseName="people" inverseEntity="House"/>
        <relationship name="owned" optional="YES" toMany="YES" maxCount="0" deletionRule="Nullify" destinationEntity="House" inverseName="owner" inverseEntity="House"/>
      </entity>
      """)
    let house = try #require(model.entity(named: "House"))
    let people = try #require(house.relationship(named: "people"))
    #expect(people.isToMany && people.isOrdered && people.isOptional)
    #expect(people.minCount == 1 && people.maxCount == 8)
    #expect(people.deleteRule == .cascade)
    let owner = try #require(house.relationship(named: "owner"))
    #expect(!owner.isToMany && !owner.isOptional && owner.maxCount == 1)
    #expect(owner.deleteRule == .deny)
    #expect(house.relationship(named: "log")?.deleteRule == .noAction)
    #expect(house.relationship(named: "log")?.inverseName == nil)
    let owned = try #require(model.entity(named: "Person")?.relationship(named: "owned"))
    #expect(owned.maxCount == nil)
    #expect(model.inverse(of: owned)?.name == "owner")
    #expect(
      model.diagnostics.map(\.description) == [
        "contents:6: House.log: warning: relationship \"log\" has no inverse, so changes to it do not reach \"Person\""
      ])
  }

  @Test("inheritance, fetched properties, indexes, constraints, configurations and user info")
  func modelParts() throws {
    let model = try ManagedObjectModel(
      contentsOf: Paths.fixture("SwiftGen__SwiftGen__Model_2.xcdatamodel.contents.xml"))
    let child = try #require(model.entity(named: "ChildEntity"))
    #expect(child.parentEntityName == "MainEntity")
    #expect(child.representedClassName == "SwiftGen.ChildEntity")
    #expect(child.property(named: "string") != nil)
    #expect(child.attribute(named: "derivedCount")?.derivationExpression == "oneToMany.@count")
    #expect(child.userInfo == ["key": "value"])
    #expect(model.entity(named: "AbstractEntity")?.isAbstract == true)
    #expect(model.entity(named: "AbstractEntity")?.subentityNames == ["NewEntity"])
    let main = try #require(model.entity(named: "MainEntity"))
    #expect(main.subentityNames == ["ChildEntity"])
    #expect(main.fetchedProperties.first?.predicateString == "true == true")
    #expect(main.fetchedProperties.first?.userInfo == ["key": "value"])
    #expect(main.attribute(named: "integerEnum")?.userInfo["RawType"] == "IntegerEnum")
    #expect(main.attribute(named: "transformableCustomArray")?.valueClassName == "CustomArray")
    let new = try #require(model.entity(named: "NewEntity"))
    #expect(new.uniquenessConstraints == [["identifier"]])
    #expect(new.fetchIndexes.map(\.name) == ["byIdentifierIndex"])
    #expect(new.fetchIndexes.first?.elements.first?.propertyName == "identifier")
    #expect(model.configurations.map(\.name) == ["Custom"])
    #expect(model.configurations.first?.entityNames == ["NewEntity"])
    #expect(
      model.fetchRequestTemplates.map(\.name) == [
        "DictionaryFetchRequest", "ObjectFetchRequest", "ObjectIDFetchRequest",
      ])
    #expect(model.fetchRequestTemplates[0].options["resultType"] == "2")
    #expect(
      model.fetchRequestTemplates[2].predicateString
        == "oneToOne.name == $NAME OR string == $NEEDLE")
  }

  @Test("version hash modifiers, renaming identifiers, compound indexes and flags are kept")
  func keptMetadata() throws {
    let model = try readModel(
      """
      <entity name="Car" representedClassName="Car" elementID="Auto" versionHashModifier="2" syncable="YES" codeGenerationType="class">
        <attribute name="plate" attributeType="String" indexed="YES" spotlightIndexingEnabled="YES" preserveAfterDeletion="YES" storedInTruthFile="YES" versionHashModifier="b" elementID="licence" usesScalarValueType="NO"/>
        <attribute name="year" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
        <compoundIndexes>
          <compoundIndex>
            <index value="plate"/>
            <index value="year"/>
          </compoundIndex>
        </compoundIndexes>
      </entity>
      """)
    let car = try #require(model.entity(named: "Car"))
    #expect(car.renamingIdentifier == "Auto")
    #expect(car.versionHashModifier == "2")
    #expect(car.compoundIndexes == [["plate", "year"]])
    let plate = try #require(car.attribute(named: "plate"))
    #expect(plate.isIndexed && plate.isIndexedBySpotlight)
    #expect(plate.preservesValueInHistoryOnDeletion && plate.isStoredInExternalRecord)
    #expect(plate.versionHashModifier == "b")
    #expect(plate.renamingIdentifier == "licence")
    #expect(plate.usesScalarValueType == false)
    #expect(car.attribute(named: "year")?.usesScalarValueType == true)
  }

  @Test("a model with no entities loads")
  func emptyModel() throws {
    let model = try readModel("")
    #expect(model.entities.isEmpty)
  }

  @Test("lenient default values load with a warning, and fail in strict mode")
  func lenientDefaults() throws {
    let body = """
      <entity name="Item">
        <attribute name="kind" attributeType="Integer 16" defaultValueString="0.0"/>
        <attribute name="muted" attributeType="Integer 32" defaultValueString="NO"/>
        <attribute name="id" optional="YES" attributeType="UUID" defaultValueString="empy"/>
      </entity>
      """
    let model = try readModel(body)
    let item = try #require(model.entity(named: "Item"))
    #expect(item.attribute(named: "kind")?.defaultValue == .integer(0))
    #expect(item.attribute(named: "muted")?.defaultValue == .integer(0))
    #expect(item.attribute(named: "id")?.defaultValue == nil)
    #expect(
      model.diagnostics.map(\.description) == [
        "contents:4: Item.kind: warning: defaultValueString \"0.0\" is read as 0, as Core Data does",
        "contents:5: Item.muted: warning: defaultValueString the Boolean \"NO\" is read as 0, as Core Data does",
        "contents:6: Item.id: warning: defaultValueString \"empy\" is not a UUID, so Core Data ignores it",
      ])
    let error = try #require(modelError { _ = try readModel(body, strict: true) })
    #expect(error.code == .invalidDefaultValue)
    #expect(
      error.description
        == "contents:4: Item.kind: defaultValueString \"0.0\" is read as 0, as Core Data does")
  }
}

/// A model file that must fail to load: its body and the exact error.
struct ReadFailureCase: CustomTestStringConvertible, Sendable {
  var id: String
  var body: String
  var code: ModelError.Code
  var message: String
  var testDescription: String { id }
}

@Suite("Xcode model file errors")
struct XcodeModelErrorTests {
  // Line 1 is the XML declaration and line 2 the <model> element, so the body starts on line 3.
  static let cases: [ReadFailureCase] = [
    ReadFailureCase(
      id: "unknown attribute type",
      body: """
        <entity name="Person">
          <attribute name="age" attributeType="Integer16"/>
        </entity>
        """,
      code: .unknownAttributeType,
      message:
        "contents:4: Person.age: unknown attribute type \"Integer16\" (did you mean \"Integer 16\"?)"
    ),
    ReadFailureCase(
      id: "inverse that does not point back",
      body: """
        <entity name="Person">
          <relationship name="pets" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Pet" inverseName="owner" inverseEntity="Pet"/>
          <relationship name="walks" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Pet" inverseName="walker" inverseEntity="Pet"/>
        </entity>
        <entity name="Pet">
          <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="walks" inverseEntity="Person"/>
          <relationship name="walker" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="walks" inverseEntity="Person"/>
        </entity>
        """,
      code: .inverseMismatch,
      message:
        "contents:4: Person.pets: inverse \"Pet.owner\" does not point back: it names \"Person.walks\", not \"pets\""
    ),
    ReadFailureCase(
      id: "destination entity that does not exist",
      body: """
        <entity name="Person">
          <attribute name="name" attributeType="String"/>
          <relationship name="pets" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Pett"/>
        </entity>
        <entity name="Pet"/>
        """,
      code: .unknownDestinationEntity,
      message:
        "contents:5: Person.pets: destination entity \"Pett\" is not in the model (did you mean \"Pet\"?)"
    ),
    ReadFailureCase(
      id: "default value that does not parse",
      body: """
        <entity name="Person">
          <attribute name="age" attributeType="Integer 16" defaultValueString="forty"/>
        </entity>
        """,
      code: .invalidDefaultValue,
      message:
        "contents:4: Person.age: default value \"forty\" does not parse as Integer 16: expected a whole number"
    ),
    ReadFailureCase(
      id: "default value out of range",
      body: """
        <entity name="Person">
          <attribute name="age" attributeType="Integer 16" defaultValueString="70000"/>
        </entity>
        """,
      code: .invalidDefaultValue,
      message:
        "contents:4: Person.age: default value \"70000\" does not parse as Integer 16: outside -32768...32767"
    ),
    ReadFailureCase(
      id: "date default that does not parse",
      body: """
        <entity name="Event">
          <attribute name="at" attributeType="Date" defaultDateTimeInterval="noon"/>
        </entity>
        """,
      code: .invalidDefaultValue,
      message:
        "contents:4: Event.at: default value \"noon\" does not parse as Date: expected seconds since 2001-01-01 (Xcode writes defaultDateTimeInterval)"
    ),
    ReadFailureCase(
      id: "cycle in inheritance",
      body: """
        <entity name="A" parentEntity="C"/>
        <entity name="B" parentEntity="A"/>
        <entity name="C" parentEntity="B"/>
        """,
      code: .inheritanceCycle,
      message: "contents:3: A: entity inheritance forms a cycle: A → C → B → A"),
    ReadFailureCase(
      id: "parent entity that does not exist",
      body: """
        <entity name="Book" parentEntity="Publication"/>
        """,
      code: .unknownParentEntity,
      message: "contents:3: Book: parent entity \"Publication\" is not in the model"),
    ReadFailureCase(
      id: "unknown delete rule",
      body: """
        <entity name="A">
          <relationship name="b" optional="YES" maxCount="1" deletionRule="Nullfy" destinationEntity="A"/>
        </entity>
        """,
      code: .unknownDeleteRule,
      message: "contents:4: A.b: unknown delete rule \"Nullfy\" (did you mean \"Nullify\"?)"),
    ReadFailureCase(
      id: "flag that is neither YES nor NO",
      body: """
        <entity name="A">
          <attribute name="x" optional="yes please" attributeType="String"/>
        </entity>
        """,
      code: .invalidValue,
      message: "contents:4: A.x: optional is \"yes please\", expected \"YES\" or \"NO\""),
    ReadFailureCase(
      id: "count that is not a number",
      body: """
        <entity name="A">
          <relationship name="b" optional="YES" toMany="YES" maxCount="many" deletionRule="Nullify" destinationEntity="A"/>
        </entity>
        """,
      code: .invalidValue,
      message: "contents:4: A.b: maxCount is \"many\", expected a whole number"),
    ReadFailureCase(
      id: "relationship with no destination",
      body: """
        <entity name="A">
          <relationship name="b" optional="YES" maxCount="1" deletionRule="Nullify"/>
        </entity>
        """,
      code: .missingValue, message: "contents:4: A.b: <relationship> has no destinationEntity"),
    ReadFailureCase(
      id: "entity with no name",
      body: """
        <entity representedClassName="Thing"/>
        """,
      code: .missingValue, message: "contents:3: <entity> has no name"),
    ReadFailureCase(
      id: "unknown element",
      body: """
        <entity name="A">
          <atribute name="x" attributeType="String"/>
        </entity>
        """,
      code: .unexpectedContent, message: "contents:4: unexpected element <atribute> in <entity>"),
    ReadFailureCase(
      id: "length bound that is not a length",
      body: """
        <entity name="A">
          <attribute name="s" attributeType="String" minValueString="-1"/>
        </entity>
        """,
      code: .invalidConstraint,
      message:
        "contents:4: A.s: minValueString \"-1\" is not a length (a whole number of at least 0)"),
    ReadFailureCase(
      id: "bound on a Boolean",
      body: """
        <entity name="A">
          <attribute name="b" attributeType="Boolean" minValueString="0"/>
        </entity>
        """,
      code: .invalidConstraint,
      message:
        "contents:4: A.b: minValueString and maxValueString apply to numbers, dates, strings and binary data, not Boolean"
    ),
    ReadFailureCase(
      id: "numeric bound that does not parse",
      body: """
        <entity name="A">
          <attribute name="n" attributeType="Double" maxValueString="lots"/>
        </entity>
        """,
      code: .invalidConstraint,
      message:
        "contents:4: A.n: maxValueString \"lots\" does not parse as Double: expected a decimal number"
    ),
    ReadFailureCase(
      id: "duplicate property",
      body: """
        <entity name="A">
          <attribute name="x" attributeType="String"/>
          <attribute name="x" attributeType="Integer 64"/>
        </entity>
        """,
      code: .duplicateProperty, message: "contents:5: A.x: property \"x\" is defined twice"),
    ReadFailureCase(
      id: "uniqueness constraint naming a missing property",
      body: """
        <entity name="A">
          <attribute name="x" attributeType="String"/>
          <uniquenessConstraints>
            <uniquenessConstraint>
              <constraint value="y"/>
            </uniquenessConstraint>
          </uniquenessConstraints>
        </entity>
        """,
      code: .unknownReference,
      message:
        "contents:6: A: a uniqueness constraint names \"y\", which is not a property of \"A\""),
    ReadFailureCase(
      id: "composite attribute naming a missing composite",
      body: """
        <entity name="A">
          <attribute name="where" optional="YES" attributeType="Composite" composite="Place"/>
        </entity>
        """,
      code: .unknownComposite,
      message: "contents:4: A.where: composite \"Place\" is not defined in the model"),
    ReadFailureCase(
      id: "fetch request on a missing entity",
      body: """
        <entity name="A"/>
        <fetchRequest name="All" entity="B"/>
        """,
      code: .unknownReference,
      message: "contents:4: fetch request \"All\" names \"B\", which is not in the model"),
    ReadFailureCase(
      id: "malformed XML",
      body: """
        <entity name="A">
          <attribute name="x" attributeType="String">
        </entity>
        """,
      code: .malformedXML,
      message:
        "contents:5:10: malformed XML: Opening and ending tag mismatch: attribute line 4 and entity"
    ),
  ]

  @Test(
    "malformed and inconsistent files name the file, line, entity and property", arguments: cases)
  func refuses(_ failure: ReadFailureCase) throws {
    let error = try #require(modelError { _ = try readModel(failure.body) })
    #expect(error.code == failure.code)
    #expect(error.description == failure.message)
  }

  @Test("a file that is not a model is refused")
  func notAModel() throws {
    let error = try #require(
      modelError {
        _ = try ManagedObjectModel(xcodeModelData: Data("<plist/>".utf8), path: "x.xml")
      })
    #expect(error.code == .unexpectedContent)
    #expect(error.description == "x.xml:1: expected a <model> document, found <plist>")
  }

  @Test("an empty file is malformed XML, not a crash")
  func emptyFile() throws {
    let error = try #require(
      modelError { _ = try ManagedObjectModel(xcodeModelData: Data(), path: "empty") })
    #expect(error.code == .malformedXML)
    #expect(error.location?.file == "empty")
  }

  @Test("binary junk is malformed XML, not a crash")
  func binaryJunk() throws {
    let junk = Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 37) })
    let error = try #require(
      modelError { _ = try ManagedObjectModel(xcodeModelData: junk, path: "junk") })
    #expect(error.code == .malformedXML)
  }

  @Test("an entity expansion bomb is refused, not expanded")
  func entityBomb() throws {
    var entities = #"<!ENTITY a0 "lollollollollollollollollollol">"#
    for level in 1..<10 {
      entities += "<!ENTITY a\(level) \"\(String(repeating: "&a\(level - 1);", count: 10))\">"
    }
    let xml = """
      <?xml version="1.0"?>
      <!DOCTYPE model [\(entities)]>
      <model><entity name="A"><attribute name="x" attributeType="String" defaultValueString="&a9;"/></entity></model>
      """
    let error = try #require(
      modelError { _ = try ManagedObjectModel(xcodeModelData: Data(xml.utf8), path: "bomb") })
    #expect(error.code == .malformedXML)
    #expect(error.location?.line == 3)
  }

  @Test("an external entity is refused, never read")
  func noExternalEntities() throws {
    let xml = """
      <?xml version="1.0"?>
      <!DOCTYPE model [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
      <model><entity name="A"><attribute name="x" attributeType="String" defaultValueString="&secret;"/></entity></model>
      """
    let error = try #require(
      modelError { _ = try ManagedObjectModel(xcodeModelData: Data(xml.utf8), path: "evil") })
    #expect(error.code == .malformedXML)
    #expect(
      error.description == "evil:3:96: malformed XML: Attribute references external entity 'secret'"
    )
  }
}

@Suite("Composite attributes")
struct CompositeTests {
  @Test("a composite attribute refers to the model's <composite> definition")
  func composite() throws {
    let model = try ManagedObjectModel(
      contentsOf: Paths.fixture(
        "fatbobman__CoreDataEvolution__CoreDataEvolutionIntegrationModel.xcdatamodel.contents.xml"))
    let item = try #require(model.entity(named: "CDEItem"))
    let location = try #require(item.attribute(named: "location"))
    #expect(location.attributeType == .composite)
    #expect(location.compositeName == "CDEItemLocation")
    let composite = try #require(model.composite(named: "CDEItemLocation"))
    #expect(composite.attributes.map(\.name) == ["x", "y"])
    #expect(composite.attributes[0].defaultValue == .double(0))
    #expect(composite.attributes[1].isOptional)
    #expect(
      item.attribute(named: "keywords_payload")?.valueTransformerName == "NSSecureUnarchiveFromData"
    )
  }

  @Test("a change inside a composite changes the version hash of attributes that use it")
  func compositeHash() throws {
    func model(memberType: String) throws -> ManagedObjectModel {
      try readModel(
        """
        <entity name="A"><attribute name="p" optional="YES" attributeType="Composite" composite="P"/></entity>
        <composite name="P"><attribute name="x" attributeType="\(memberType)"/></composite>
        """)
    }
    let doubles = try model(memberType: "Double")
    let floats = try model(memberType: "Float")
    #expect(doubles.versionHash != floats.versionHash)
  }

  @Test("a composite member's bad default names the composite and member")
  func compositeMemberError() throws {
    let error = try #require(
      modelError {
        _ = try readModel(
          """
          <composite name="P">
            <attribute name="x" attributeType="Double" defaultValueString="zero"/>
          </composite>
          """)
      })
    #expect(
      error.description
        == "contents:4: P.x: default value \"zero\" does not parse as Double: expected a decimal number"
    )
  }
}
