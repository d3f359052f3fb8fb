import FolioModel

/// `folio model graph --format mermaid`: a model as a Mermaid entity-relationship diagram.
///
/// Mermaid offers two diagrams that fit a model, `erDiagram` and `classDiagram`. This is an
/// `erDiagram` because it draws what a reader of a data model looks for first: each end of a
/// relationship with crow's-foot cardinality (zero or one, exactly one, zero or more, one or
/// more), and uniqueness as a `UK` key. A `classDiagram` has inheritance arrows, but writes
/// cardinality only as text and has no keys. Inheritance is drawn the way entity-relationship
/// modelling draws a subtype: a solid ("identifying") line labelled `is a`, from the subentity
/// (zero or one per parent object) to its parent (exactly one), since a subentity's object is
/// its parent's object. Relationships are dashed ("non-identifying") lines, since the objects
/// at their ends have identities of their own; each is labelled by the relationship of the
/// entity on the left, then its inverse, with the exact count where crow's feet can only
/// approximate it (`members (2..5) / group`).
///
/// Entity names are always quoted, which also keeps names like `end` or `u` from reading as
/// keywords. Attribute types and names must be single words of letters, digits, `_` and `-`:
/// other characters become `_`, a leading digit or `-` gets a `_` before it, and a name Mermaid
/// would read as a key (`pk`, `fk`, `uk`) gets a `_` after it; the comment then gives the real
/// name. Attributes' comments say which are optional, indexed, in a fetch index, transient or
/// derived; abstract entities are labelled «abstract».
extension ModelGraph {
  static func mermaid(of model: ManagedObjectModel) -> String {
    let names = mermaidNames(of: model)
    func name(_ entity: String) -> String { names[entity] ?? quoted(entity) }
    var out = "erDiagram\n"
    for entity in model.entities {
      out += "  \(name(entity.name))"
      if entity.isAbstract { out += "[\(quoted("«abstract» \(entity.name)"))]" }
      let rows = entity.attributes.map { "    \(mermaidRow(of: $0, in: entity))\n" }
      out += rows.isEmpty ? "\n" : " {\n\(rows.joined())  }\n"
    }
    var drawn: Set<String> = []
    for entity in model.entities {
      for relationship in entity.relationships {
        let key = "\(entity.name).\(relationship.name)"
        guard !drawn.contains(key) else { continue }
        drawn.insert(key)
        let inverse = model.inverse(of: relationship)
        var label = mermaidLabel(of: relationship, hasInverse: inverse != nil)
        // Without an inverse, any number of objects may point to the same destination.
        var left = "}o"
        if let inverse {
          let owner = relationship.inverseEntityName ?? relationship.destinationEntityName
          drawn.insert("\(owner).\(inverse.name)")
          left = crowsFoot(of: inverse, onLeft: true)
          if inverse.name != relationship.name || owner != entity.name {
            label += " / " + mermaidLabel(of: inverse, hasInverse: true)
          }
        }
        let right = crowsFoot(of: relationship, onLeft: false)
        out += "  \(name(entity.name)) \(left)..\(right) "
        out += "\(name(relationship.destinationEntityName)) : \(quoted(label))\n"
      }
    }
    for entity in model.entities {
      guard let parent = entity.parentEntityName else { continue }
      out += "  \(name(entity.name)) |o--|| \(name(parent)) : \"is a\"\n"
    }
    return out
  }

  /// Each entity's quoted name, with the characters a quoted name cannot hold (`"`, `%`, `\`
  /// and line breaks) made `_`, and a number added should that make two names one.
  private static func mermaidNames(of model: ManagedObjectModel) -> [String: String] {
    var names: [String: String] = [:]
    var used: Set<String> = []
    for entity in model.entities {
      let base = quoted(entity.name)
      var candidate = base
      var number = 2
      while used.contains(candidate) {
        candidate = quoted("\(entity.name)_\(number)")
        number += 1
      }
      used.insert(candidate)
      names[entity.name] = candidate
    }
    return names
  }

  /// `"text"` with what Mermaid's quoted names and labels cannot hold replaced by `_`.
  private static func quoted(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      out.unicodeScalars.append(
        "\"%\\\r\n\u{0B}\u{08}".unicodeScalars.contains(scalar) ? "_" : scalar)
    }
    return "\"\(out)\""
  }

  /// `Type name UK "comment"`.
  private static func mermaidRow(of attribute: AttributeDescription, in entity: EntityDescription)
    -> String
  {
    let name = word(attribute.name)
    var notes: [String] = []
    if name != attribute.name { notes.append("name: \(attribute.name)") }
    if attribute.isOptional { notes.append("optional") }
    let constraints = entity.uniquenessConstraints.filter { $0.contains(attribute.name) }
    for constraint in constraints where constraint.count > 1 {
      let others = constraint.filter { $0 != attribute.name }
      notes.append("unique with \(others.joined(separator: ", "))")
    }
    if attribute.isIndexed { notes.append("indexed") }
    for index in entity.fetchIndexes
    where index.elements.contains(where: { $0.propertyName == attribute.name }) {
      notes.append("index \(index.name)")
    }
    for index in entity.compoundIndexes where index.contains(attribute.name) {
      notes.append("index (\(index.joined(separator: ", ")))")
    }
    if attribute.isTransient { notes.append("transient") }
    if let expression = attribute.derivationExpression {
      notes.append(expression.isEmpty ? "derived" : "derived from \(expression)")
    }
    var row = "\(mermaidType(of: attribute)) \(name)"
    if !constraints.isEmpty { row += " UK" }
    if !notes.isEmpty { row += " \"\(comment(notes.joined(separator: ", ")))\"" }
    return row
  }

  /// The type as one word: `Integer16`, `BinaryData`, `Composite(Address)`.
  private static func mermaidType(of attribute: AttributeDescription) -> String {
    if attribute.attributeType == .composite {
      return attribute.compositeName.map { "Composite(\(word($0)))" } ?? "Composite"
    }
    return ModelDescription.typeName(of: attribute).filter { $0 != " " }
  }

  /// A name Mermaid reads as one attribute word; see the type's discussion.
  private static func word(_ name: String) -> String {
    func isASCIIWord(_ scalar: Unicode.Scalar) -> Bool {
      scalar.isASCII && (scalar.properties.isAlphabetic || isDigit(scalar) || scalar == "_")
    }
    func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
    var scalars = String.UnicodeScalarView()
    for scalar in name.unicodeScalars {
      scalars.append(isASCIIWord(scalar) || scalar == "-" || scalar.value >= 0xC0 ? scalar : "_")
    }
    if scalars.first.map({ isDigit($0) || $0 == "-" }) ?? true {
      scalars.insert("_", at: scalars.startIndex)
    }
    // Mermaid reads PK, FK or UK, in any case, for a key when an ASCII letter, digit or `_`
    // does not follow it.
    let head = String(String.UnicodeScalarView(scalars.prefix(2))).lowercased()
    let isFollowed = scalars.dropFirst(2).first.map(isASCIIWord) ?? false
    if ["pk", "fk", "uk"].contains(head), !isFollowed {
      scalars.insert("_", at: scalars.index(scalars.startIndex, offsetBy: 2))
    }
    return String(scalars)
  }

  /// Text for an attribute's comment: no `"`, which would end it, no line breaks, and no `~`,
  /// two of which Mermaid reads as a generic type.
  private static func comment(_ text: String) -> String {
    String(
      text.map { character -> Character in
        switch character {
        case "\"": "'"
        case "~": "∼"
        case "\n", "\r", "\r\n", "\t": " "
        default: character
        }
      })
  }

  /// `employees`, `members (2..5)`, `tracks (ordered)`, `tags (no inverse)`.
  private static func mermaidLabel(of relationship: RelationshipDescription, hasInverse: Bool)
    -> String
  {
    var notes: [String] = []
    if relationship.isToMany && (relationship.minCount > 1 || relationship.maxCount != nil) {
      notes.append(ModelDescription.cardinality(of: relationship))
    }
    if relationship.isOrdered { notes.append("ordered") }
    if relationship.isTransient { notes.append("transient") }
    if !hasInverse { notes.append("no inverse") }
    guard !notes.isEmpty else { return relationship.name }
    return "\(relationship.name) (\(notes.joined(separator: ", ")))"
  }

  /// The crow's foot at the end of the entity `relationship` points to: on the left of the
  /// line `|o`, `||`, `}o`, `}|`; on the right the same mirrored.
  private static func crowsFoot(of relationship: RelationshipDescription, onLeft: Bool) -> String {
    let isMany = relationship.isToMany
    let isAtLeastOne = isMany ? relationship.minCount >= 1 : !relationship.isOptional
    switch (isMany, isAtLeastOne) {
    case (false, false): return onLeft ? "|o" : "o|"
    case (false, true): return "||"
    case (true, false): return onLeft ? "}o" : "o{"
    case (true, true): return onLeft ? "}|" : "|{"
    }
  }
}
