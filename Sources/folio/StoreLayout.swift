import Folio
import Foundation

/// The size of a store's file and, for a binary store, its sections with their compression,
/// for a SQLite store its journal and persistent history: what `folio info` shows below the
/// format.
struct StoreLayout {
  var fileSize: Int?
  var sections: [BinaryStoreLayout.Section] = []
  var journal: SQLiteJournal?
  /// For a store that can keep persistent history, what it holds (`nil` inside: none kept).
  var history: PersistentHistorySummary??

  /// The layout of the store at `url`; `journal`, a SQLite store's journal as it was before
  /// the command opened the store (opening one in WAL mode makes a `-wal` file beside it).
  init(url: URL, format: any StoreFormat, journal: SQLiteJournal? = nil) throws {
    self.journal = journal
    if let tracking = format as? any HistoryTrackingStoreFormat {
      history = .some(try tracking.historySummary(at: url))
    }
    if url.isFileURL {
      fileSize = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int
    }
    if let sectionsOf = FormatRegistry.entry(for: format)?.sections {
      sections = try sectionsOf(url)
    }
  }

  /// What `info` prints after `Persistent history:`.
  static func text(_ history: PersistentHistorySummary?) -> String {
    guard let history else { return "off (folio history FILE --enable turns it on)" }
    guard let first = history.first, let last = history.last else {
      return "on, no transactions"
    }
    let count = history.transactionCount
    if count == 1 { return "on, 1 transaction (\(first.transactionNumber))" }
    return "on, \(count) transactions (\(first.transactionNumber) to \(last.transactionNumber))"
  }

  /// How many times smaller the stored bytes are than the content, `12.3:1`.
  static func ratio(_ section: BinaryStoreLayout.Section) -> String {
    String(format: "%.1f:1", Double(section.length) / Double(max(section.storedLength, 1)))
  }

  /// The lines `info` prints.
  var lines: [String] {
    var lines: [String] = []
    if let fileSize { lines.append("File size: \(fileSize) bytes") }
    if let journal { lines.append("Journal: \(journal.text)") }
    if let history { lines.append("Persistent history: \(Self.text(history))") }
    if !sections.isEmpty {
      lines.append("Sections:")
      for section in sections {
        var line = "  \(section.name): \(section.storedLength) bytes at offset \(section.offset)"
        if section.isDeflated {
          line += ", \(section.length) inflated (\(Self.ratio(section)))"
        }
        lines.append(line)
      }
    }
    return lines
  }

  /// The JSON members `info --json` adds: `"fileSize"`, `"journal"` and `"history"` for a
  /// SQLite store and `"sections"` for a binary store.
  var json: String {
    var members: [String] = []
    if let fileSize { members.append("\"fileSize\":\(fileSize)") }
    if let journal { members.append("\"journal\":\(journal.json)") }
    if let history {
      let summary = history.map { summary in
        let number = { (token: PersistentHistoryToken?) in
          token.map { "\($0.transactionNumber)" } ?? "null"
        }
        return "{\"transactions\":\(summary.transactionCount),"
          + "\"first\":\(number(summary.first)),\"last\":\(number(summary.last))}"
      }
      members.append("\"history\":\(summary ?? "null")")
    }
    if !sections.isEmpty {
      let items = sections.map {
        "{\"name\":\(ObjectJSON.string($0.name)),\"offset\":\($0.offset),"
          + "\"storedBytes\":\($0.storedLength),\"bytes\":\($0.length),"
          + "\"deflated\":\($0.isDeflated)}"
      }
      members.append("\"sections\":[\(items.joined(separator: ","))]")
    }
    return members.map { "," + $0 }.joined()
  }
}

/// A SQLite store's journal: WAL or a rollback journal, as bytes 18 and 19 of the file's
/// header say (2 for WAL), and in WAL mode the log beside the store, `NAME-wal`, which holds
/// every commit since the last checkpoint. A store copied without that file shows only what
/// was checkpointed into the main file.
struct SQLiteJournal: Equatable {
  var isWAL: Bool
  /// The log's name, `NAME-wal`.
  var walName: String
  /// The size of the log in bytes; `nil` when there is none beside the store.
  var walSize: Int?

  /// The journal of the SQLite file at `url`; `nil` when it is not one.
  init?(url: URL) {
    guard url.isFileURL, let handle = FileHandle(forReadingAtPath: url.path) else { return nil }
    defer { try? handle.close() }
    guard let header = try? handle.read(upToCount: 20), header.count == 20,
      header.prefix(16).elementsEqual("SQLite format 3\0".utf8)
    else { return nil }
    isWAL = header[18] == 2
    walName = url.lastPathComponent + "-wal"
    walSize =
      (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size]) as? Int
  }

  /// What `info` prints after `Journal:`.
  var text: String {
    guard isWAL else { return "rollback" }
    guard let walSize else { return "WAL, no \(walName) beside the store" }
    if walSize == 0 { return "WAL, \(walName) empty" }
    return "WAL, \(walName) of \(walSize) bytes beside the store"
  }

  /// The `"journal"` member of `info --json`.
  var json: String {
    guard isWAL else { return "{\"mode\":\"rollback\"}" }
    return "{\"mode\":\"wal\",\"walFileSize\":\(walSize.map { "\($0)" } ?? "null")}"
  }

  /// What `info` adds on standard error when a store in WAL mode with no log beside it (or an
  /// empty one, as reading such a copy leaves) shows no objects: the likeliest reason, a copy
  /// made without its log.
  func emptyStoreNote(file: String) -> String? {
    guard isWAL, (walSize ?? 0) == 0 else { return nil }
    return "folio: \(file): the store is in WAL mode and had no \(walName) beside it: a copy made "
      + "without that file holds only what was checkpointed into the main file. Copy "
      + "\(walName) with it if it had one"
  }
}
