/// How Xcode generates an entity's class: the three choices of its Codegen menu.
public enum CodeGeneration: String, Sendable, Hashable, CaseIterable {
  /// Class Definition: the class and its properties are generated at build time; nothing is in
  /// the source tree.
  case classDefinition = "class"
  /// Category/Extension: only the properties are generated, in an extension; the developer
  /// writes the class, with any custom logic.
  case categoryExtension = "category"
  /// Manual/None: nothing is generated at build time; the developer owns both files (written
  /// once by `folio codegen`, as Xcode's "Create NSManagedObject Subclass…" does).
  case manual = ""
}

extension EntityDescription {
  /// The entity's code generation mode, from ``codeGenerationType``; `nil` when the file names
  /// a mode Folio does not know.
  public var codeGeneration: CodeGeneration? {
    guard let type = codeGenerationType, !type.isEmpty else { return .manual }
    guard type != CodeGeneration.manual.rawValue else { return nil }
    return CodeGeneration(rawValue: type)
  }
}
