import Foundation
import Testing

@testable import FolioModel

/// Writes an `.xcdatamodeld` bundle with the given versions (name → entity XML) and, when
/// `current` is given, an `.xccurrentversion` naming it.
func writeBundle(
  in folder: URL, name: String = "Library", versions: [String: String], current: String?
) throws -> URL {
  let bundle = folder.appendingPathComponent("\(name).xcdatamodeld", isDirectory: true)
  for (version, body) in versions {
    let versionFolder = bundle.appendingPathComponent("\(version).xcdatamodel", isDirectory: true)
    try FileManager.default.createDirectory(at: versionFolder, withIntermediateDirectories: true)
    try modelXML(body).write(to: versionFolder.appendingPathComponent("contents"))
  }
  if let current {
    let plist = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>
      \t<key>_XCCurrentVersionName</key>
      \t<string>\(current)</string>
      </dict>
      </plist>
      """
    try Data(plist.utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
  }
  return bundle
}

@Suite("Model bundles and paths")
struct ModelBundleTests {
  @Test("a bundle loads every version and picks the current one")
  func versions() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let bundle = try writeBundle(
      in: folder,
      versions: [
        "Library":
          #"<entity name="Book"><attribute name="title" attributeType="String"/></entity>"#,
        "Library 2":
          #"<entity name="Book"><attribute name="title" attributeType="String"/><attribute name="year" optional="YES" attributeType="Integer 16"/></entity>"#,
      ],
      current: "Library 2.xcdatamodel")
    let loaded = try ModelBundle(contentsOf: bundle)
    #expect(loaded.versions.map(\.name) == ["Library", "Library 2"])
    #expect(loaded.currentVersionName == "Library 2")
    #expect(loaded.currentModel.entity(named: "Book")?.attribute(named: "year") != nil)
    #expect(loaded.versions[0].model.versionHash != loaded.versions[1].model.versionHash)
    let model = try ManagedObjectModel(contentsOf: bundle)
    #expect(model.versionHash == loaded.currentModel.versionHash)
  }

  @Test("a single-version bundle needs no .xccurrentversion")
  func singleVersion() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let bundle = try writeBundle(
      in: folder, versions: ["Library": #"<entity name="Book"/>"#], current: nil)
    #expect(try ModelBundle(contentsOf: bundle).currentVersionName == "Library")
  }

  @Test("an .xcdatamodel folder and a bare contents file load the same model")
  func folderAndContents() throws {
    let bundle = Paths.sample("Expenses")
    let folder = bundle.appendingPathComponent("Expenses.xcdatamodel")
    let viaBundle = try ManagedObjectModel(contentsOf: bundle)
    let viaFolder = try ManagedObjectModel(contentsOf: folder)
    let viaFile = try ManagedObjectModel(contentsOf: folder.appendingPathComponent("contents"))
    #expect(viaBundle.versionHash == viaFolder.versionHash)
    #expect(viaFolder.versionHash == viaFile.versionHash)
  }

  @Test("several versions and no .xccurrentversion is an error")
  func ambiguous() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let bundle = try writeBundle(
      in: folder, versions: ["A": "", "B": ""], current: nil)
    let error = try #require(modelError { _ = try ModelBundle(contentsOf: bundle) })
    #expect(error.code == .noCurrentVersion)
    #expect(error.message == "the bundle has 2 versions and no .xccurrentversion to choose one")
    #expect(error.location?.file?.hasSuffix("Library.xcdatamodeld") == true)
  }

  @Test(".xccurrentversion naming a missing version is an error")
  func missingCurrent() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let bundle = try writeBundle(
      in: folder, versions: ["Library 2": ""], current: "Library 3.xcdatamodel")
    let error = try #require(modelError { _ = try ModelBundle(contentsOf: bundle) })
    #expect(error.code == .noCurrentVersion)
    #expect(
      error.message
        == ".xccurrentversion names \"Library 3.xcdatamodel\", which is not in the bundle (did you mean \"Library 2.xcdatamodel\"?)"
    )
  }

  @Test("an error in one version names that version's file and line")
  func brokenVersion() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let bundle = try writeBundle(
      in: folder,
      versions: ["Library": "", "Library 2": #"<entity name="Book" parentEntity="Missing"/>"#],
      current: "Library.xcdatamodel")
    let error = try #require(modelError { _ = try ModelBundle(contentsOf: bundle) })
    #expect(error.code == .unknownParentEntity)
    #expect(
      error.location?.file?.hasSuffix("Library.xcdatamodeld/Library 2.xcdatamodel/contents") == true
    )
    #expect(error.location?.line == 3)
    #expect(error.location?.entity == "Book")
  }

  @Test("a path that does not exist is a fileNotFound error")
  func missingPath() throws {
    let error = try #require(
      modelError {
        _ = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "/nonexistent/M.xcdatamodeld"))
      })
    #expect(error.code == .fileNotFound)
    #expect(
      error.description
        == "/nonexistent/M.xcdatamodeld: no such file or folder")
  }

  @Test("an .xcdatamodel folder without contents is a fileNotFound error")
  func emptyVersionFolder() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let version = folder.appendingPathComponent("M.xcdatamodel", isDirectory: true)
    try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
    let error = try #require(modelError { _ = try ManagedObjectModel(contentsOf: version) })
    #expect(error.code == .fileNotFound)
    #expect(error.location?.file?.hasSuffix("M.xcdatamodel/contents") == true)
  }
}
