import SwiftSyntax

/// A stored property of a `@Model` class that `@Model` persists: a `var` with a type annotation
/// or an initial value, no getter or setter of its own, not static, not lazy, not `@Transient`.
struct PersistedProperty {
  let name: String
  /// The type written, or `nil` when it is left to the initial value.
  let type: TypeSyntax?
  /// The initial value written in the declaration, if any.
  let initialValue: ExprSyntax?
  var hasInitialValue: Bool { initialValue != nil }
  /// The arguments of its `@Attribute(…)`, or `nil` without one.
  let attributeArguments: LabeledExprListSyntax?
  /// The arguments of its `@Relationship(…)`, or `nil` without one.
  let relationshipArguments: LabeledExprListSyntax?

  /// Whether the type is written as an optional (`T?`, `T!`, `Optional<T>`).
  var isOptionalType: Bool { type.map(Self.isOptional) ?? false }

  static func isOptional(_ type: TypeSyntax) -> Bool {
    if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
      return true
    }
    if let identifier = type.as(IdentifierTypeSyntax.self) {
      return identifier.name.text == "Optional" && identifier.genericArgumentClause != nil
    }
    if let member = type.as(MemberTypeSyntax.self) {
      return member.name.text == "Optional" && member.genericArgumentClause != nil
    }
    return false
  }

  /// The properties of `members` that `@Model` persists, and why each `var` it cannot persist
  /// (one with no type annotation, one with observers) is left as it is.
  static func all(in members: MemberBlockItemListSyntax, inSubclass: Bool) -> (
    properties: [PersistedProperty], failures: [MacroFailure]
  ) {
    var properties: [PersistedProperty] = []
    var failures: [MacroFailure] = []
    for member in members {
      guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
      if let warning = letWarning(variable) { failures.append(warning) }
      do {
        if let property = try PersistedProperty(variable, inSubclass: inSubclass) {
          properties.append(property)
        }
      } catch let failure as MacroFailure {
        failures.append(failure)
      } catch {
        failures.append(MacroFailure("\(error)", at: variable))
      }
    }
    return (properties, failures)
  }

  /// A `let` that SwiftData would store and `@Model` leaves alone: a constant's value is the
  /// instance's own, so an instance made for a fetched object could not hold the stored one.
  static func letWarning(_ variable: VariableDeclSyntax) -> MacroFailure? {
    guard variable.bindingSpecifier.tokenKind == .keyword(.let),
      !variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }),
      variable.attribute(named: "Transient") == nil,
      let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
    else { return nil }
    var warning = MacroFailure(
      "@Model leaves the constant '\(name)' out of the store, where SwiftData stores it: declare it 'var' to store it",
      at: variable)
    warning.isWarning = true
    return warning
  }

  /// The property `variable` declares, or `nil` when `@Model` leaves it alone. In a subclass
  /// of another `@Model` class, the type must be written: the property's storage is declared
  /// with it.
  init?(_ variable: VariableDeclSyntax, inSubclass: Bool = false) throws {
    guard variable.bindingSpecifier.tokenKind == .keyword(.var) else { return nil }
    let skippedModifiers: Set<String> = ["static", "class", "lazy", "override"]
    guard !variable.modifiers.contains(where: { skippedModifiers.contains($0.name.text) }) else {
      return nil
    }
    guard variable.attribute(named: "Transient") == nil else { return nil }
    guard variable.bindings.count == 1, let binding = variable.bindings.first,
      let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
    else {
      throw MacroFailure(
        "@Model persists one property per declaration: declare each on its own", at: variable)
    }
    if let accessors = binding.accessorBlock {
      // A computed property is left alone; observers (willSet, didSet) are not supported.
      switch accessors.accessors {
      case .getter: return nil
      case .accessors(let list):
        let kinds = list.map(\.accessorSpecifier.text)
        if kinds.contains(where: { ["get", "set", "_read", "_modify", "init"].contains($0) }) {
          return nil
        }
        throw MacroFailure(
          "@Model cannot persist '\(pattern.identifier.text)' with willSet or didSet: mark it @Transient or remove the observer",
          at: accessors)
      }
    }
    let name = pattern.identifier.text
    guard !name.hasPrefix("_$") else { return nil }
    let type = binding.typeAnnotation?.type
    guard type != nil || binding.initializer != nil else {
      throw MacroFailure(
        "@Model needs the type of '\(name)' written out (var \(name): Type), or an initial value",
        at: binding)
    }
    if let type, type.trimmedDescription.hasSuffix("_FolioNoStorage") { return nil }
    if inSubclass, type == nil {
      throw MacroFailure(
        "in a subclass of another @Model class, @Model needs the type of '\(name)' written out (var \(name): Type = …)",
        at: binding)
    }
    self.name = name
    self.type = type?.trimmed
    self.initialValue = binding.initializer?.value.trimmed
    self.attributeArguments = variable.attribute(named: "Attribute").map {
      $0.arguments?.as(LabeledExprListSyntax.self) ?? []
    }
    self.relationshipArguments = variable.attribute(named: "Relationship").map {
      $0.arguments?.as(LabeledExprListSyntax.self) ?? []
    }
  }
}

extension VariableDeclSyntax {
  /// The attribute `@name` (or `@Module.name`) on the declaration.
  func attribute(named name: String) -> AttributeSyntax? {
    for element in attributes {
      guard case .attribute(let attribute) = element else { continue }
      let written = attribute.attributeName.trimmedDescription
      if written == name || written.hasSuffix(".\(name)") { return attribute }
    }
    return nil
  }
}
