// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

/// The fuzz executables, one per parser; `make fuzz` builds and runs each.
let fuzzTargets = [
  "FuzzXMLStore", "FuzzBinaryStore", "FuzzBinaryBody", "FuzzXcodeModel", "FuzzPredicate",
  "FuzzUndoScript", "FuzzSQLiteStore", "FuzzMappingModel", "FuzzUndoHistory", "FuzzPasteboard",
  "FuzzTransformer", "FuzzChangeJournal", "FuzzCommitLog",
]

/// Fault injection for the crash-safety tests (a `folio` that kills itself at a chosen write,
/// `FOLIO_TEST_…` in its environment) is compiled into debug builds only, which `swift test`
/// builds: a release build, what `make install` ships, holds none of it.
let testHooks = SwiftSetting.define("FOLIO_TEST_HOOKS", .when(configuration: .debug))

let package = Package(
  name: "Folio",
  platforms: [.macOS(.v14)],
  products: [
    .library(name: "Folio", targets: ["Folio"]),
    .library(name: "FolioModel", targets: ["FolioModel"]),
    .library(name: "FolioGraph", targets: ["FolioGraph"]),
    .library(name: "FolioUndo", targets: ["FolioUndo"]),
    .library(name: "FolioStores", targets: ["FolioStores"]),
    .library(name: "FolioXMLStore", targets: ["FolioXMLStore"]),
    .library(name: "FolioBinaryStore", targets: ["FolioBinaryStore"]),
    .library(name: "FolioSQLiteStore", targets: ["FolioSQLiteStore"]),
    .library(name: "FolioPostgresStore", targets: ["FolioPostgresStore"]),
    .library(name: "FolioQuery", targets: ["FolioQuery"]),
    .library(name: "FolioMigration", targets: ["FolioMigration"]),
    .library(name: "FolioScript", targets: ["FolioScript"]),
    .library(name: "FolioData", targets: ["FolioData"]),
    .executable(name: "folio", targets: ["folio"]),
    .plugin(name: "FolioCodegenPlugin", targets: ["FolioCodegenPlugin"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    // FolioData's macros (`@Model`) are compiler plugins, which only swift-syntax can write.
    // SwiftPM builds it only for products that use FolioData.
    .package(url: "https://github.com/swiftlang/swift-syntax", "603.0.0"..<"604.0.0"),
  ],
  targets: [
    .systemLibrary(
      name: "CLibXML2",
      pkgConfig: "libxml-2.0",
      providers: [.apt(["libxml2-dev"])]
    ),
    .systemLibrary(
      name: "CZlib",
      pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"])]
    ),
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    .systemLibrary(
      name: "CLibPQ",
      pkgConfig: "libpq",
      providers: [.apt(["libpq-dev"])]
    ),
    // What Swift cannot say: a prefetch hint (FolioStores' binary reader).
    .target(
      name: "CFolioSupport"
    ),
    // libxml2's error capture and the XML store's SAX event queue, in C (CFolioXML.h).
    .target(
      name: "CFolioXML",
      dependencies: ["CLibXML2"]
    ),
    // A counting SQLite file system that crashes a save at a chosen write, for the
    // crash-safety tests (CFolioSQLite.h).
    .target(
      name: "CFolioSQLite",
      dependencies: ["CSQLite"],
      cSettings: [.define("FOLIO_TEST_HOOKS", .when(configuration: .debug))]
    ),
    // The shape of every Folio error: a code, a message, a place in the input, a cause.
    .target(
      name: "FolioDiagnostics"
    ),
    .target(
      name: "FolioModel",
      dependencies: ["FolioDiagnostics", "FolioSupport", "CLibXML2", "CFolioXML"]
    ),
    .target(
      name: "FolioUndo",
      dependencies: ["FolioDiagnostics"]
    ),
    .target(
      name: "FolioQuery",
      dependencies: ["FolioModel", "FolioSupport"]
    ),
    // Helpers more than one module needs and no user sees: zlib streams, UTF-8 checks, the
    // one thread hand-off, quoting for every language Folio writes.
    .target(
      name: "FolioSupport",
      dependencies: ["CZlib"]
    ),
    // What every store format shares: records, `StoreFormat` and its capabilities, metadata,
    // atomic writes, locks and limits.
    .target(
      name: "FolioStores",
      dependencies: ["FolioModel", "FolioQuery", "FolioSupport", "CFolioSupport"],
      swiftSettings: [testHooks]
    ),
    // Core Data's XML store.
    .target(
      name: "FolioXMLStore",
      dependencies: ["FolioStores", "FolioSupport", "CLibXML2", "CFolioXML", "FolioModel"]
    ),
    // Folio's binary store (`.folio`).
    .target(
      name: "FolioBinaryStore",
      dependencies: ["FolioStores", "FolioSupport", "CFolioSupport", "FolioModel"]
    ),
    // Core Data's SQLite store.
    .target(
      name: "FolioSQLiteStore",
      dependencies: [
        "FolioStores", "FolioSupport", "CZlib", "CSQLite", "CFolioSQLite", "FolioModel",
        "FolioQuery",
      ],
      swiftSettings: [testHooks]
    ),
    // A document in a PostgreSQL schema, in Core Data's SQLite layout, through libpq: its own
    // target, so an app that never talks to a server does not link libpq.
    .target(
      name: "FolioPostgresStore",
      dependencies: [
        "FolioStores", "FolioSQLiteStore", "FolioSupport", "FolioModel", "CLibPQ", "CSQLite",
      ],
      swiftSettings: [testHooks]
    ),
    // Model versions, mapping models (inferred or Xcode's) and migrating a store's records.
    .target(
      name: "FolioMigration",
      dependencies: [
        "FolioModel", "FolioQuery", "FolioStores", "FolioXMLStore", "FolioSQLiteStore",
        "FolioSupport",
      ]
    ),
    // Swift source for a model's entity classes (`folio codegen`, the build-tool plugin).
    .target(
      name: "FolioCodegen",
      dependencies: ["FolioModel", "FolioSupport"]
    ),
    // What the build-tool plugin runs: a model in, its generated Swift file out.
    .executableTarget(
      name: "FolioCodegenTool",
      dependencies: ["FolioCodegen", "FolioModel"]
    ),
    .plugin(
      name: "FolioCodegenPlugin",
      capability: .buildTool(),
      dependencies: ["FolioCodegenTool"]
    ),
    .target(
      name: "FolioGraph",
      dependencies: ["FolioModel", "FolioUndo", "FolioStores", "FolioQuery"]
    ),
    .target(
      name: "Folio",
      dependencies: [
        "FolioModel", "FolioUndo", "FolioStores", "FolioXMLStore", "FolioBinaryStore",
        "FolioSQLiteStore", "FolioQuery", "FolioGraph", "FolioMigration", "FolioSupport",
        "FolioDiagnostics",
      ]
    ),
    // SwiftData's API: `@Model` classes, ModelContainer, ModelContext, Foundation's #Predicate.
    .target(
      name: "FolioData",
      dependencies: [
        "Folio", "FolioGraph", "FolioModel", "FolioQuery", "FolioStores", "FolioUndo",
        "FolioSQLiteStore", "FolioXMLStore", "FolioBinaryStore", "FolioDataMacros",
        "FolioMigration", "FolioPostgresStore",
      ]
    ),
    .macro(
      name: "FolioDataMacros",
      dependencies: [
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftDiagnostics", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
        .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
      ]
    ),
    .target(
      name: "FolioScript",
      dependencies: ["Folio", "FolioModel", "FolioSupport"]
    ),
    .executableTarget(
      name: "folio",
      dependencies: [
        "CFolioSupport", "FolioModel", "FolioScript", "FolioCodegen", "FolioSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"), "Folio",
        "FolioPostgresStore",
      ],
      swiftSettings: [testHooks]
    ),
    // The samples' apps, each using the typed API on its model through the build-tool plugin:
    // Expenses in Class Definition mode, Company in Category/Extension mode. `make test` runs
    // them.
    .executableTarget(
      name: "ExpensesSample",
      dependencies: ["Folio"],
      path: "Samples/Expenses/App",
      exclude: ["Expenses.xcdatamodeld"],
      plugins: ["FolioCodegenPlugin"]
    ),
    .executableTarget(
      name: "CompanySample",
      dependencies: ["Folio"],
      path: "Samples/Company/App",
      exclude: ["Company.xcdatamodeld"],
      plugins: ["FolioCodegenPlugin"]
    ),
    // A SwiftData program's model layer, unchanged but for its import, on FolioData.
    .executableTarget(
      name: "TripsSample",
      dependencies: [
        "FolioData", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Samples/Trips/App"
    ),
    .target(
      name: "FolioTestSupport",
      dependencies: ["CFolioSupport", "FolioModel", "FolioStores", "FolioSQLiteStore"],
      path: "Tests/FolioTestSupport"
    ),
    .testTarget(
      name: "FolioModelTests",
      dependencies: ["FolioModel", "FolioTestSupport"],
      exclude: ["Fixtures"]
    ),
    .executableTarget(
      name: "FolioBenchmarks",
      dependencies: [
        "Folio", "FolioGraph", "FolioUndo", "FolioStores", "FolioXMLStore", "FolioBinaryStore",
        "FolioSQLiteStore", "FolioQuery", "CZlib", "CLibXML2", "FolioModel", "FolioPostgresStore",
        "FolioData",
      ]
    ),
    .testTarget(
      name: "FolioQueryTests",
      dependencies: ["FolioQuery", "FolioTestSupport", "FolioModel"],
      exclude: ["Fixtures"]
    ),
    .testTarget(
      name: "FolioUndoTests",
      dependencies: ["FolioUndo", "FolioDiagnostics"]
    ),
    .testTarget(
      name: "FolioDataTests",
      dependencies: [
        "FolioData", "FolioQuery", "FolioTestSupport", "Folio", "FolioModel", "FolioGraph",
        "FolioPostgresStore", "FolioSQLiteStore",
      ],
      exclude: ["Fixtures"]
    ),
    .testTarget(
      name: "FolioTests",
      dependencies: ["Folio", "FolioTestSupport", "FolioPostgresStore"]
    ),
    .testTarget(
      name: "FolioStoresTests",
      dependencies: [
        "FolioStores", "FolioXMLStore", "FolioBinaryStore", "FolioSQLiteStore", "FolioSupport",
        "FolioTestSupport", "CFolioXML", "CLibXML2", "FolioModel", "FolioQuery",
      ],
      exclude: ["Fixtures"]
    ),
    .testTarget(
      name: "FolioPostgresStoreTests",
      dependencies: [
        "FolioPostgresStore", "FolioSQLiteStore", "FolioXMLStore", "FolioStores", "FolioModel",
        "FolioTestSupport", "CSQLite",
      ]
    ),
    .testTarget(
      name: "FolioMigrationTests",
      dependencies: [
        "FolioMigration", "FolioXMLStore", "FolioBinaryStore", "FolioSQLiteStore",
        "FolioTestSupport", "FolioModel", "FolioStores",
      ],
      exclude: ["Fixtures"]
    ),
    .testTarget(
      name: "FolioCodegenTests",
      dependencies: ["FolioCodegen", "FolioGraph", "FolioTestSupport", "FolioModel"],
      exclude: ["Golden"]
    ),
    // Uses the build-tool plugin on a model of its own, as a client target does.
    .testTarget(
      name: "FolioPluginTests",
      dependencies: ["FolioGraph", "FolioModel"],
      exclude: ["Library.xcdatamodeld"],
      plugins: ["FolioCodegenPlugin"]
    ),
    .testTarget(
      name: "FolioGraphTests",
      dependencies: [
        "Folio", "FolioGraph", "FolioXMLStore", "FolioBinaryStore", "FolioTestSupport",
        "FolioModel",
        "FolioQuery", "FolioStores", "FolioUndo",
      ]
    ),
    .testTarget(
      name: "FolioCLITests",
      dependencies: [
        "folio", "FolioTestSupport", "FolioModel", "FolioStores", "FolioXMLStore",
        "FolioBinaryStore", "FolioSQLiteStore", "Folio", "FolioPostgresStore",
      ],
      exclude: ["Snapshots", "Fixtures"]
    ),
    .testTarget(
      name: "FolioScriptTests",
      dependencies: ["FolioScript", "FolioTestSupport", "Folio", "FolioPostgresStore"],
      exclude: ["Fixtures"]
    ),
    .target(
      name: "FolioSoak",
      dependencies: ["Folio", "FolioScript", "FolioTestSupport", "FolioPostgresStore"],
      path: "Tests/FolioSoak"
    ),
    .testTarget(
      name: "FolioSoakTests",
      dependencies: ["FolioSoak", "Folio", "FolioTestSupport", "FolioPostgresStore"]
    ),
    .executableTarget(
      name: "FolioSoakRunner",
      dependencies: [
        "FolioSoak", "Folio", "FolioScript", "FolioTestSupport", "FolioPostgresStore",
      ],
      path: "Tests/FolioSoakRunner"
    ),
    // Fuzzing (`make fuzz`, RELIABILITY.md): one executable per parser. The normal build makes
    // them input reproducers; the fuzz build (-sanitize=fuzzer -D FOLIO_FUZZING) makes them
    // libFuzzer binaries.
    .systemLibrary(
      name: "CLibFuzzer",
      path: "Fuzz/CLibFuzzer"
    ),
    .target(
      name: "FolioFuzzing",
      dependencies: [
        "FolioModel", "FolioStores", "FolioXMLStore", "FolioBinaryStore", "FolioSQLiteStore",
        "FolioQuery", "FolioMigration", "FolioScript", "CZlib", "CSQLite", "CLibFuzzer", "Folio",
      ],
      path: "Fuzz/Sources/FolioFuzzing"
    ),
  ]
    + fuzzTargets.map { name in
      .executableTarget(name: name, dependencies: ["FolioFuzzing"], path: "Fuzz/Sources/\(name)")
    },
  swiftLanguageModes: [.v6]
)

// `make test-asan-unsafe` sets FOLIO_TEST_SUBSET to the test targets it runs, so its build
// leaves out the other test targets and the executables it never runs (benchmarks, samples,
// the soak runner, and `folio` unless the CLI's tests are among them).
if let subset = Context.environment["FOLIO_TEST_SUBSET"] {
  let kept = Set(subset.split(separator: ",").map(String.init))
  var unused: Set<String> = ["FolioBenchmarks", "ExpensesSample", "CompanySample", "TripsSample"]
  if !kept.contains("FolioSoakTests") { unused.formUnion(["FolioSoak", "FolioSoakRunner"]) }
  if !kept.contains("FolioCLITests") { unused.insert("folio") }
  if !kept.contains("FolioDataTests") { unused.formUnion(["FolioData", "FolioDataMacros"]) }
  package.targets.removeAll { target in
    (target.type == .test && !kept.contains(target.name)) || unused.contains(target.name)
  }
  package.products.removeAll { unused.contains($0.name) }
}
