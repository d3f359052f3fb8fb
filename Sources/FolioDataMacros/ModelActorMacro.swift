import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ModelActor`: gives an actor a model context of its own on a serial executor, and
/// `init(modelContainer:)`.
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard declaration.is(ActorDeclSyntax.self) else {
      throw MacroFailure("@ModelActor applies to an actor")
    }
    let access =
      declaration.modifiers.contains { ["public", "open"].contains($0.name.text) }
      ? "public " : ""
    return [
      "\(raw: access)nonisolated let modelExecutor: any FolioData.ModelExecutor",
      "\(raw: access)nonisolated let modelContainer: FolioData.ModelContainer",
      // Declared here: an actor's own executor would be made for it otherwise.
      """
      \(raw: access)nonisolated var unownedExecutor: UnownedSerialExecutor {
        FolioData._serialExecutor(of: modelExecutor)
      }
      """,
      """
      \(raw: access)init(modelContainer: FolioData.ModelContainer) {
        let modelContext = FolioData.ModelContext(_actorOf: modelContainer)
        self.modelExecutor = FolioData.DefaultSerialModelExecutor(modelContext: modelContext)
        self.modelContainer = modelContainer
      }
      """,
    ]
  }

  public static func expansion(
    of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
    return [try ExtensionDeclSyntax("extension \(type.trimmed): FolioData.ModelActor {}")]
  }
}
