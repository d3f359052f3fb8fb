// swift-tools-version: 6.1
import PackageDescription

/// A web editor that embeds Folio: its own package, so that Folio's users do not build
/// Hummingbird. `make editor-demo` runs it on a copy of the Expenses sample.
let package = Package(
  name: "FolioEditor",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "folio-editor", targets: ["FolioEditor"])
  ],
  dependencies: [
    .package(name: "Folio", path: "../.."),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
  ],
  targets: [
    .target(
      name: "EditorCore",
      dependencies: [
        .product(name: "Folio", package: "Folio"),
        .product(name: "FolioScript", package: "Folio"),
        .product(name: "FolioPostgresStore", package: "Folio"),
      ]
    ),
    .executableTarget(
      name: "FolioEditor",
      dependencies: [
        "EditorCore",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      resources: [.copy("Resources/index.html")]
    ),
    .testTarget(
      name: "EditorCoreTests",
      dependencies: ["EditorCore"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
