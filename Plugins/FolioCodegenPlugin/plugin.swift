import Foundation
import PackagePlugin

/// Generates the entity classes of every `.xcdatamodeld` in a target at build time, as Xcode
/// does for entities whose Codegen is Class Definition or Category/Extension.
///
/// Add it to a target that depends on `FolioGraph` (or `Folio`) and keeps its models in its
/// folder (excluded from the target's sources, as SwiftPM has no rule for them on Linux):
///
/// ```swift
/// .target(
///   name: "App", dependencies: [.product(name: "Folio", package: "Folio")],
///   exclude: ["Library.xcdatamodeld"],
///   plugins: [.plugin(name: "FolioCodegenPlugin", package: "Folio")])
/// ```
///
/// Each model becomes one generated file, `<Model>+Folio.swift`, rebuilt when the model's
/// files change.
@main
struct FolioCodegenPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    guard let target = target as? SourceModuleTarget else { return [] }
    let tool = try context.tool(named: "FolioCodegenTool")
    return try models(in: target.directoryURL).map { model in
      let name = model.deletingPathExtension().lastPathComponent
      let output = context.pluginWorkDirectoryURL.appendingPathComponent("\(name)+Folio.swift")
      return .buildCommand(
        displayName: "Generating the entity classes of \(model.lastPathComponent)",
        executable: tool.url, arguments: [model.path, output.path],
        inputFiles: try files(in: model), outputFiles: [output])
    }
  }

  /// The `.xcdatamodeld` bundles under `folder`, in a stable order.
  private func models(in folder: URL) throws -> [URL] {
    let manager = FileManager.default
    guard let walker = manager.enumerator(at: folder, includingPropertiesForKeys: nil) else {
      return []
    }
    var found: [URL] = []
    for case let url as URL in walker where url.pathExtension == "xcdatamodeld" {
      found.append(url)
      walker.skipDescendants()
    }
    return found.sorted { $0.path < $1.path }
  }

  /// Every file of a model bundle: the build runs again when one changes.
  private func files(in bundle: URL) throws -> [URL] {
    guard let walker = FileManager.default.enumerator(at: bundle, includingPropertiesForKeys: nil)
    else { return [] }
    return walker.compactMap { $0 as? URL }.filter { !$0.hasDirectoryPath }
  }
}
