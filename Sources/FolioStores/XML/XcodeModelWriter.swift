import FolioModel
import Foundation

/// Writes a model as the `contents` file of an Xcode `.xcdatamodel`, as Xcode lays it out.
///
/// Only what shapes stored data is written: entities with their parent and abstractness,
/// attributes with type, optionality, transience and composite, relationships with
/// destination, inverse, to-many, ordered, counts and delete rule, and composites. Defaults,
/// constraints, indexes and user info are left out: the file is a starting point for a model,
/// as for one inferred from a store.
enum XcodeModelWriter {
  static func xml(for model: ManagedObjectModel) -> String {
    var lines = [
      #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
      #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" "#
        + #"lastSavedToolsVersion="22757" systemVersion="23C71" minimumToolsVersion="Automatic" "#
        + #"sourceLanguage="Swift" userDefinedModelVersionIdentifier="\#(escape(model.versionIdentifier ?? ""))">"#,
    ]
    for entity in model.entities {
      var start = #"    <entity name="\#(escape(entity.name))""#
      if let parent = entity.parentEntityName { start += #" parentEntity="\#(escape(parent))""# }
      if entity.isAbstract { start += #" isAbstract="YES""# }
      lines.append(start + #" syncable="YES">"#)
      for attribute in entity.attributes {
        lines.append("        " + element(for: attribute))
      }
      for relationship in entity.relationships {
        var text = #"        <relationship name="\#(escape(relationship.name))""#
        if relationship.isOptional { text += #" optional="YES""# }
        if relationship.isTransient { text += #" transient="YES""# }
        if relationship.isToMany {
          text += #" toMany="YES""#
          if relationship.isOrdered { text += #" ordered="YES""# }
          if relationship.minCount > 0 { text += #" minCount="\#(relationship.minCount)""# }
          if let maximum = relationship.maxCount { text += #" maxCount="\#(maximum)""# }
        } else {
          text += #" maxCount="1""#
        }
        text += #" deletionRule="\#(relationship.deleteRule.xcodeName)""#
        text += #" destinationEntity="\#(escape(relationship.destinationEntityName))""#
        if let inverse = relationship.inverseName {
          text += #" inverseName="\#(escape(inverse))""#
          text +=
            #" inverseEntity="\#(escape(relationship.inverseEntityName ?? relationship.destinationEntityName))""#
        }
        lines.append(text + "/>")
      }
      lines.append("    </entity>")
    }
    for composite in model.composites {
      lines.append(#"    <composite name="\#(escape(composite.name))">"#)
      for attribute in composite.attributes { lines.append("        " + element(for: attribute)) }
      lines.append("    </composite>")
    }
    lines.append("</model>")
    return lines.joined(separator: "\n") + "\n"
  }

  private static func element(for attribute: AttributeDescription) -> String {
    var text = #"<attribute name="\#(escape(attribute.name))""#
    if attribute.isOptional { text += #" optional="YES""# }
    if attribute.isTransient { text += #" transient="YES""# }
    text += #" attributeType="\#(attribute.attributeType.xcodeName)""#
    if let composite = attribute.compositeName { text += #" composite="\#(escape(composite))""# }
    return text + "/>"
  }

  private static func escape(_ text: String) -> String {
    var result = ""
    for character in text {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case "\"": result += "&quot;"
      default: result.append(character)
      }
    }
    return result
  }
}

extension XMLStore {
  /// The text of an Xcode model `contents` file describing `model`, which FolioModel (and
  /// Xcode) load back: the start of a real model for a store that came without one.
  ///
  /// ```swift
  /// let model = try XMLStore.inferModel(from: storeURL)
  /// try XMLStore.xcodeModelXML(for: model)
  ///   .write(to: bundle.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
  /// ```
  public static func xcodeModelXML(for model: ManagedObjectModel) -> String {
    XcodeModelWriter.xml(for: model)
  }
}
