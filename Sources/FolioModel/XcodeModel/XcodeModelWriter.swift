import FolioSupport
import Foundation

// Writing a model as the `contents` file of an Xcode `.xcdatamodel`.
//
// The writer is the reader's inverse: every element and XML attribute that `XcodeModelReader`
// reads (Formats/xcdatamodel.md §6) is written from the field it fills, so reading the text
// gives a model equal to the one written, field by field. Three rules make that hold:
//
// * A field at the value the reader gives an absent XML attribute is left out, except where
//   Xcode always writes it (`deletionRule`, a to-one's `maxCount="1"`); a field the reader keeps
//   as "unset" (`usesScalarValueType`, `inverseEntity`) is written only when set.
// * Values are written in the spelling the reader parses back to the same value: numbers in
//   their shortest exact form, dates as seconds since 2001 in `defaultDateTimeInterval` and
//   `min/maxDateTimeInterval`, lengths as whole numbers (`AttributeValue.modelText`).
// * Text is escaped for an XML attribute value: `&`, `<`, `>` and `"` as entities, and tab,
//   line feed and carriage return as character references, since a parser replaces them with
//   spaces when they appear literally in an attribute value. XML 1.0 has no way to write the
//   other control characters (U+0001–U+001F), nor U+FFFE and U+FFFF; a model read from a file
//   cannot contain them, and for one built in code they are written as U+FFFD.
//
// The layout is Xcode's: the XML declaration, a `<model>` root with Xcode's document
// attributes, four spaces of indentation per level, and user-info entries sorted by key so
// that the same model always gives the same text.

extension ManagedObjectModel {
  /// The text of an Xcode model `contents` file describing this model, which
  /// ``init(xcodeModelData:path:options:)`` (and Xcode) read back as an equal model.
  ///
  /// Everything Folio reads from a model file is written: entities with their parent,
  /// abstractness, class name, renaming identifier, version hash modifier and user info;
  /// attributes with their type, flags, default, bounds, regular expression, derivation,
  /// transformer, class and composite; relationships with every setting; fetched properties;
  /// uniqueness constraints, fetch indexes and compound indexes; composites, configurations and
  /// fetch request templates. The same model always gives the same text.
  ///
  /// ```swift
  /// let model = try ManagedObjectModel(contentsOf: bundleURL)
  /// try model.xcodeModelXML()
  ///   .write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
  /// ```
  ///
  /// A model built in code can hold a few things a file cannot say, which read back
  /// differently: control characters other than tab, line feed and carriage return (written as
  /// U+FFFD), a to-one relationship without a maximum count (read back as 1), and a to-many
  /// one whose maximum is 0 (read back as unbounded).
  ///
  /// - Complexity: O(*n*) in the size of the model.
  public func xcodeModelXML() -> String {
    var writer = XcodeModelWriter()
    writer.write(self)
    return writer.text
  }
}

/// Builds the text of a `contents` file, one line at a time.
struct XcodeModelWriter {
  private(set) var text = ""

  mutating func write(_ model: ManagedObjectModel) {
    line(0, #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#)
    var root = Tag("model")
    root["type"] = "com.apple.IDECoreDataModeler.DataModel"
    root["documentVersion"] = "1.0"
    root["lastSavedToolsVersion"] = "22757"
    root["systemVersion"] = "23C71"
    root["minimumToolsVersion"] = "Automatic"
    root["sourceLanguage"] = "Swift"
    root["userDefinedModelVersionIdentifier"] = model.versionIdentifier ?? ""
    line(0, root.open)
    for entity in model.entities { write(entity) }
    for composite in model.composites {
      var tag = Tag("composite")
      tag["name"] = composite.name
      element(1, tag) {
        for attribute in composite.attributes { $0.write(attribute, depth: 2) }
      }
    }
    for configuration in model.configurations {
      var tag = Tag("configuration")
      tag["name"] = configuration.name
      element(1, tag) {
        for name in configuration.entityNames {
          var member = Tag("memberEntity")
          member["name"] = name
          $0.line(2, member.empty)
        }
      }
    }
    for template in model.fetchRequestTemplates {
      var tag = Tag("fetchRequest")
      tag["name"] = template.name
      tag["entity"] = template.entityName
      tag["predicateString"] = template.predicateString
      // The options the reader keeps, in its order; it ignores any other key.
      for key in Self.templateOptionKeys { tag[key] = template.options[key] }
      line(1, tag.empty)
    }
    line(0, "</model>")
  }

  /// The fetch request settings the reader records (Formats/xcdatamodel.md §6.12).
  static let templateOptionKeys = [
    "resultType", "includeSubentities", "includePropertyValues", "includesPendingChanges",
    "returnObjectsAsFaults", "returnDistinctResults", "fetchLimit", "fetchBatchSize",
  ]

  // MARK: Entities

  private mutating func write(_ entity: EntityDescription) {
    var tag = Tag("entity")
    tag["name"] = entity.name
    tag["representedClassName"] = entity.representedClassName
    tag["parentEntity"] = entity.parentEntityName
    tag.flag("isAbstract", entity.isAbstract)
    tag["elementID"] = entity.renamingIdentifier
    tag["versionHashModifier"] = entity.versionHashModifier
    tag["codeGenerationType"] = entity.codeGenerationType
    element(1, tag) {
      for attribute in entity.attributes { $0.write(attribute, depth: 2) }
      for relationship in entity.relationships { $0.write(relationship) }
      for property in entity.fetchedProperties { $0.write(property) }
      $0.write(entity.userInfo, depth: 2)
      $0.writeLists(
        entity.uniquenessConstraints, names: ("uniquenessConstraints", "uniquenessConstraint"),
        member: "constraint")
      for index in entity.fetchIndexes { $0.write(index) }
      $0.writeLists(
        entity.compoundIndexes, names: ("compoundIndexes", "compoundIndex"), member: "index")
    }
  }

  private mutating func write(_ attribute: AttributeDescription, depth: Int) {
    let type = attribute.attributeType
    var tag = Tag("attribute")
    tag["name"] = attribute.name
    tag.flag("optional", attribute.isOptional)
    tag.flag("transient", attribute.isTransient)
    tag.flag("indexed", attribute.isIndexed)
    // Xcode spells an untyped attribute by leaving `attributeType` out.
    tag["attributeType"] = type == .undefined ? nil : type.xcodeName
    if type == .date {
      tag["minDateTimeInterval"] = attribute.minimumValue?.modelText
      tag["maxDateTimeInterval"] = attribute.maximumValue?.modelText
      tag["defaultDateTimeInterval"] = attribute.defaultValue?.modelText
    } else {
      if type.isNumeric {
        tag["minValueString"] = attribute.minimumValue?.modelText
        tag["maxValueString"] = attribute.maximumValue?.modelText
      } else {
        tag["minValueString"] = attribute.minimumLength.map(String.init)
        tag["maxValueString"] = attribute.maximumLength.map(String.init)
      }
      tag["defaultValueString"] = attribute.defaultValue?.modelText
    }
    tag["regularExpressionString"] = attribute.regularExpression
    if let expression = attribute.derivationExpression {
      tag.flag("derived", true)
      tag["derivationExpression"] = expression
    }
    tag["valueTransformerName"] = attribute.valueTransformerName
    tag["customClassName"] = attribute.valueClassName
    tag["composite"] = attribute.compositeName
    if let scalar = attribute.usesScalarValueType {
      tag["usesScalarValueType"] = scalar ? "YES" : "NO"
    }
    tag.flag("allowsExternalBinaryDataStorage", attribute.allowsExternalBinaryDataStorage)
    tag.flag("preserveAfterDeletion", attribute.preservesValueInHistoryOnDeletion)
    tag.flag("spotlightIndexingEnabled", attribute.isIndexedBySpotlight)
    tag.flag("storedInTruthFile", attribute.isStoredInExternalRecord)
    tag["elementID"] = attribute.renamingIdentifier
    tag["versionHashModifier"] = attribute.versionHashModifier
    element(depth, tag) { $0.write(attribute.userInfo, depth: depth + 1) }
  }

  private mutating func write(_ relationship: RelationshipDescription) {
    var tag = Tag("relationship")
    tag["name"] = relationship.name
    tag.flag("optional", relationship.isOptional)
    tag.flag("transient", relationship.isTransient)
    tag.flag("indexed", relationship.isIndexed)
    tag.flag("toMany", relationship.isToMany)
    tag.flag("ordered", relationship.isOrdered)
    if relationship.minCount != 0 { tag["minCount"] = String(relationship.minCount) }
    // Absent, the reader gives a to-one 1 and a to-many no limit.
    if let maximum = relationship.maxCount, relationship.isToMany ? maximum != 0 : true {
      tag["maxCount"] = String(maximum)
    }
    tag["deletionRule"] = relationship.deleteRule.xcodeName
    tag["destinationEntity"] = relationship.destinationEntityName
    tag["inverseName"] = relationship.inverseName
    tag["inverseEntity"] = relationship.inverseEntityName
    tag["elementID"] = relationship.renamingIdentifier
    tag["versionHashModifier"] = relationship.versionHashModifier
    element(2, tag) { $0.write(relationship.userInfo, depth: 3) }
  }

  private mutating func write(_ property: FetchedPropertyDescription) {
    var tag = Tag("fetchedProperty")
    tag["name"] = property.name
    tag.flag("optional", property.isOptional)
    var request = Tag("fetchRequest")
    request["name"] = "fetchedPropertyFetchRequest"
    request["entity"] = property.entityName
    request["predicateString"] = property.predicateString
    element(2, tag) {
      $0.line(3, request.empty)
      $0.write(property.userInfo, depth: 3)
    }
  }

  private mutating func write(_ index: FetchIndexDescription) {
    var tag = Tag("fetchIndex")
    tag["name"] = index.name
    element(2, tag) {
      for part in index.elements {
        var element = Tag("fetchIndexElement")
        if let property = part.propertyName {
          element["property"] = property
        } else {
          element["expression"] = part.expression ?? ""
          element["expressionType"] = "Object"
        }
        element["type"] = part.kind
        element["order"] = part.isAscending ? "ascending" : "descending"
        $0.line(3, element.empty)
      }
    }
  }

  /// Uniqueness constraints or compound indexes: lists of property names, two levels deep.
  private mutating func writeLists(
    _ lists: [[String]], names: (outer: String, inner: String), member: String
  ) {
    guard !lists.isEmpty else { return }
    element(2, Tag(names.outer)) { writer in
      for list in lists {
        writer.element(3, Tag(names.inner)) {
          for name in list {
            var tag = Tag(member)
            tag["value"] = name
            $0.line(4, tag.empty)
          }
        }
      }
    }
  }

  private mutating func write(_ userInfo: [String: String], depth: Int) {
    guard !userInfo.isEmpty else { return }
    element(depth, Tag("userInfo")) {
      for (key, value) in userInfo.sorted(by: { $0.key < $1.key }) {
        var entry = Tag("entry")
        entry["key"] = key
        entry["value"] = value
        $0.line(depth + 1, entry.empty)
      }
    }
  }

  // MARK: Text

  private mutating func line(_ depth: Int, _ content: String) {
    text += String(repeating: "    ", count: depth) + content + "\n"
  }

  /// Writes `tag` with the children `body` writes, or as an empty element when it writes none.
  private mutating func element(_ depth: Int, _ tag: Tag, _ body: (inout Self) -> Void) {
    var inner = Self()
    body(&inner)
    if inner.text.isEmpty {
      line(depth, tag.empty)
    } else {
      line(depth, tag.open)
      text += inner.text
      line(depth, "</\(tag.name)>")
    }
  }

  /// A start tag being assembled: its name and XML attributes in the order they are set.
  private struct Tag {
    let name: String
    private var attributes = ""

    init(_ name: String) { self.name = name }

    /// Adds the XML attribute `key` when `value` is not `nil`.
    subscript(key: String) -> String? {
      get { nil }
      set {
        guard let newValue else { return }
        attributes += " \(key)=\"\(Quoting.xml(newValue))\""
      }
    }

    /// Adds the flag `key` as `YES` when it is set; the reader takes an absent flag as `NO`.
    mutating func flag(_ key: String, _ isSet: Bool) {
      if isSet { self[key] = "YES" }
    }

    var open: String { "<\(name)\(attributes)>" }
    var empty: String { "<\(name)\(attributes)/>" }
  }
}
