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

/// A failure the compiler reports at the macro's attribute.
struct MacroFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
