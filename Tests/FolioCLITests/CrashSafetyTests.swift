import FolioModel
import FolioStores
import FolioTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Kills `folio convert` at many points while it writes, and checks the file it was replacing
/// is always either the old store or the whole new one.
@Suite("Crash safety")
struct CrashSafetyTests {
  static let expenses = packageRoot.appendingPathComponent(
    "Samples/Expenses/Expenses.xcdatamodeld")

  /// An Expenses store of `people` people with ten spendings each.
  func store(people: Int, tag: String) -> StoreContents {
    var records: [StoreRecord] = []
    var id: Int64 = 1
    for person in 0..<people {
      let personID = id
      id += 1
      var spendings: [Int64] = []
      for spending in 0..<10 {
        records.append(
          StoreRecord(
            entityName: "Spending", id: id,
            attributes: [
              "content": .string("\(tag) spending \(spending) of person \(person)"),
              "amount": .double(Double(spending) + 0.25),
            ],
            relationships: ["person": [personID]]))
        spendings.append(id)
        id += 1
      }
      records.append(
        StoreRecord(
          entityName: "Person", id: personID, attributes: ["name": .string("\(tag) \(person)")],
          relationships: ["spendings": spendings]))
    }
    return StoreContents(metadata: StoreMetadata(storeType: "Test"), records: records)
  }

  @Test(
    "a save killed at any point leaves the old file or the whole new one",
    arguments: ["xml", "folio"])
  func killMidSave(fileExtension: String) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try ManagedObjectModel(contentsOf: Self.expenses)
    let format: any StoreFormat = fileExtension == "xml" ? XMLStore() : BinaryStore()
    let target = folder.appendingPathComponent("document.\(fileExtension)")
    let source = folder.appendingPathComponent("source.\(fileExtension)")
    let old = store(people: 3, tag: "old")
    // About 3 MB of XML (1.5 MB binary): long enough to be killed at random points while it
    // is written, short enough for twelve conversions under AddressSanitizer.
    let new = store(people: 3_000, tag: "new")
    try format.write(old, model: model, to: target)
    try format.write(new, model: model, to: source)
    let oldBytes = try Data(contentsOf: target)
    let newSize = try Data(contentsOf: source).count
    var generator = SystemRandomNumberGenerator()
    var outcomes = (old: 0, new: 0)
    for attempt in 0..<12 {
      try oldBytes.write(to: target)
      // Kill once the temporary file holds a random share of the new file's bytes.
      let threshold = Int.random(in: 1..<max(2, newSize), using: &generator)
      let child = Process()
      child.executableURL = productsDirectory.appendingPathComponent("folio")
      child.arguments = ["convert", source.path, target.path, "--model", Self.expenses.path]
      child.standardOutput = FileHandle.nullDevice
      child.standardError = FileHandle.nullDevice
      try child.run()
      let deadline = Date().addingTimeInterval(20)
      while child.isRunning, Date() < deadline {
        let written =
          (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?
          .filter { $0.hasSuffix(".tmp") }
          .compactMap { name in
            (try? FileManager.default.attributesOfItem(
              atPath: folder.appendingPathComponent(name).path))?[.size] as? Int
          }.max() ?? 0
        if written >= threshold || attempt % 4 == 3 && written > 0 {
          kill(child.processIdentifier, SIGKILL)
          break
        }
        usleep(200)
      }
      child.waitUntilExit()
      let contents = try format.read(from: target, model: model)
      if try Data(contentsOf: target) == oldBytes {
        outcomes.old += 1
        #expect(contents.records.count == old.records.count)
      } else {
        outcomes.new += 1
        #expect(contents.records.count == new.records.count, "attempt \(attempt): a partial file")
      }
    }
    #expect(outcomes.old + outcomes.new == 12)
    #expect(outcomes.old > 0, "no kill landed before the rename")
  }

  @Test("the temporary file of a save killed before its rename is removed by the next save")
  func killedSaveLeftoverRemoved() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try ManagedObjectModel(contentsOf: Self.expenses)
    let target = folder.appendingPathComponent("document.xml")
    let source = folder.appendingPathComponent("source.xml")
    try XMLStore().write(store(people: 3, tag: "old"), model: model, to: target)
    try XMLStore().write(store(people: 5_000, tag: "new"), model: model, to: source)
    let convert = ["convert", source.path, target.path, "--model", Self.expenses.path]
    func temporaries() throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
        $0.hasSuffix(".tmp")
      }
    }
    // Kill a save once its temporary file has bytes; if the kill comes after the rename,
    // nothing is left, and another save is killed.
    var left: [String] = []
    for _ in 0..<5 where left.isEmpty {
      let child = Process()
      child.executableURL = productsDirectory.appendingPathComponent("folio")
      child.arguments = convert
      child.standardOutput = FileHandle.nullDevice
      child.standardError = FileHandle.nullDevice
      try child.run()
      let deadline = Date().addingTimeInterval(20)
      while child.isRunning, Date() < deadline {
        let sizes = try temporaries().compactMap { name in
          (try? FileManager.default.attributesOfItem(
            atPath: folder.appendingPathComponent(name).path))?[.size] as? Int
        }
        if sizes.contains(where: { $0 > 0 }) {
          kill(child.processIdentifier, SIGKILL)
          break
        }
        usleep(200)
      }
      child.waitUntilExit()
      left = try temporaries()
    }
    try #require(left.count == 1, "no kill landed before the rename")
    let result = try run(productsDirectory.appendingPathComponent("folio"), convert)
    #expect(result.status == 0, "\(result.standardError)")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        == ["document.xml", "source.xml"])
    #expect(try XMLStore().read(from: target, model: model).records.count == 5_000 * 11)
  }
}
