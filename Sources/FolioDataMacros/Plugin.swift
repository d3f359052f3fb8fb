import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that expands FolioData's macros.
@main
struct FolioDataMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [
    ModelMacro.self, PersistedPropertyMacro.self, SubclassPersistedPropertyMacro.self,
    MarkerMacro.self, ModelActorMacro.self,
    ConstraintMacro.self,
  ]
}
