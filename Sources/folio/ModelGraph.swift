import FolioModel

/// `folio model graph`'s output: a model as a Graphviz DOT digraph.
///
/// Each entity is a record node, its fields stacked top to bottom (the graph is laid out left
/// to right, which turns a record's fields vertical): its name, marked «abstract» when it is;
/// its declared attributes as `name : Type`, with `?` when optional and `{unique}`,
/// `{indexed}`, `{transient}` or `{derived}` after those that are; and, when it has any, its
/// compound uniqueness constraints and its indexes (`unique: a, b`, `index NAME: a, b desc`).
///
/// Each relationship is a line to its destination, and a relationship and its inverse share
/// one line. Each half of a line is labelled by the entity at its end: the relationship that
/// entity declares, how many objects it holds (`0..1`, `1`, `0..*`, `2..5`), and its delete
/// rule. An arrowhead shows how many objects of the entity it touches take part: a crow's foot
/// for many, a plain arrowhead for one. Head and tail labels would be simpler, but Graphviz
/// sets them down over nodes and other labels; so a line is two edges through an invisible
/// node in the middle, each with an ordinary edge label, which the layout keeps clear. A
/// relationship that is its own inverse is one loop. Inheritance is a dashed edge from the
/// subentity to its parent with a hollow arrowhead. A legend under the graph spells out the
/// notation the graph uses.
enum ModelGraph {
  static func dot(of model: ManagedObjectModel) -> String {
    var notation = Notation()
    var out = "digraph model {\n"
    var nodes = ""
    for entity in model.entities {
      nodes += "  \(quote(entity.name)) [label=\"\(record(of: entity, noting: &notation))\"];\n"
    }
    var edges = ""
    var drawn: Set<String> = []
    let entityNames = Set(model.entities.map(\.name))
    for entity in model.entities {
      for relationship in entity.relationships {
        let key = "\(entity.name).\(relationship.name)"
        guard !drawn.contains(key) else { continue }
        drawn.insert(key)
        notation.hasRelationships = true
        let label = "label=\"\(endLabel(of: relationship))\""
        let head = "arrowhead=\(relationship.isToMany ? "crow" : "normal")"
        let inverse = model.inverse(of: relationship)
        let owner = relationship.inverseEntityName ?? relationship.destinationEntityName
        if inverse?.name == relationship.name && owner == entity.name {
          // Its own inverse: one loop, the same at both ends.
          let tail = "arrowtail=\(relationship.isToMany ? "crow" : "normal")"
          edges += "  \(quote(entity.name)) -> \(quote(entity.name)) "
          edges += "[\(label), dir=both, \(head), \(tail)];\n"
          continue
        }
        var middle = key
        while entityNames.contains(middle) { middle += "'" }
        var near = [label]
        var far = [head]
        if let inverse {
          drawn.insert("\(owner).\(inverse.name)")
          near += ["dir=back", "arrowtail=\(inverse.isToMany ? "crow" : "normal")"]
          far.insert("label=\"\(endLabel(of: inverse))\"", at: 0)
        } else {
          near.append("dir=none")
        }
        edges += "  \(quote(middle)) [shape=none, label=\"\", width=0, height=0];\n"
        edges += "  \(quote(entity.name)) -> \(quote(middle)) [\(near.joined(separator: ", "))];\n"
        edges += "  \(quote(middle)) -> \(quote(relationship.destinationEntityName)) "
        edges += "[\(far.joined(separator: ", "))];\n"
      }
    }
    for entity in model.entities {
      guard let parent = entity.parentEntityName else { continue }
      notation.hasInheritance = true
      edges += "  \(quote(entity.name)) -> \(quote(parent)) [arrowhead=empty, style=dashed];\n"
    }
    out += "  graph [rankdir=LR, fontname=\"Helvetica\""
    let legend = notation.legend
    if !legend.isEmpty {
      let lines = legend.map { dotString($0) + "\\l" }.joined()
      out += ", fontsize=9, labelloc=b, labeljust=l, label=\"\(lines)\""
    }
    out += "];\n"
    out += "  node [shape=record, fontname=\"Helvetica\", fontsize=10];\n"
    out += "  edge [fontname=\"Helvetica\", fontsize=9];\n"
    return out + nodes + edges + "}\n"
  }

  /// The notation a graph uses, for its legend.
  private struct Notation {
    var hasRelationships = false
    var hasInheritance = false
    var hasOptional = false
    var markers: Set<String> = []
    var hasConstraintRows = false

    var legend: [String] {
      var lines: [String] = []
      if hasRelationships {
        lines.append(
          "Each half of a line: the relationship of the entity at its end, how many objects it "
            + "holds, and its delete rule")
        lines.append(
          "Arrowheads: a crow's foot where many objects take part, a plain one where one does")
      }
      if hasInheritance { lines.append("Dashed line with a hollow arrowhead: inherits from") }
      var attributes: [String] = []
      if hasOptional { attributes.append("? optional") }
      let meanings = [
        "{unique}": "unique among the entity's objects",
        "{indexed}": "indexed", "{transient}": "transient (never saved)",
        "{derived}": "derived (computed from other values)",
      ]
      for marker in ["{unique}", "{indexed}", "{transient}", "{derived}"]
      where markers.contains(marker) {
        attributes.append("\(marker) \(meanings[marker] ?? "")")
      }
      if !attributes.isEmpty { lines.append("Attributes: " + attributes.joined(separator: "; ")) }
      if hasConstraintRows {
        lines.append(
          "unique: properties unique together; index: a fetch index, its properties in order")
      }
      return lines
    }
  }

  /// A record label: the name, the attributes, then the constraints and indexes, if any.
  private static func record(of entity: EntityDescription, noting notation: inout Notation)
    -> String
  {
    let title = entity.isAbstract ? "«abstract» \(entity.name)" : entity.name
    let unique = Set(entity.uniquenessConstraints.filter { $0.count == 1 }.map { $0[0] })
    let rows = entity.attributes.map { attribute in
      var text = "\(attribute.name) : \(ModelDescription.typeName(of: attribute))"
      if attribute.isOptional {
        text += "?"
        notation.hasOptional = true
      }
      for marker in markers(of: attribute, isUnique: unique.contains(attribute.name)) {
        text += " \(marker)"
        notation.markers.insert(marker)
      }
      return escape(text) + "\\l"
    }
    var label = "\(escape(title))|\(rows.joined())"
    let constraints = constraintRows(of: entity)
    if !constraints.isEmpty {
      notation.hasConstraintRows = true
      label += "|" + constraints.map { escape($0) + "\\l" }.joined()
    }
    return label
  }

  /// The `{…}` markers of an attribute's row, in a fixed order.
  static func markers(of attribute: AttributeDescription, isUnique: Bool) -> [String] {
    var markers: [String] = []
    if isUnique { markers.append("{unique}") }
    if attribute.isIndexed { markers.append("{indexed}") }
    if attribute.isTransient { markers.append("{transient}") }
    if attribute.isDerived { markers.append("{derived}") }
    return markers
  }

  /// The entity's uniqueness constraints of more than one property (one-property ones are
  /// marked on their row), its fetch indexes and its compound indexes, one row each.
  static func constraintRows(of entity: EntityDescription) -> [String] {
    var rows: [String] = []
    let attributeNames = Set(entity.attributes.map(\.name))
    for constraint in entity.uniquenessConstraints
    where constraint.count != 1 || !attributeNames.contains(constraint[0]) {
      rows.append("unique: \(constraint.joined(separator: ", "))")
    }
    for index in entity.fetchIndexes {
      let parts = index.elements.map {
        ($0.propertyName ?? $0.expression ?? "?") + ($0.isAscending ? "" : " desc")
      }
      rows.append("index \(index.name): \(parts.joined(separator: ", "))")
    }
    for index in entity.compoundIndexes {
      rows.append("index: \(index.joined(separator: ", "))")
    }
    return rows
  }

  /// The label at a relationship's own end: `employees 0..*, ordered` over `on delete: Deny`.
  private static func endLabel(of relationship: RelationshipDescription) -> String {
    var text = "\(relationship.name) \(ModelDescription.cardinality(of: relationship))"
    if relationship.isOrdered { text += ", ordered" }
    if relationship.isTransient { text += ", transient" }
    return dotString(text) + "\\non delete: " + dotString(relationship.deleteRule.xcodeName)
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
