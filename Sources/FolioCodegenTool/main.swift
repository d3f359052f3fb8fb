// `folio-codegen MODEL OUTPUT`: what the FolioCodegenPlugin build-tool plugin runs for each
// model of a target. Writes OUTPUT, one Swift file holding the code each entity's Codegen
// setting asks for and the model's list of classes, and leaves it untouched when its content
// would not change. Depends on the model and code generation modules only, so a client's
// build compiles little for it.
import FolioCodegen
import FolioModel
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let modelPath = arguments.first, let outputPath = arguments.last
else {
  FileHandle.standardError.write(Data("usage: folio-codegen MODEL OUTPUT\n".utf8))
  exit(64)
}

do {
  let url = URL(fileURLWithPath: modelPath)
  let model = try ManagedObjectModel(contentsOf: url)
  let generator = try EntityCodeGenerator(
    model: model, modelName: url.deletingPathExtension().lastPathComponent,
    sourceName: url.lastPathComponent)
  let text = try generator.buildTimeSource()
  let output = URL(fileURLWithPath: outputPath)
  if (try? Data(contentsOf: output)) != Data(text.utf8) {
    try Data(text.utf8).write(to: output, options: .atomic)
  }
} catch {
  // The compiler's format, so that build logs and IDEs point at the model.
  FileHandle.standardError.write(Data("\(modelPath): error: \(error)\n".utf8))
  exit(1)
}
