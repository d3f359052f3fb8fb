import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute`, `@Relationship` and `@Transient`: marks that `@Model` reads from the property
/// they are attached to. They add nothing themselves.
public struct MarkerMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard declaration.is(VariableDeclSyntax.self) else {
      throw MacroFailure("@\(node.attributeName.trimmedDescription) applies to a stored property")
    }
    return []
  }
}

/// A failure the compiler reports at the macro's attribute, or at `node` when given.
struct MacroFailure: Error, CustomStringConvertible, DiagnosticMessage {
  let description: String
  var node: Syntax?
  init(_ description: String, at node: (some SyntaxProtocol)? = Syntax?.none) {
    self.description = description
    self.node = node.map { Syntax($0) }
  }

  var message: String { description }
  var diagnosticID: MessageID { MessageID(domain: "FolioDataMacros", id: "failure") }
  /// A warning when the class compiles as it is, but not as SwiftData would make it.
  var isWarning = false
  var severity: DiagnosticSeverity { isWarning ? .warning : .error }
}
