import FolioCodegen
import FolioModel
import FolioTestSupport
import Foundation
import Testing

/// Type-checks Swift files against this build's Folio modules, as a client target would
/// compile them, with warnings as errors.
func typecheck(_ files: [URL]) throws -> ProcessResult {
  let build = productsDirectory
  var arguments = [
    "swiftc", "-typecheck", "-wmo", "-swift-version", "6", "-warnings-as-errors",
    "-I", build.appendingPathComponent("Modules").path,
  ]
  // The C targets the Folio modules import, by their module maps.
  for target in ["CFolioXML", "CFolioSupport", "CFolioSQLite"] {
    arguments += [
      "-Xcc",
      "-fmodule-map-file=\(build.appendingPathComponent("\(target).build/module.modulemap").path)",
    ]
  }
  for library in ["CLibXML2", "CZlib", "CSQLite"] {
    arguments += [
      "-Xcc",
      "-fmodule-map-file=\(packageRoot.appendingPathComponent("Sources/\(library)/module.modulemap").path)",
    ]
  }
  arguments += ["-Xcc", "-I/usr/include/libxml2"]
  arguments += [
    "-Xcc", "-I\(packageRoot.appendingPathComponent("Sources/CFolioXML/include").path)",
    "-Xcc", "-I\(packageRoot.appendingPathComponent("Sources/CFolioSQLite/include").path)",
  ]
  return try run(URL(fileURLWithPath: "/usr/bin/env"), arguments + files.map(\.path))
}

/// Writes `files` into a new folder and returns their URLs.
func write(_ files: [EntityCodeGenerator.File], into folder: URL) throws -> [URL] {
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  return try files.map { file in
    let url = folder.appendingPathComponent(file.name)
    try Data(file.contents.utf8).write(to: url)
    return url
  }
}

func sampleModel(_ name: String) throws -> ManagedObjectModel {
  try ManagedObjectModel(
    contentsOf: packageRoot.appendingPathComponent("Samples/\(name)/\(name).xcdatamodeld"))
}

@Suite("Entity class code generation")
struct CodegenTests {
  @Test("the samples' generated code matches its golden files", arguments: ["Expenses", "Company"])
  func golden(sample: String) throws {
    let generator = try EntityCodeGenerator(
      model: try sampleModel(sample), modelName: sample, sourceName: "\(sample).xcdatamodeld")
    let folder = packageRoot.appendingPathComponent("Tests/FolioCodegenTests/Golden/\(sample)")
    let files = try generator.sourceFiles()
    for file in files { assertSnapshot(file.contents, named: file.name, in: folder) }
    // What the build-tool plugin writes: the files of each entity's mode, as one file.
    assertSnapshot(try generator.buildTimeSource(), named: "\(sample)+Folio.swift", in: folder)
  }

  @Test("the code of each mode: Class Definition, Category/Extension, Manual/None")
  func modes() throws {
    var item = EntityDescription("Item", isAbstract: true) {
      AttributeDescription("title", .string)
    }
    item.codeGenerationType = "class"
    var book = EntityDescription("Book", parent: "Item") {
      AttributeDescription("pages", .integer16)
    }
    book.codeGenerationType = "category"
    let note = EntityDescription("Note") { AttributeDescription("text", .string) }
    var odd = EntityDescription("Odd")
    odd.codeGenerationType = "macro"
    let model = try ManagedObjectModel(entities: [item, book, note])
    let names = try EntityCodeGenerator(model: model, modelName: "Library").buildTimeFiles()
      .map(\.name)
    #expect(
      names == [
        "Item+FolioClass.swift", "Item+FolioProperties.swift", "Book+FolioProperties.swift",
        "LibraryEntities.swift",
      ])
    let all = try EntityCodeGenerator(model: model, modelName: "Library").sourceFiles()
    #expect(all.count == 7, "two files per entity, whatever its mode, and the list")
    let some = try EntityCodeGenerator(model: model, modelName: "Library")
      .sourceFiles(entities: ["Note", "Item"])
    #expect(
      some.map(\.name) == [
        "Item+FolioClass.swift", "Item+FolioProperties.swift", "Note+FolioClass.swift",
        "Note+FolioProperties.swift", "LibraryEntities.swift",
      ], "model order")

    let unknownMode = try ManagedObjectModel(entities: [odd])
    let error = try #require(
      throws: CodegenError.self,
      performing: { try EntityCodeGenerator(model: unknownMode, modelName: "M").buildTimeFiles() })
    #expect(error.code == .unknownCodeGeneration)
    #expect(
      error.description
        == "Odd: codeGenerationType \"macro\" is not one Folio knows (class, category)")
    let unknownEntity = try #require(
      throws: CodegenError.self,
      performing: {
        try EntityCodeGenerator(model: model, modelName: "M").sourceFiles(entities: ["Nte"])
      })
    #expect(unknownEntity.message == "the model has no entity \"Nte\" (did you mean \"Note\"?)")
  }

  @Test("a transformable attribute read through a known transformer gets a property of its class")
  func transformableTypes() throws {
    func transformable(_ name: String, _ className: String?, _ transformer: String?)
      -> AttributeDescription
    {
      var attribute = AttributeDescription(name, .transformable)
      attribute.valueClassName = className
      attribute.valueTransformerName = transformer
      return attribute
    }
    let secure = "NSSecureUnarchiveFromData"
    let model = try ManagedObjectModel(entities: [
      EntityDescription("Sketch") {
        transformable("tags", "[String]", secure)
        transformable("sizes", "[Int64]", "NSSecureUnarchiveFromDataTransformer")
        transformable("info", "NSDictionary", secure)
        transformable("colour", "UIColor", secure)
        transformable("palette", "MyApp.Palette", "PaletteTransformer")
        transformable("untyped", nil, secure)
      }
    ])
    var generator = try EntityCodeGenerator(model: model, modelName: "M")
    func properties() throws -> String {
      try #require(try generator.sourceFiles().first { $0.name == "Sketch+FolioProperties.swift" })
        .contents
    }
    var text = try properties()
    for (name, type) in [("tags", "[String]"), ("sizes", "[Int64]"), ("info", "[String: Any]")] {
      #expect(text.contains("public var \(name): \(type)? {"), "\(name)")
      #expect(text.contains("get { transformedValue(forKey: \"\(name)\") }"), "\(name)")
      #expect(
        text.contains("set { setTransformedValue(newValue, forKey: \"\(name)\") }"), "\(name)")
    }
    // A class the built-in transformer cannot hold, an app transformer nobody named, and no
    // class at all: bytes.
    for name in ["colour", "palette", "untyped"] {
      #expect(text.contains("public var \(name): Data? {"), "\(name)")
    }
    generator.transformers.insert("PaletteTransformer")
    text = try properties()
    #expect(text.contains("public var palette: Palette? {"))
    #expect(
      text.contains(
        "/// A `Palette`, read and set through the transformer registered as `PaletteTransformer`.")
    )
  }

  @Test("a transformable attribute's class and transformer are named beside its bytes")
  func transformableClass() throws {
    var colour = AttributeDescription("colour", .transformable)
    colour.valueClassName = "UIColor"
    colour.valueTransformerName = "NSSecureUnarchiveFromData"
    let plain = AttributeDescription("blob", .transformable)
    let model = try ManagedObjectModel(entities: [
      EntityDescription("Swatch") {
        colour
        plain
      }
    ])
    let files = try EntityCodeGenerator(model: model, modelName: "M").sourceFiles()
    let properties = try #require(files.first { $0.name == "Swatch+FolioProperties.swift" })
    #expect(
      properties.contents.contains(
        """
          /// The `colour` attribute (Transformable).
          /// The bytes of a `UIColor`, made by `NSSecureUnarchiveFromData`.
          /// `value(forKey:)` reads them through the transformer registered as `NSSecureUnarchiveFromData`.
          public var colour: Data? {
        """))
    #expect(
      properties.contents.contains(
        """
          /// The `blob` attribute (Transformable).
          public var blob: Data? {
        """))
  }

  @Test("names that clash with ManagedObject members, or that Swift cannot use, are reported")
  func reservedNames() throws {
    for name in ["objectID", "description", "entity", "hasChanges"] {
      let model = try ManagedObjectModel(entities: [
        EntityDescription("Thing") { AttributeDescription(name, .string) }
      ])
      let error = try #require(
        throws: CodegenError.self,
        performing: { try EntityCodeGenerator(model: model, modelName: "M").sourceFiles() })
      #expect(error.code == .reservedName)
      #expect(error.location?.description == "Thing.\(name)")
      #expect(error.message.hasPrefix("\"\(name)\" is a member of every ManagedObject"))
    }
    var first = EntityDescription("First")
    first.representedClassName = "Shared"
    var second = EntityDescription("Second")
    second.representedClassName = "App.Shared"
    let clash = try ManagedObjectModel(entities: [first, second])
    let error = try #require(
      throws: CodegenError.self,
      performing: { try EntityCodeGenerator(model: clash, modelName: "M") })
    #expect(error.code == .duplicateClass)
  }

  @Test("keywords, an entity that shadows a Swift type, every attribute type: the code compiles")
  func edgeNamesCompile() throws {
    var shadow = EntityDescription("Set") {
      AttributeDescription("default", .string)
      AttributeDescription("class", .integer16)
      AttributeDescription("in", .boolean)
      AttributeDescription("id", .uuid)
      AttributeDescription("value", .double)
      RelationshipDescription(
        "strings", to: "String", inverse: "owner", toMany: true, ordered: true)
    }
    shadow.attributes[1].usesScalarValueType = true
    var every = EntityDescription("String", parent: nil) {
      AttributeDescription("i16", .integer16)
      AttributeDescription("i32", .integer32)
      AttributeDescription("i64", .integer64)
      AttributeDescription("dec", .decimal)
      AttributeDescription("dbl", .double)
      AttributeDescription("flt", .float)
      AttributeDescription("str", .string)
      AttributeDescription("flag", .boolean)
      AttributeDescription("when", .date)
      AttributeDescription("when2", .date)
      AttributeDescription("bytes", .binaryData)
      AttributeDescription("uuid", .uuid)
      AttributeDescription("uri", .uri)
      AttributeDescription("transformed", .transformable)
      AttributeDescription("objectRef", .objectID)
      AttributeDescription("anything", .undefined)
      AttributeDescription("count", .integer64)
      RelationshipDescription("owner", to: "Set", inverse: "strings")
    }
    for index in every.attributes.indices where index % 2 == 0 {
      every.attributes[index].usesScalarValueType = true
    }
    every.fetchedProperties = [
      FetchedPropertyDescription(
        "siblings", entity: "String", predicate: "owner == $FETCH_SOURCE.owner")
    ]
    every.attributes[15].traits.isTransient = true
    every.attributes[16].derivationExpression = "strings.@count"
    let model = try ManagedObjectModel(entities: [shadow, every])
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let files = try write(
      try EntityCodeGenerator(model: model, modelName: "Edge").sourceFiles(), into: folder)
    let result = try typecheck(files)
    #expect(result.status == 0, "\(result.standardError)")
    let properties = try String(
      contentsOf: folder.appendingPathComponent("Set+FolioProperties.swift"), encoding: .utf8)
    #expect(properties.contains("public var `default`: Swift.String?"))
    #expect(properties.contains("public var `class`: Int16 {"), "no class named Int16: unqualified")
    #expect(properties.contains("public var strings: [String] {"))
  }

  @Test(
    "every corpus model that loads: its generated code compiles warning-free and is formatted",
    .enabled(if: corpusModels != nil, "../shared/corpus is not beside the package"))
  func corpus() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let models = try #require(corpusModels)
    var generated: [(name: String, files: [EntityCodeGenerator.File])] = []
    var failures: [String] = []
    let names = try FileManager.default.contentsOfDirectory(atPath: models.path).sorted()
    for name in names where name.hasSuffix(".contents.xml") {
      guard let model = try? ManagedObjectModel(contentsOf: models.appendingPathComponent(name))
      else { continue }
      do {
        // A model name of its own, so that several models' code can compile together.
        let files = try EntityCodeGenerator(model: model, modelName: "Corpus\(generated.count)")
          .sourceFiles()
        if !files.isEmpty { generated.append((name, files)) }
      } catch {
        failures.append("\(name): \(error)")
      }
    }
    #expect(generated.count >= 80, "only \(generated.count) corpus models were generated")
    // Models whose class names differ compile in one run: one compiler start per batch
    // rather than per model.
    var batches: [(names: Set<String>, models: [String], files: [URL])] = []
    for (name, files) in generated {
      let classes = Set(files.map { $0.name.split(separator: "+")[0].description })
      let urls = try write(files, into: folder.appendingPathComponent(name))
      if let index = batches.firstIndex(where: { $0.names.isDisjoint(with: classes) }) {
        batches[index].names.formUnion(classes)
        batches[index].models.append(name)
        batches[index].files += urls
      } else {
        batches.append((classes, [name], urls))
      }
    }
    for batch in batches {
      let result = try typecheck(batch.files)
      if result.status != 0 {
        failures.append("\(batch.models.joined(separator: ", ")):\n\(result.standardError)")
      }
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    // `swift format` leaves the code as it is: formatting every file, concatenated, gives
    // the files back.
    let all = batches.flatMap(\.files)
    let formatted = try run(
      URL(fileURLWithPath: "/usr/bin/env"), ["swift", "format", "format"] + all.map(\.path))
    let original = try all.map { try String(contentsOf: $0, encoding: .utf8) }.joined()
    #expect(formatted.status == 0, "\(formatted.standardError.prefix(2_000))")
    #expect(formatted.standardOutput == original, "swift format changes the generated code")
  }
}

/// `../shared/corpus/models` beside the package, or `nil` when it is not there.
let corpusModels: URL? = {
  let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/models")
  return FileManager.default.fileExists(atPath: url.path) ? url : nil
}()
