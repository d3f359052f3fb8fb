import FolioBinaryStore
import FolioModel
import FolioStores
import FolioTestSupport
import FolioXMLStore
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Kills `folio convert` at chosen points while it writes (`FOLIO_TEST_KILL_AFTER_BYTES`, which
/// makes the process send itself `SIGKILL` once its save has written that many bytes), and
/// checks the file it was replacing is always either the old store or the whole new one.
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

  /// Runs `folio` with `arguments`, killed after `killAfter` bytes of its save when given;
  /// returns how it ended.
  func runFolio(_ arguments: [String], killAfter: Int?) throws -> (
    status: Int32, killed: Bool
  ) {
    let child = Process()
    child.executableURL = productsDirectory.appendingPathComponent("folio")
    child.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["FOLIO_TEST_KILL_AFTER_BYTES"] = killAfter.map(String.init)
    child.environment = environment
    child.standardOutput = FileHandle.nullDevice
    child.standardError = FileHandle.nullDevice
    try child.run()
    child.waitUntilExit()
    return (child.terminationStatus, child.terminationReason == .uncaughtSignal)
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
    let new = store(people: 300, tag: "new")
    try format.write(old, model: model, to: target)
    try format.write(new, model: model, to: source)
    let oldBytes = try Data(contentsOf: target)
    let newBytes = try Data(contentsOf: source)
    let convert = ["convert", source.path, target.path, "--model", Self.expenses.path]
    // The first byte, each sixteenth of the file, its last byte; then no kill at all.
    let points = [1] + (1..<16).map { newBytes.count * $0 / 16 } + [newBytes.count]
    for point in points {
      try oldBytes.write(to: target)
      let result = try runFolio(convert, killAfter: point)
      #expect(result.killed && result.status == SIGKILL, "killed after \(point) bytes")
      #expect(try Data(contentsOf: target) == oldBytes, "killed after \(point) bytes")
      #expect(try format.read(from: target, model: model).records.count == old.records.count)
    }
    let result = try runFolio(convert, killAfter: nil)
    #expect(!result.killed && result.status == 0)
    #expect(try Data(contentsOf: target) == newBytes)
  }

  @Test("the temporary file of a save killed before its rename is removed by the next save")
  func killedSaveLeftoverRemoved() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = try ManagedObjectModel(contentsOf: Self.expenses)
    let target = folder.appendingPathComponent("document.xml")
    let source = folder.appendingPathComponent("source.xml")
    try XMLStore().write(store(people: 3, tag: "old"), model: model, to: target)
    try XMLStore().write(store(people: 500, tag: "new"), model: model, to: source)
    let convert = ["convert", source.path, target.path, "--model", Self.expenses.path]
    func temporaries() throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
        $0.hasSuffix(".tmp")
      }
    }
    let killed = try runFolio(convert, killAfter: 10_000)
    #expect(killed.killed)
    #expect(try temporaries().count == 1)
    let result = try runFolio(convert, killAfter: nil)
    #expect(result.status == 0)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        == ["document.xml", "source.xml"])
    #expect(try XMLStore().read(from: target, model: model).records.count == 500 * 11)
  }
}
