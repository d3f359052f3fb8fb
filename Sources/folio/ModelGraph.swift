import FolioModel

/// `folio model graph`'s output: a model as a Graphviz DOT digraph.
///
/// Each entity is a record node: its name (marked «abstract» when it is) over its declared
/// attributes; with the graph laid out left to right, a record's fields stack top to bottom. Each relationship is an edge to its destination, labelled with its name, its
/// cardinality and its delete rule; a relationship and its inverse share one two-headed edge.
/// Inheritance is an edge from the subentity to its parent with a hollow arrowhead.
enum ModelGraph {
  static func dot(of model: ManagedObjectModel) -> String {
    var out = "digraph model {\n"
    out += "  graph [rankdir=LR, fontname=\"Helvetica\"];\n"
    out += "  node [shape=record, fontname=\"Helvetica\", fontsize=10];\n"
    out += "  edge [fontname=\"Helvetica\", fontsize=9];\n"
    for entity in model.entities {
      let title = entity.isAbstract ? "«abstract» \(entity.name)" : entity.name
      let rows = entity.attributes.map {
        escape("\($0.name) : \(ModelDescription.typeName(of: $0))\($0.isOptional ? "?" : "")")
          + "\\l"
      }
      out += "  \(quote(entity.name)) [label=\"\(escape(title))|\(rows.joined())\"];\n"
    }
    var drawn: Set<String> = []
    for entity in model.entities {
      for relationship in entity.relationships {
        let key = "\(entity.name).\(relationship.name)"
        guard !drawn.contains(key) else { continue }
        drawn.insert(key)
        var label = describe(relationship)
        var attributes = [
          "arrowhead=\(relationship.isToMany ? "crow" : "normal")",
          "headlabel=\"\(ModelDescription.cardinality(of: relationship))\"",
        ]
        if let inverse = model.inverse(of: relationship) {
          let owner = relationship.inverseEntityName ?? relationship.destinationEntityName
          drawn.insert("\(owner).\(inverse.name)")
          if inverse.name != relationship.name || owner != entity.name {
            label += "\\n" + describe(inverse)
            attributes += [
              "dir=both", "arrowtail=\(inverse.isToMany ? "crow" : "normal")",
              "taillabel=\"\(ModelDescription.cardinality(of: inverse))\"",
            ]
          }
        }
        attributes.insert("label=\"\(label)\"", at: 0)
        out += "  \(quote(entity.name)) -> \(quote(relationship.destinationEntityName)) "
        out += "[\(attributes.joined(separator: ", "))];\n"
      }
    }
    for entity in model.entities {
      guard let parent = entity.parentEntityName else { continue }
      out += "  \(quote(entity.name)) -> \(quote(parent)) [arrowhead=empty, style=dashed];\n"
    }
    out += "}\n"
    return out
  }

  private static func describe(_ relationship: RelationshipDescription) -> String {
    var text = relationship.name
    if relationship.isOrdered { text += " (ordered)" }
    text += " [\(relationship.deleteRule.xcodeName)]"
    return dotString(text)
  }

  /// Escapes text for a record label, where braces, bars and angle brackets are structure.
  private static func escape(_ text: String) -> String {
    var out = ""
    for character in text {
      if "{}|<>\"\\".contains(character) { out.append("\\") }
      out.append(character)
    }
    return out
  }

  /// Escapes text for a quoted DOT string.
  private static func dotString(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
  }

  private static func quote(_ name: String) -> String { "\"\(dotString(name))\"" }
}
