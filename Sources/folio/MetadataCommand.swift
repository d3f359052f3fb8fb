import ArgumentParser
import Folio
import Foundation

/// `folio metadata FILE [--set KEY=VALUE]… [--remove KEY]…`: a store's metadata, shown or
/// changed without loading its objects.
struct MetadataCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "metadata",
    abstract: "Show a store's metadata, or change its user metadata without loading its objects.",
    discussion: """
      Without options, prints the store's UUID, type, model version identifiers and user \
      metadata. --set and --remove change the user metadata in place: the file is rewritten \
      atomically, its objects copied as they are (never parsed or decoded); a PostgreSQL \
      document's metadata row is rewritten in one transaction. Values given with \
      --set are strings. Keys that describe the objects (NSStoreModelVersionHashes and the \
      other NSStore… keys, Folio's checksum) cannot be set or removed.

      Examples:
        folio metadata Samples/Expenses/Expenses.xml
        folio metadata Samples/Expenses/Expenses.xml --set author=Ada --set draft=yes
        folio metadata Samples/Expenses/Expenses.xml --remove draft
      """)

  @Argument(
    help: """
      A store file: a Core Data SQLite or XML store, or a .folio binary store; or a \
      PostgreSQL document's URL, postgresql://USER@HOST:PORT/DATABASE?schema=NAME.
      """,
    completion: Completions.metadataStore)
  var file: String

  @Option(
    name: .customLong("set"), help: "Set user metadata KEY to the string VALUE.",
    completion: Completions.typed)
  var assignments: [String] = []

  @Option(
    name: .customLong("remove"), help: "Remove user metadata KEY.",
    completion: Completions.metadataKey)
  var removals: [String] = []

  @OptionGroup var output: TextOrJSON

  /// Whether to print JSON: `--format json` or `--json`.
  var json: Bool { output.json }

  /// Keys the store keeps for itself.
  static func isReserved(_ key: String) -> Bool {
    key.hasPrefix("NSStore") || key == "NSPersistenceFrameworkVersion"
      || key == StoreMetadata.folioChecksumKey
  }

  func validate() throws {
    try StoreArgument.check(file)
  }

  func run() throws {
    let url = try StoreArgument.url(file)
    let format = try PersistentStoreCoordinator.format(of: url, among: storeFormats)
    var metadata = try format.readMetadata(from: url)
    if !assignments.isEmpty || !removals.isEmpty {
      for assignment in assignments {
        guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
          throw ValidationError("--set takes KEY=VALUE, not \"\(assignment)\"")
        }
        let key = String(assignment[..<equals])
        try checkWritable(key)
        metadata.userInfo[key] = .string(String(assignment[assignment.index(after: equals)...]))
      }
      for key in removals {
        try checkWritable(key)
        guard metadata.userInfo.removeValue(forKey: key) != nil else {
          throw CommandFailure(
            "\(file): the store has no metadata key \"\(key)\" to remove (nothing was written)")
        }
      }
      try format.writeMetadata(metadata, to: url)
      metadata = try format.readMetadata(from: url)
    }
    if json {
      try printJSON(metadata, format: format)
    } else {
      printText(metadata, format: format)
    }
  }

  private func checkWritable(_ key: String) throws {
    guard !key.isEmpty else { throw ArgumentValueError("a metadata key cannot be empty") }
    guard !Self.isReserved(key) else {
      throw CommandFailure("\"\(key)\" describes the store's objects and cannot be changed")
    }
  }

  /// The user metadata: everything but the keys the store keeps for itself.
  private func userMetadata(_ metadata: StoreMetadata) -> [(String, PropertyListValue)] {
    metadata.userInfo.filter { !Self.isReserved($0.key) }.sorted { $0.key < $1.key }
  }

  private func printText(_ metadata: StoreMetadata, format: any StoreFormat) {
    print("\(StoreArgument.isServerURL(file) ? "Document" : "File"): \(file)")
    print("Format: \(format.typeName)")
    print("Store UUID: \(metadata.identifier)")
    // Core Data records an empty identifier for a model that names none: nothing to show.
    let identifiers = metadata.modelVersionIdentifiers.filter { !$0.isEmpty }
    if !identifiers.isEmpty {
      print("Model version identifiers: \(identifiers.joined(separator: ", "))")
    }
    let user = userMetadata(metadata)
    print(user.isEmpty ? "User metadata: none" : "User metadata:")
    for (key, value) in user { print("  \(key) = \(Self.text(value))") }
  }

  private func printJSON(_ metadata: StoreMetadata, format: any StoreFormat) throws {
    var user: [String: Any] = [:]
    for (key, value) in userMetadata(metadata) { user[key] = Self.jsonValue(value) }
    let object: [String: Any] = [
      "file": file, "format": format.typeName, "storeUUID": metadata.identifier,
      "modelVersionIdentifiers": metadata.modelVersionIdentifiers, "userMetadata": user,
    ]
    let data = try JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    print(String(decoding: data, as: UTF8.self))
  }

  /// A property-list value as one line of text: strings quoted, data as its size.
  static func text(_ value: PropertyListValue) -> String {
    switch value {
    case .string(let string): return "\"\(string.replacingOccurrences(of: "\"", with: "\\\""))\""
    case .integer(let number): return String(number)
    case .real(let number): return number.description
    case .boolean(let flag): return flag ? "true" : "false"
    case .date(let date): return ISO8601DateFormatter().string(from: date)
    case .data(let data): return "<\(data.count) bytes>"
    case .array(let items): return "[" + items.map(text).joined(separator: ", ") + "]"
    case .dictionary(let entries):
      return "{"
        + entries.sorted { $0.key < $1.key }.map { "\($0.key): \(text($0.value))" }
        .joined(separator: ", ") + "}"
    }
  }

  static func jsonValue(_ value: PropertyListValue) -> Any {
    switch value {
    case .string(let string): return string
    case .integer(let number): return number
    case .real(let number): return number
    case .boolean(let flag): return flag
    case .date(let date): return ISO8601DateFormatter().string(from: date)
    case .data(let data): return data.base64EncodedString()
    case .array(let items): return items.map(jsonValue)
    case .dictionary(let entries): return entries.mapValues(jsonValue)
    }
  }
}
