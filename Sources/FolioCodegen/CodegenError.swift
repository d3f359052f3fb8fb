import FolioModel

/// An error from code generation: a model whose names Swift code cannot use.
public typealias CodegenError = CodedError<CodegenErrorCode>

/// What went wrong in a `CodegenError`, to switch on: `CodegenError.Code`.
public struct CodegenErrorCode: Hashable, Sendable, CustomStringConvertible {
  /// A property whose name is that of a `ManagedObject` member (`entity`, `objectID`…), which
  /// an entity class cannot redeclare; or a name Swift cannot declare even escaped (`self`).
  public static let reservedName = CodegenErrorCode(.reservedName)
  /// An entity whose `codeGenerationType` names no mode Folio knows.
  public static let unknownCodeGeneration = CodegenErrorCode(.unknownCodeGeneration)
  /// An entity named on the command line that the model does not have.
  public static let unknownEntity = CodegenErrorCode(.unknownEntity)
  /// Two entities whose classes would have one name.
  public static let duplicateClass = CodegenErrorCode(.duplicateClass)

  private enum Kind: Hashable, Sendable {
    case reservedName, unknownCodeGeneration, unknownEntity, duplicateClass
  }

  private var kind: Kind

  private init(_ kind: Kind) { self.kind = kind }

  /// The member's name: `reservedName`.
  public var description: String { "\(kind)" }
}
