import ArgumentParser
import Folio
import Foundation

/// `folio history FILE [--after N] [--enable] [--delete-through N]`: a SQLite store's
/// persistent history, listed, turned on, or deleted up to a transaction.
struct HistoryCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "history",
    abstract: "List a SQLite store's persistent history, turn it on, or delete its oldest part.",
    discussion: """
      A SQLite store that keeps persistent history (Core Data's NSPersistentHistoryTrackingKey) \
      records each save, Core Data's and Folio's alike, as a transaction: its number (the \
      history token), time, author, context and process, and the objects it inserted, \
      updated (with the properties changed) and deleted (with their tombstones). Without \
      options, prints the transactions after --after N, or every one, oldest first. \
      --enable makes Core Data's history tables in a store that has none, so that every save \
      from then on is recorded and other processes merge it by reading only what it changed; \
      Core Data then opens the store read-only unless the app asks for history too \
      (NSPersistentHistoryTrackingKey), so turn it on for a store that Folio alone writes, or \
      whose apps keep history. \
      --delete-through N deletes the transactions up to and including N, as Core Data's \
      deleteHistory(before:) does with N's token; listing after a transaction whose next \
      ones were deleted fails, as Core Data's expired history token does. Objects are never \
      changed. A store another program is saving is waited for, as a save waits. --json \
      prints the transactions as Formats/history.schema.json describes; with --enable or \
      --delete-through, one object naming the file and what was done.

      Examples:
        folio convert Samples/Expenses/Expenses.xml expenses.sqlite \\
          --model Samples/Expenses/Expenses.xcdatamodeld
        folio history expenses.sqlite --enable
        folio update expenses.sqlite --entity Spending --where "amount < 5" \\
          --set amount=5
        folio history expenses.sqlite
        folio history expenses.sqlite --after 0 --json
        folio history expenses.sqlite --delete-through 1
      """)

  @OptionGroup var store: StoreOptions

  @Option(
    help: ArgumentHelp(
      "List only the transactions after transaction N (a history token's number).",
      valueName: "n"),
    completion: Completions.typed)
  var after: Int64?

  @Flag(help: "Turn persistent history on: make Core Data's history tables in the store.")
  var enable = false

  @Option(
    name: .customLong("delete-through"),
    help: ArgumentHelp(
      "Delete the transactions up to and including transaction N (objects are kept).",
      valueName: "n"),
    completion: Completions.typed)
  var deleteThrough: Int64?

  @OptionGroup var output: TextOrJSON

  func validate() throws {
    let actions = [after != nil, enable, deleteThrough != nil].filter { $0 }.count
    guard actions <= 1 else {
      throw ValidationError("--after, --enable and --delete-through exclude each other")
    }
    if enable || deleteThrough != nil, store.file == "-" {
      throw ValidationError(
        "\(enable ? "--enable" : "--delete-through") changes a store file in place; it cannot read one from -"
      )
    }
    for (name, value) in [("--after", after), ("--delete-through", deleteThrough)] {
      if let value, value < 0 {
        throw ValidationError("\(name) takes a transaction number, 0 or more")
      }
    }
  }

  func run() throws {
    let url = try store.url()
    let format = try store.format(of: url)
    guard let tracking = format as? any HistoryTrackingStoreFormat else {
      throw CommandFailure(
        "\(store.file): \(format.typeName) stores keep no persistent history; only SQLite stores do (nothing was changed)"
      )
    }
    if enable { return try turnOn(tracking, at: url) }
    guard try tracking.tracksHistory(at: url) else {
      throw CommandFailure(
        "\(store.file): the store keeps no persistent history; turn it on with folio history \(store.file) --enable"
      )
    }
    if let deleteThrough {
      try tracking.deleteHistory(
        before: PersistentHistoryToken(transactionNumber: deleteThrough), at: url)
      if output.json {
        try BatchOptions.printJSON(["file": store.file, "deletedThrough": deleteThrough])
      } else {
        print("deleted the history through transaction \(deleteThrough)")
      }
      return
    }
    let (model, _, _) = try store.loadModel(for: url, format: format)
    let transactions = try tracking.fetchHistory(
      after: after.map { PersistentHistoryToken(transactionNumber: $0) }, from: url, model: model)
    if output.json {
      let identifier = try format.readMetadata(from: url).identifier
      print(HistoryText.json(transactions, file: store.file, storeIdentifier: identifier))
    } else if transactions.isEmpty {
      print(after.map { "no transactions after \($0)" } ?? "no transactions recorded")
    } else {
      for transaction in transactions { print(HistoryText.text(transaction)) }
    }
  }

  /// What `--enable` says on standard error: a Core Data app that does not ask for history
  /// cannot save the store from then on.
  static func coreDataNote(_ file: String) -> String {
    "folio: \(file): Core Data opens a store whose history was tracked read-only unless the app "
      + "asks for history too (NSPersistentHistoryTrackingKey): turn it on for a store that "
      + "Folio alone writes, or whose apps keep history"
  }

  /// Makes the history tables, with a tombstone column for each attribute the model keeps
  /// after deletion: a model inferred from the store would not say which.
  private func turnOn(_ tracking: any HistoryTrackingStoreFormat, at url: URL) throws {
    let wasOn = try tracking.tracksHistory(at: url)
    if !wasOn {
      let (model, _, inferred) = try store.loadModel(for: url, format: tracking)
      guard !inferred else {
        throw CommandFailure(
          "\(store.file): the store carries no model, and one inferred from it does not say which attributes keep their values in the history after deletion: pass --model with the model that wrote it (nothing was changed)"
        )
      }
      try tracking.enableHistoryTracking(at: url, model: model)
    }
    if output.json {
      try BatchOptions.printJSON(["file": store.file, "enabled": true, "wasEnabled": wasOn])
    } else {
      print(wasOn ? "persistent history was already on" : "persistent history is on")
    }
    if !wasOn { FileHandle.standardError.write(Data((Self.coreDataNote(store.file) + "\n").utf8)) }
  }
}

/// Transactions as `folio history` prints them.
enum HistoryText {
  /// A transaction on its first line, then each change on a line of its own:
  /// `insert Person p12`, `update Spending p7: amount, person`,
  /// `delete Spending p8; tombstone: content = "lunch"`.
  static func text(_ transaction: PersistentHistoryTransaction) -> String {
    var head = "transaction \(transaction.token.transactionNumber) at "
    head += ObjectJSON.iso8601(transaction.timestamp)
    let sides = [
      ("author", transaction.author), ("context", transaction.contextName),
      ("process", transaction.processID), ("bundle", transaction.bundleID),
    ]
    for case (let name, let value?) in sides { head += ", \(name) \(DumpText.quoted(value))" }
    var lines = [head]
    for change in transaction.changes {
      var line = "  \(typeName(change.changeType)) \(change.entityName) p\(key(change))"
      if let properties = change.updatedProperties {
        line +=
          ": " + (properties.isEmpty ? "no property" : properties.sorted().joined(separator: ", "))
      }
      if let tombstone = change.tombstone, !tombstone.isEmpty {
        line += "; tombstone: "
        line += tombstone.sorted { $0.key < $1.key }.map {
          "\($0.key) = \(DumpText.text(of: $0.value))"
        }
        .joined(separator: ", ")
      }
      lines.append(line)
    }
    return lines.joined(separator: "\n")
  }

  /// The transactions as one JSON object (`Formats/history.schema.json`).
  static func json(
    _ transactions: [PersistentHistoryTransaction], file: String, storeIdentifier: String
  ) -> String {
    func string(_ text: String?) -> String { text.map(ObjectJSON.string) ?? "null" }
    let items = transactions.map { transaction in
      let changes = transaction.changes.map { change in
        let properties =
          change.updatedProperties.map {
            "[" + $0.sorted().map(ObjectJSON.string).joined(separator: ",") + "]"
          }
          ?? "null"
        let tombstone =
          change.tombstone.map { values in
            "{"
              + values.sorted { $0.key < $1.key }.map {
                ObjectJSON.string($0.key) + ":" + ObjectJSON.value($0.value)
              }.joined(separator: ",") + "}"
          } ?? "null"
        let uri = "x-coredata://\(storeIdentifier)/\(change.entityName)/p\(key(change))"
        return """
          {"change":\(change.changeNumber),"type":"\(typeName(change.changeType))",\
          "entity":\(ObjectJSON.string(change.entityName)),"object":\(ObjectJSON.string(uri)),\
          "primaryKey":\(key(change)),"updatedProperties":\(properties),"tombstone":\(tombstone)}
          """
      }
      return """
        {"token":\(transaction.token.transactionNumber),\
        "timestamp":"\(ObjectJSON.iso8601(transaction.timestamp))",\
        "author":\(string(transaction.author)),"contextName":\(string(transaction.contextName)),\
        "processID":\(string(transaction.processID)),"bundleID":\(string(transaction.bundleID)),\
        "changes":[\(changes.joined(separator: ","))]}
        """
    }
    return """
      {"file":\(ObjectJSON.string(file)),"storeUUID":\(ObjectJSON.string(storeIdentifier)),\
      "transactions":[\(items.joined(separator: ","))]}
      """
  }

  static func typeName(_ type: PersistentHistoryChange.ChangeType) -> String {
    switch type {
    case .insert: "insert"
    case .update: "update"
    case .delete: "delete"
    }
  }

  /// The changed object's key within its entity's space, as its URI shows it.
  static func key(_ change: PersistentHistoryChange) -> Int64 {
    StoreKeySpace.key(of: change.objectID)
  }
}
