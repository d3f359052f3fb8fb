import FolioTestSupport
import Foundation
import Testing

/// What `folio` writes respects what stands at the path: the store it reads is never its own
/// output.
@Suite("The file system respected")
struct FileSystemRespectTests {
  @Test(
    "convert refuses an output that is its input, by name, link or hard link, and writes nothing")
  func convertOntoItself() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("x.xml")
    try FileManager.default.copyItem(
      at: packageRoot.appendingPathComponent(StoreCommandTests.sample), to: store)
    try FileManager.default.createSymbolicLink(
      atPath: folder.appendingPathComponent("link.xml").path, withDestinationPath: "x.xml")
    try FileManager.default.linkItem(at: store, to: folder.appendingPathComponent("hard.xml"))
    let before = try Data(contentsOf: store)
    let stamp = try FileManager.default.attributesOfItem(atPath: store.path)[.modificationDate]
    for (input, output) in [
      ("x.xml", "x.xml"), ("x.xml", "./x.xml"), ("link.xml", "x.xml"), ("hard.xml", "x.xml"),
      ("x.xml", "link.xml"),
    ] {
      let result = try run(folio, ["convert", input, output], in: folder)
      #expect(result.status == 64, "\(input) → \(output)")
      #expect(result.standardError.contains("is the store being converted"), "\(input) → \(output)")
    }
    #expect(try Data(contentsOf: store) == before)
    #expect(
      try FileManager.default.attributesOfItem(atPath: store.path)[.modificationDate] as? Date
        == stamp as? Date)
    // Another file is written as ever.
    #expect(try run(folio, ["convert", "x.xml", "y.xml"], in: folder).status == 0)
  }

  static let model = "Samples/Expenses/Expenses.xcdatamodeld"

  /// The kind, mode, owner and group of the file at `path`, without following a last link.
  static func status(_ path: String) -> (kind: mode_t, mode: mode_t, owner: uid_t, group: gid_t) {
    var status = stat()
    guard lstat(path, &status) == 0 else { return (0, 0, 0, 0) }
    return (status.st_mode & S_IFMT, status.st_mode & 0o7777, status.st_uid, status.st_gid)
  }

  @Test(
    "--output writes into a FIFO and a character device as they stand, refuses a folder, and writes through a link"
  )
  func outputKinds() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    func graph(_ output: String) throws -> ProcessResult {
      try run(
        folio,
        [
          "model", "graph", packageRoot.appendingPathComponent(Self.model).path, "--output", output,
        ], in: folder)
    }
    // A FIFO, read as it is written.
    let fifo = folder.appendingPathComponent("graph.fifo").path
    #expect(mkfifo(fifo, 0o644) == 0)
    nonisolated(unsafe) var read = Data()
    let reader = Thread {
      read = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()
    }
    reader.start()
    #expect(try graph("graph.fifo").status == 0)
    // A FIFO replaced by a file leaves its reader waiting for a writer: wait 10 s at most.
    let deadline = Date().addingTimeInterval(10)
    while !reader.isFinished, Date() < deadline { usleep(1000) }
    #expect(reader.isFinished, "the FIFO was never written")
    #expect(String(decoding: read, as: UTF8.self).hasPrefix("digraph"))
    #expect(Self.status(fifo).kind == S_IFIFO)
    // A character device: one of this test's own, never a system one (Linux numbers: 1,3 is
    // the null device, 1,7 the full one).
    if geteuid() == 0 {
      let null = folder.appendingPathComponent("null").path
      let full = folder.appendingPathComponent("full").path
      #expect(mknod(null, S_IFCHR | 0o666, 0x103) == 0)
      #expect(mknod(full, S_IFCHR | 0o666, 0x107) == 0)
      #expect(try graph("null").status == 0)
      let failed = try graph("full")
      #expect(failed.status == 1)
      #expect(failed.standardError.contains("No space left on device"))
      #expect(Self.status(null).kind == S_IFCHR && Self.status(full).kind == S_IFCHR)
    }
    // A folder is refused; a link keeps being a link, its file written.
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("dir"), withIntermediateDirectories: false)
    let refused = try graph("dir")
    #expect(refused.status == 1)
    #expect(refused.standardError.contains("it is a folder"))
    try FileManager.default.createSymbolicLink(
      atPath: folder.appendingPathComponent("link.dot").path, withDestinationPath: "real.dot")
    #expect(try graph("link.dot").status == 0)
    #expect(Self.status(folder.appendingPathComponent("link.dot").path).kind == S_IFLNK)
    #expect(
      try String(contentsOf: folder.appendingPathComponent("real.dot"), encoding: .utf8)
        .hasPrefix("digraph"))
  }

  @Test(
    "a read-only store is refused by convert, metadata --set and a saving script, and stays as it was"
  )
  func readOnlyStores() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let sample = packageRoot.appendingPathComponent(StoreCommandTests.sample).path
    let model = packageRoot.appendingPathComponent(Self.model).path
    for name in ["ro.xml", "ro.sqlite", "ro.folio"] {
      let store = folder.appendingPathComponent(name).path
      #expect(try run(folio, ["convert", sample, store, "--model", model]).status == 0)
      #expect(chmod(store, 0o444) == 0)
      let before = try Data(contentsOf: URL(fileURLWithPath: store))
      let attempts: [[String]] = [
        ["convert", sample, store, "--model", model],
        ["metadata", store, "--set", "note=x"],
      ]
      for arguments in attempts {
        let result = try run(folio, arguments)
        #expect(result.status == 1, "\(name) \(arguments)")
        #expect(
          result.standardError.contains("Permission denied"),
          "\(name) \(arguments): \(result.standardError)")
      }
      let script = """
        model \(model)
        open \(store)
        insert Person $p name="Grace"
        save
        """
      let scriptURL = folder.appendingPathComponent("edit.undo")
      try script.write(to: scriptURL, atomically: true, encoding: .utf8)
      let replay = try run(folio, ["replay", scriptURL.path])
      #expect(replay.status != 0, "\(name)")
      #expect(
        replay.standardOutput.contains("Permission denied")
          || replay.standardError.contains("Permission denied"),
        "\(name): \(replay.standardOutput) \(replay.standardError)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before, "\(name)")
      #expect(Self.status(store).mode == 0o444, "\(name)")
    }
  }

  @Test(
    "a store written over keeps its mode, owner and group; a user who may not write it is refused")
  func ownershipKept() throws {
    guard geteuid() == 0 else { return }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(chmod(folder.path, 0o777) == 0)
    // The sample is copied where the other user can read it (the tree may be in a private
    // folder).
    let sample = folder.appendingPathComponent("sample.xml").path
    try FileManager.default.copyItem(
      atPath: packageRoot.appendingPathComponent(StoreCommandTests.sample).path, toPath: sample)
    #expect(chmod(sample, 0o644) == 0)
    let store = folder.appendingPathComponent("theirs.xml").path
    #expect(try run(folio, ["convert", sample, store]).status == 0)
    #expect(chown(store, 65534, 65534) == 0)
    #expect(chmod(store, 0o640) == 0)
    #expect(try run(folio, ["convert", sample, store]).status == 0)
    let after = Self.status(store)
    #expect(after.mode == 0o640 && after.owner == 65534 && after.group == 65534)
    // Another user, whom the folder lets make files but the file does not let write, is refused.
    #expect(chown(store, 0, 0) == 0)
    #expect(chmod(store, 0o644) == 0)
    let before = try Data(contentsOf: URL(fileURLWithPath: store))
    let other = try run(
      URL(fileURLWithPath: "/usr/bin/setpriv"),
      ["--reuid=65534", "--regid=65534", "--clear-groups", folio.path, "convert", sample, store])
    #expect(other.status == 1, "\(other.standardError)")
    #expect(other.standardError.contains("Permission denied"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    #expect(Self.status(store).owner == 0)
  }
}
