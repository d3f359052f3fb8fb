import ArgumentParser
import Folio
import FolioCodegen
import FolioModel
import Foundation

/// `folio codegen`: write Swift classes for a model's entities.
struct CodegenCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "codegen",
    abstract: "Write Swift entity classes for a model, for you to own and edit.",
    discussion: """
      Writes, for each entity (or each one named with --entity), Entity+FolioClass.swift (the \
      class, where your logic goes) and Entity+FolioProperties.swift (a typed property per \
      attribute and relationship, and the to-many accessors), and <Model>Entities.swift \
      (LibraryEntities.swift for Library.xcdatamodeld), the list of classes to register: \
      `try model.register(LibraryEntities.classes)`. This is Xcode's "Create \
      NSManagedObject Subclass…" for entities whose Codegen is Manual/None; the \
      FolioCodegenPlugin build-tool plugin generates the others' code at build time.

      Existing class and property files are left alone, and the command fails naming them, \
      unless --overwrite is given. <Model>Entities.swift is written again each time, listing \
      every entity whose class file is in the folder, so entities written one run at a time \
      are all registered. With --build-time, writes what the plugin writes: per entity, what \
      its Codegen setting asks for.

      Examples:
        folio codegen Samples/Company/Company.xcdatamodeld --output Sources/App/Model
        folio codegen Samples/Library/Library.xcdatamodeld --output Model \\
          --entity Book --entity Writer
      """
  )

  @OptionGroup var model: ModelOptions

  @Option(help: "The folder to write the files into (created if missing).", completion: .directory)
  var output: String

  @Option(
    help: "An entity to write classes for; repeat for several. All entities by default.",
    completion: Completions.codegenEntity)
  var entity: [String] = []

  @Flag(help: "Write what each entity's Codegen setting asks for, as the build plugin does.")
  var buildTime = false

  @Flag(help: "Replace files that already exist.")
  var overwrite = false

  @Option(
    help: ArgumentHelp(
      "A value transformer the app registers under this name; repeat for several.",
      discussion:
        "A transformable attribute read through it, whose model names its class (customClassName), gets a property of that class; NSSecureUnarchiveFromData is always known."
    ),
    completion: Completions.typed)
  var transformer: [String] = []

  func run() throws {
    let loaded = try model.load()
    if buildTime, !entity.isEmpty {
      throw ValidationError("--entity selects entities to write once; --build-time writes by mode")
    }
    var generator = try EntityCodeGenerator(
      model: loaded, modelName: Self.modelName(of: model.path),
      sourceName: URL(fileURLWithPath: model.path).lastPathComponent)
    generator.transformers.formUnion(transformer)
    let folder = URL(fileURLWithPath: output, isDirectory: true)
    // The list of classes to register names every entity whose class is in the folder, those
    // written before as well as these.
    let written = Set(
      loaded.entities.map(\.name).filter { name in
        generator.classFileName(ofEntity: name).map {
          FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path)
        } ?? false
      })
    let files =
      buildTime
      ? try generator.buildTimeFiles()
      : try generator.sourceFiles(entities: entity, alsoRegistering: written)
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: output, isDirectory: &isFolder), !isFolder.boolValue {
      throw CommandFailure(
        "--output \(output): is a file; codegen writes its Swift files into a folder")
    }
    try Self.makeFolder(output)
    let targets = files.map { (file: $0, url: folder.appendingPathComponent($0.name)) }
    let existing = targets.filter {
      $0.file.name != generator.entitiesFileName
        && FileManager.default.fileExists(atPath: $0.url.path)
    }
    if !overwrite, !buildTime, !existing.isEmpty {
      throw CommandFailure(
        "these files exist and were left alone (--overwrite replaces them): "
          + existing.map(\.url.path).joined(separator: ", "))
    }
    for target in targets {
      // The build plugin runs this on every build: an unchanged file keeps its date, so what
      // depends on it is not rebuilt.
      if let current = try? Data(contentsOf: target.url),
        current == Data(target.file.contents.utf8)
      {
        continue
      }
      try AtomicFile.write(Data(target.file.contents.utf8), to: target.url)
    }
    if !buildTime {
      print("wrote \(targets.count) files to \(folder.path)")
    }
  }

  /// The model's name: `Library` for `Library.xcdatamodeld`, `Library.xcdatamodel` or
  /// `Library.xcdatamodel/contents`.
  static func modelName(of path: String) -> String {
    var url = URL(fileURLWithPath: path).standardizedFileURL
    if url.lastPathComponent == "contents" { url.deleteLastPathComponent() }
    return url.deletingPathExtension().lastPathComponent
  }
}

extension CodegenCommand {
  /// Makes the folder `path` and those above it that are missing, as `mkdir -p` does, failing
  /// with the system's reason and the part of the path it concerns.
  static func makeFolder(_ path: String) throws {
    var built = path.hasPrefix("/") ? "/" : ""
    for part in path.split(separator: "/") {
      built += (built.isEmpty || built.hasSuffix("/") ? "" : "/") + part
      if mkdir(built, 0o755) == 0 { continue }
      let code = errno
      var status = stat()
      if code == EEXIST, stat(built, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { continue }
      let reason = code == EEXIST ? "a file is in the way" : String(cString: strerror(code))
      throw CommandFailure("--output \(path): cannot make the folder \(built): \(reason)")
    }
  }
}
