import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Atomic files: symbolic links")
struct AtomicFileLinkTests {
  /// A symbolic link's path under a test's root folder and what it holds, `ROOT` standing for
  /// the root folder's path.
  typealias Link = (path: String, destination: String)

  /// Links to a document; the save is through the first link.
  struct Chain: CustomTestStringConvertible, Sendable {
    var testDescription: String
    var links: [Link]
    /// The document the last link names, under the root folder.
    var document: String
  }

  static let chains = [
    Chain(
      testDescription: "a link in another folder than its target",
      links: [("links/doc.xml", "ROOT/documents/doc.xml")], document: "documents/doc.xml"),
    Chain(
      testDescription: "a relative link",
      links: [("links/doc.xml", "../documents/doc.xml")], document: "documents/doc.xml"),
    Chain(
      testDescription: "a chain of two links, relative then absolute",
      links: [
        ("links/doc.xml", "../middle/step.xml"), ("middle/step.xml", "ROOT/documents/doc.xml"),
      ],
      document: "documents/doc.xml"),
  ]

  /// Links that lead to no file a save can write, the save being through the first, and the
  /// error's message, `ROOT` standing for the root folder's path.
  static let failures: [(id: String, links: [Link], message: String)] = [
    (
      "a link into a folder that does not exist", [("doc.xml", "ROOT/missing/doc.xml")],
      "cannot create a temporary file in ROOT/missing (No such file or directory)"
    ),
    (
      "links that go round", [("a.xml", "b.xml"), ("b.xml", "a.xml")],
      "cannot follow the file's symbolic links (Too many levels of symbolic links)"
    ),
  ]

  /// Makes `links` under `root`, and the folders they are in.
  private func make(_ links: [Link], under root: URL) throws {
    for link in links {
      let url = root.appendingPathComponent(link.path)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: url.path,
        withDestinationPath: link.destination.replacingOccurrences(of: "ROOT", with: root.path))
    }
  }

  /// Every file and link under `root`, as paths relative to it, sorted.
  private func files(under root: URL) throws -> [String] {
    try FileManager.default.subpathsOfDirectory(atPath: root.path).filter { path in
      var status = stat()
      return lstat(root.appendingPathComponent(path).path, &status) == 0
        && status.st_mode & S_IFMT != S_IFDIR
    }.sorted()
  }

  @Test("a save through links writes their target and keeps each link", arguments: chains)
  func writesThroughLinks(_ chain: Chain) throws {
    let root = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: root) }
    let document = root.appendingPathComponent(chain.document)
    try FileManager.default.createDirectory(
      at: document.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("old".utf8).write(to: document)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: document.path)
    try make(chain.links, under: root)
    let before = try files(under: root)
    try AtomicFile.write(
      Data("new content".utf8), to: root.appendingPathComponent(chain.links[0].path))
    #expect(try String(contentsOf: document, encoding: .utf8) == "new content")
    let permissions = try FileManager.default.attributesOfItem(atPath: document.path)[
      .posixPermissions]
    #expect(permissions as? Int == 0o600)
    for (path, destination) in chain.links {
      let kept = try FileManager.default.destinationOfSymbolicLink(
        atPath: root.appendingPathComponent(path).path)
      #expect(kept == destination.replacingOccurrences(of: "ROOT", with: root.path))
    }
    #expect(try files(under: root) == before)
  }

  @Test("a link to a file that does not exist yet creates the file and stays a link")
  func danglingLinkCreatesTarget() throws {
    let root = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: root) }
    try make([("doc.xml", "new.xml")], under: root)
    let link = root.appendingPathComponent("doc.xml")
    try AtomicFile.write(Data("first".utf8), to: link)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "new.xml")
    let created = root.appendingPathComponent("new.xml")
    #expect(try String(contentsOf: created, encoding: .utf8) == "first")
    #expect(try files(under: root) == ["doc.xml", "new.xml"])
  }

  @Test(
    "links that lead to no file a save can write are a writeFailed error at the first link",
    arguments: failures)
  func unwritableLinks(_ id: String, _ links: [Link], _ message: String) throws {
    let root = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: root) }
    try make(links, under: root)
    let link = root.appendingPathComponent(links[0].path)
    let error = try #require(throws: StoreError.self) {
      try AtomicFile.write(Data("x".utf8), to: link)
    }
    #expect(error.code == .writeFailed)
    #expect(error.location?.file == link.path)
    #expect(error.message == message.replacingOccurrences(of: "ROOT", with: root.path), "\(id)")
    #expect(try files(under: root) == links.map(\.path).sorted())
  }
}
