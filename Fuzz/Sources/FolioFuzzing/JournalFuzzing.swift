import Folio
import FolioStores
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Taking another writer's saves in from an XML store's change journal (`Formats/
/// shared-writers.md` §2e): any bytes, read as the journal's entries, each a UInt32 length and
/// that many bytes of payload. The harness makes each entry whole (the length after it, the
/// checksum), and points the entries, in order, from the file a fresh document of
/// `Fuzz/Seeds/xml-store/everything.xml` read to the file on disk, under that store's
/// identifier: what the input decides is what the entries hold.
///
/// The document then merges. It takes the entries in or, when they do not read, hold what the
/// model cannot, or cannot be placed, reads the whole file, which is good: the merge must not
/// fail, and the graph's invariants must hold after it.
package enum JournalFuzzing: FuzzTarget {
  nonisolated(unsafe) static var store = ScratchFile("journal.xml")
  nonisolated(unsafe) static var turns: Int = 0

  package static func prepare() {
    let seed = FixedModels.root.appendingPathComponent("Fuzz/Seeds/xml-store/everything.xml")
    guard let bytes = FileManager.default.contents(atPath: seed.path) else {
      preconditionFailure("the seed store \(seed.path) is missing")
    }
    store.write(bytes)
    run(Data())
  }

  package static func run(_ input: Data) {
    let document: Document
    do {
      document = try Document.open(
        store.url, model: FixedModels.all[3], formats: [XMLStore()], eventLoop: ManualEventLoop())
    } catch {
      preconditionFailure("the seed store does not open: \(error)")
    }
    guard let known = FileStamp(of: store.url),
      let identifier = document.coordinator
        .persistentStores.first?.metadata.identifier
    else { preconditionFailure("the seed store has no stamp") }
    // Another file on disk: the same bytes, another modification time.
    turns += 1
    var times = [
      timespec(tv_sec: 1_000_000_000 + turns, tv_nsec: 0),
      timespec(tv_sec: 1_000_000_000 + turns, tv_nsec: 0),
    ]
    guard utimensat(AT_FDCWD, store.url.path, &times, 0) == 0,
      let current = FileStamp(of: store.url)
    else { preconditionFailure("cannot touch the seed store") }
    let journal =
      ChangeJournal.header + frames(of: [UInt8](input), from: known, to: current, identifier)
    do {
      try Data(journal).write(to: URL(fileURLWithPath: try ChangeJournal.path(for: store.url)))
      _ = try document.mergeChangesFromOtherWriters()
    } catch {
      preconditionFailure("a merge from a journal failed: \(error)")
    }
    PasteboardFuzzing.check(document.context, "after a merge from the journal")
    if ProcessInfo.processInfo.environment["FOLIO_FUZZ_VERBOSE"] == "1" {
      let road = document.coordinator.takeInsFromJournal == 1 ? "from the journal" : "whole"
      print("taken in \(road)")
    }
  }

  /// The input's entries as whole frames, chained from `known` to `current` and naming the
  /// store `identifier`.
  static func frames(
    of input: [UInt8], from known: FileStamp, to current: FileStamp, _ identifier: String
  ) -> [UInt8] {
    var payloads: [[UInt8]] = []
    var offset = 0
    while offset + 4 <= input.count {
      let length = input[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
      let start = offset + 4
      let end = min(input.count, start + length)
      payloads.append(Array(input[start..<end]))
      offset = end
    }
    var bytes: [UInt8] = []
    for (index, payload) in payloads.enumerated() {
      let from =
        index == 0 ? known : FileStamp(inode: 1, size: Int64(index), seconds: 0, nanoseconds: 0)
      let to =
        index == payloads.count - 1
        ? current : FileStamp(inode: 1, size: Int64(index + 1), seconds: 0, nanoseconds: 0)
      // Past the stamps, the identifier's string: its length, then its bytes.
      let rest = payload.dropFirst(64)
      let named = rest.count >= 4 ? rest.prefix(4).reversed().reduce(0) { $0 << 8 | Int($1) } : 0
      bytes += ChangeJournal.frame(
        from: from, to: to, identifier: identifier,
        rest: rest.dropFirst(4 + min(named, max(rest.count - 4, 0))))
    }
    return bytes
  }

  /// Entries that Folio's saves of the seed store write: a value of every type set on a new
  /// object, an object's relationships changed, an object deleted, several saves in a row.
  package static func seeds() -> [(name: String, data: Data)] {
    prepare()
    var seeds: [(name: String, data: Data)] = []
    func saved(_ name: String, _ change: (ManagedObjectContext) throws -> Void) {
      let copy = ScratchFile("journal-seed.xml")
      copy.write(FileManager.default.contents(atPath: store.url.path) ?? Data())
      do {
        let path = try ChangeJournal.path(for: copy.url)
        try? FileManager.default.removeItem(atPath: path)
        let document = try Document.open(
          copy.url, model: FixedModels.all[3], formats: [XMLStore()], eventLoop: ManualEventLoop())
        try change(document.context)
        try document.save()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The entries without the header, each its length and payload, as the input has them.
        var input: [UInt8] = []
        var offset = ChangeJournal.header.count
        while offset + 4 <= bytes.count {
          let length = bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
          // A barrier (two stamps and an empty identifier) is the write's, not the save's.
          if length != 68 { input += bytes[offset..<offset + 4 + length] }
          offset += 4 + length + 12
        }
        seeds.append((name: "\(name).entries", data: Data(input)))
      } catch {
        preconditionFailure("the seed \(name) does not save: \(error)")
      }
    }
    saved("insert") { context in
      let object = try context.insertNewObject(forEntityName: "Everything")
      for (key, value) in [
        ("string", "héllo" as Any), ("int16", 7), ("int64", Int.min), ("double", 2.5),
        ("float", Float(1.5)), ("boolean", true), ("decimal", Decimal(string: "1.25") as Any),
        ("date", Date(timeIntervalSinceReferenceDate: 1)), ("binary", Data([0, 1])),
        ("uuid", UUID()), ("uri", URL(string: "https://example.com/") as Any),
      ] {
        try object.setValue(value, forKey: key)
      }
    }
    saved("relink") { context in
      for entity in ["Person", "Tag"] {
        if let object = try context.objects(ofEntity: entity).first {
          try object.setValue(nil, forKey: entity == "Person" ? "name" : "label")
        }
      }
      let tag = try context.insertNewObject(forEntityName: "Tag")
      try tag.setValue("new", forKey: "label")
      if let person = try context.objects(ofEntity: "Person").first {
        try tag.setValue(Set([person]), forKey: "people")
        for thing in try context.objects(ofEntity: "Everything") {
          try thing.setValue(person, forKey: "owner")
        }
      }
    }
    saved("delete") { context in
      if let object = try context.objects(ofEntity: "Everything").first {
        try context.delete(object)
      }
    }
    return seeds
  }
}
