import FolioTestSupport
import Foundation
import Testing

@testable import FolioModel

/// Paths and helpers shared by the model tests.
enum Paths {
  /// The package's root folder.
  static let packageRoot = FolioTestSupport.packageRoot

  /// A file in `Tests/FolioModelTests/Fixtures`.
  static func fixture(_ name: String) -> URL {
    packageRoot.appendingPathComponent("Tests/FolioModelTests/Fixtures/\(name)")
  }

  /// `../shared/corpus/models` beside the package, or `nil` when it is not there.
  static var corpusModels: URL? {
    let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/models")
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
  }

  /// A sample bundle: `Samples/NAME/NAME.xcdatamodeld`.
  static func sample(_ name: String) -> URL {
    packageRoot.appendingPathComponent("Samples/\(name)/\(name).xcdatamodeld")
  }
}

/// A fresh temporary folder, removed by the caller.
func temporaryFolder() throws -> URL { try makeTemporaryFolder() }

/// Wraps entity XML in a `<model>` element, as an Xcode `contents` file.
func modelXML(_ body: String) -> Data {
  Data(
    """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22757" systemVersion="23C71" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
    \(body)
    </model>
    """.utf8)
}

/// Reads model XML from a string; errors name `contents`.
func readModel(_ body: String, strict: Bool = false) throws -> ManagedObjectModel {
  try ManagedObjectModel(
    xcodeModelData: modelXML(body), path: "contents", options: ModelLoadingOptions(isStrict: strict)
  )
}

/// The `ModelError` that `body` throws, or `nil` when it throws none.
func modelError(_ body: () throws -> Void) -> ModelError? {
  do {
    try body()
    return nil
  } catch let error as ModelError {
    return error
  } catch {
    Issue.record("expected a ModelError, got \(error)")
    return nil
  }
}
