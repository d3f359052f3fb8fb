import ArgumentParser
import Folio
internal import FolioSupport
import Foundation

/// `folio query FILE ENTITY`: objects of a store that match a predicate, as a table.
struct QueryCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "query",
    abstract: "Fetch objects of an entity from a store, filtered and sorted, as a table.",
    discussion: """
      The predicate is Core Data's format syntax (Formats/predicate-format.md). Dates are \
      written @YYYY-MM-DD (midnight UTC) or @YYYY-MM-DDTHH:MM:SSZ, with a fraction of a second \
      and an offset such as +02:00 allowed: date >= @2024-05-01T12:30:00Z. --format chooses \
      the output: a table (newlines and tabs in values shown as \\n and \\t, wide characters \
      taking two columns), \
      CSV (RFC 4180), TSV (tabs, newlines and backslashes escaped as \\t, \\n, \\\\), JSON \
      ({"objects": [...]}, values typed as in dump --json, objects by URI) or JSON Lines. \
      Objects come in the order of their IDs, and so do ties of --sort. A query that reads \
      only the entity's stored attributes is answered as the store is read, keeping only the \
      matches; one that follows relationships loads the whole store first. Example:
        folio query Samples/Expenses/Expenses.xml Spending --where "amount > 10" \\
          --sort amount:desc --keys content,amount,person.name --format csv

      A key may be an expression (amount * 2, uppercase:(content)), named NAME=EXPRESSION. \
      --group-by makes one row per group of equal values, holding the grouped keys and \
      aggregates over the group: sum:, count:, min:, max:, average:, median:, mode:, stddev:. \
      Aggregates without --group-by make one row of every match. --having keeps the groups \
      whose row it holds for; --sort orders the rows by their keys' names. JSON output holds \
      {"groups": [...]}. Example:
        folio query Samples/Expenses/Expenses.xml Spending \\
          --group-by person.name --keys 'person.name,total=sum:(amount)' \\
          --having 'total > 20' --sort total:desc

      \(progressHelp)
      """)

  @OptionGroup var store: StoreOptions

  @Argument(
    help: "The entity to fetch (its subentities' objects included).",
    completion: Completions.queryEntity)
  var entity: String

  @Option(
    name: .customLong("where"),
    help: "A predicate, e.g. \"name BEGINSWITH[c] 'a'\" or \"date > @2024-05-01\".",
    completion: Completions.typed)
  var predicate: String?

  @Option(
    help: ArgumentHelp(
      "A key path to sort by, KEY, KEY:asc or KEY:desc; repeat for several levels.",
      valueName: "key[:asc|:desc]"),
    completion: Completions.typed, transform: SortKey.init(argument:))
  var sort: [SortKey] = []

  @Option(
    parsing: .unconditional,
    help: "The most objects to print; 0 prints them all (as Core Data's fetch limit 0).",
    completion: Completions.typed)
  var limit: Int?

  @Option(
    help: ArgumentHelp(
      "Comma-separated key paths or expressions to print, each perhaps named NAME=…"
        + " (default: the entity's attributes; with --group-by, the groups' keys and a count).",
      valueName: "key,…"),
    completion: Completions.typed)
  var keys: String?

  @Option(
    name: .customLong("group-by"),
    help: ArgumentHelp(
      "Comma-separated key paths (or expressions) whose equal values make one group: one row per"
        + " group, its --keys each grouped or an aggregate such as sum:(amount).",
      valueName: "key,…"),
    completion: Completions.typed)
  var groupBy: String?

  @Option(
    help: ArgumentHelp(
      "With --group-by, a predicate on each group's row, by the names of --keys:"
        + " \"total > 100\".",
      valueName: "predicate"),
    completion: Completions.typed)
  var having: String?

  @Option(
    help: "The output: table (or text), csv, tsv, json or jsonl.",
    completion: .list(QueryFormat.allCases.map(\.rawValue)))
  var format: QueryFormat = .table

  @Flag(help: "The same as --format json.")
  var json = false

  @Flag(help: "The same as --format jsonl.")
  var jsonl = false

  @Flag(
    help:
      "Fetch from the graph loaded into memory first, even when the records could answer as they are read: the same output, the slow way, for checking."
  )
  var load = false

  /// A `--sort` value: a key path, and `:asc` (the default) or `:desc`, also spelled out.
  struct SortKey {
    let keyPath: String
    let ascending: Bool

    init(argument: String) throws {
      let parts = argument.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      guard let key = parts.first, !key.isEmpty else {
        throw ValidationError("a key path is needed before the order")
      }
      keyPath = String(key)
      switch parts.count == 2 ? parts[1].lowercased() : "asc" {
      case "asc", "ascending": ascending = true
      case "desc", "descending": ascending = false
      case let other:
        throw ValidationError("the order after \":\" is asc or desc, not \"\(other)\"")
      }
    }
  }

  /// The ways `query` prints its rows.
  enum QueryFormat: String, ExpressibleByArgument, CaseIterable {
    case table, text, csv, tsv, json, jsonl
  }

  func validate() throws {
    if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
    if having != nil, groupBy == nil { throw ValidationError("--having needs --group-by") }
    if json && jsonl { throw ValidationError("--json and --jsonl exclude each other") }
    for (flag, alias) in [(json, QueryFormat.json), (jsonl, .jsonl)]
    where flag && format != .table && format != alias {
      throw ValidationError(
        "--\(alias.rawValue) and --format \(format.rawValue) exclude each other")
    }
  }

  func run() throws {
    // The predicate and sort keys are checked before the store is read.
    var parsed: QueryPredicate?
    if let predicate {
      do {
        parsed = try QueryPredicate(format: predicate)
      } catch {
        throw ArgumentValueError("--where \"\(predicate)\": \(error.description)")
      }
    }
    let descriptors = sort.map { QuerySortDescriptor(keyPath: $0.keyPath, ascending: $0.ascending) }
    var properties = try keys.map { text throws in try Self.properties(text, option: "--keys") }
    let grouping = try groupBy.map { text throws in try Self.properties(text, option: "--group-by")
    }
    var havingPredicate: QueryPredicate?
    if let having {
      do {
        havingPredicate = try QueryPredicate(format: having)
      } catch {
        throw ArgumentValueError("--having \"\(having)\": \(error.description)")
      }
    }
    if let grouping, properties == nil {
      properties =
        grouping + [
          FetchProperty(name: "count", expression: .function("count:", [.evaluatedObject]))
        ]
    }
    let progress = try store.progress()
    defer { progress.finish() }
    let source = try store.open(progress: progress)
    if grouping != nil || properties?.contains(where: \.isAggregate) == true {
      let rows = try groupRows(
        source, predicate: parsed, descriptors: descriptors, properties: properties ?? [],
        grouping: grouping, having: havingPredicate, progress: progress)
      progress.finish()
      printRows(rows, columns: (properties ?? []).map(\.name), noun: "group")
      return
    }
    let columns =
      properties.map { $0.map(\.name) }
      ?? (source.model.entity(named: entity)?.allAttributes.map(\.name) ?? [])
    let expressions = properties.map { $0.map(\.expression) } ?? columns.map { .keyPath($0) }
    // Objects come in the order of their IDs, sorted or not: ties in ID order. A query of
    // stored attributes alone is answered from the records as they are read.
    var answered: [[Any?]]?
    if !load, expressions.allSatisfy({ if case .keyPath = $0 { true } else { false } }),
      var query = RecordQuery(
        model: source.model, entity: entity, predicate: parsed,
        sortKeys: descriptors.map(\.keyPath), columns: columns)
    {
      try store.read(source, into: &query, progress: progress)
      if !query.failed {
        answered = Self.rows(of: query.matches, by: descriptors, columns: columns.count)
      }
    }
    var rows =
      try answered
      ?? contextRows(
        source, predicate: parsed, descriptors: descriptors, expressions: expressions,
        progress: progress)
    if let limit, limit > 0, rows.count > limit { rows.removeLast(rows.count - limit) }
    progress.finish()
    printRows(rows, columns: columns)
  }

  /// The comma-separated keys of `text` (``FetchProperty/list(_:)``), or bad usage naming
  /// the column.
  static func properties(_ text: String, option: String) throws -> [FetchProperty] {
    do {
      return try FetchProperty.list(text)
    } catch {
      throw ArgumentValueError("\(option) \"\(text)\": \(error.description)")
    }
  }

  /// The rows of a grouped or aggregate query: one per group, fetched as dictionaries from a
  /// context holding the store.
  private func groupRows(
    _ source: StoreOptions.Source, predicate: QueryPredicate?,
    descriptors: [QuerySortDescriptor], properties: [FetchProperty], grouping: [FetchProperty]?,
    having: QueryPredicate?, progress: ProgressReporter
  ) throws -> [[Any?]] {
    let context = try store.loadContext(source, progress: progress)
    var request = FetchRequest<[String: Any]>(entityName: entity)
    request.predicate = predicate
    request.sortDescriptors = descriptors
    request.propertiesToFetch = properties
    request.propertiesToGroupBy = grouping
    request.havingPredicate = having
    request.fetchLimit = limit ?? 0
    progress.begin(.init(name: "grouping \(entity)"))
    return try context.fetch(request).map { row in
      properties.map { Self.named(row[$0.name]) }
    }
  }

  /// The rows of the records `matches` (their IDs, the values of `columns` columns, then of
  /// each descriptor's key), in ID order sorted by `descriptors`; `nil` when two values have
  /// no order (a context then reports it, as a fetch does).
  static func rows(
    of matches: [(id: Int64, values: [AttributeValue?])], by descriptors: [QuerySortDescriptor],
    columns: Int
  ) -> [[Any?]]? {
    var ordered = matches.sorted { $0.id < $1.id }
    if !descriptors.isEmpty {
      // Stable: ties keep their ID order.
      guard
        let sorted = try? ordered.sorted(
          by: descriptors, key: { match, index in match.values[columns + index]?.readerValue })
      else { return nil }
      ordered = sorted
    }
    return ordered.map { match in match.values.prefix(columns).map { $0?.readerValue } }
  }

  /// The rows of the objects the query matches, fetched from a context holding the store.
  private func contextRows(
    _ source: StoreOptions.Source, predicate: QueryPredicate?,
    descriptors: [QuerySortDescriptor], expressions: [QueryExpression], progress: ProgressReporter
  ) throws -> [[Any?]] {
    let context = try store.loadContext(source, progress: progress)
    var request = FetchRequest(entityName: entity)
    request.predicate = predicate
    request.sortDescriptors = descriptors
    progress.begin(.init(name: "fetching \(entity)"))
    var objects = try context.fetch(request)
    // The fetch leaves ties in the context's order: they go in ID order.
    func id(_ object: ManagedObject) -> Int64 { object.objectID.primaryKey ?? 0 }
    var start = 0
    while start < objects.count {
      var end = start + 1
      while end < objects.count,
        try descriptors.allSatisfy({
          try $0.compare(objects[end - 1], objects[end]) == .orderedSame
        })
      {
        end += 1
      }
      if end - start > 1 { objects[start..<end].sort { id($0) < id($1) } }
      start = end
    }
    // Objects are named now, while the context that holds them is there.
    return try objects.map { object in
      try expressions.map { expression in
        guard case .keyPath(let path) = expression else {
          do throws(QueryError) {
            return Self.named(try expression.value(with: object))
          } catch {
            throw GraphError(
              .invalidPredicate, "\(expression): \(error.message)",
              at: InputLocation(entity: object.entityName), underlying: error)
          }
        }
        return Self.named(try object.value(forKeyPath: path))
      }
    }
  }

  /// An object in a printed row: its entity, key and URI, taken from its context.
  struct NamedObject {
    let entity: String
    let key: Int64
    let uri: String
  }

  /// `value` with each object in it replaced by its ``NamedObject``; an unordered to-many's
  /// objects in ID order, as `dump` lists them.
  static func named(_ value: Any?) -> Any? {
    func name(_ object: ManagedObject) -> NamedObject {
      NamedObject(
        entity: object.entityName, key: StoreKeySpace.key(of: object.objectID.primaryKey ?? 0),
        uri: object.objectID.uriRepresentation.absoluteString)
    }
    switch value {
    case let object as ManagedObject: return name(object)
    case let objects as Set<ManagedObject>:
      return objects.map(name).sorted { ($0.entity, $0.key) < ($1.entity, $1.key) }
    case let list as [Any]: return list.map { named($0) as Any }
    default: return value
    }
  }

  /// Prints `values`, a row per object, in the chosen format.
  private func printRows(_ values: [[Any?]], columns: [String], noun: String = "object") {
    let output: QueryFormat = json ? .json : jsonl ? .jsonl : format == .text ? .table : format
    switch output {
    case .json, .jsonl:
      let lines = values.map { row in
        "{"
          + zip(columns, row).map { ObjectJSON.string($0) + ":" + Self.json(of: $1) }
          .joined(separator: ",") + "}"
      }
      if output == .jsonl {
        for line in lines { print(line) }
      } else {
        print("{\"\(noun)s\":[")
        for (index, line) in lines.enumerated() {
          print(line + (index < lines.count - 1 ? "," : ""))
        }
        print("]}")
      }
    case .csv:
      for row in [columns] + values.map({ $0.map(Self.cell) }) {
        print(row.map(Quoting.csvField).joined(separator: ","), terminator: "\r\n")
      }
    case .tsv:
      for row in [columns] + values.map({ $0.map(Self.cell) }) {
        print(row.map(Quoting.tsvField).joined(separator: "\t"))
      }
    case .table, .text:
      let rows = values.map { $0.map { Self.visible(Self.text(of: $0)) } }
      let widths = columns.indices.map { index in
        max(Self.width(of: columns[index]), rows.map { Self.width(of: $0[index]) }.max() ?? 0)
      }
      func line(_ cells: [String]) -> String {
        zip(cells, widths).map { cell, width in
          cell + String(repeating: " ", count: max(width - Self.width(of: cell), 0))
        }
        .joined(separator: "  ").replacingOccurrences(
          of: "\\s+$", with: "", options: .regularExpression)
      }
      print(line(columns))
      print(line(widths.map { String(repeating: "-", count: $0) }))
      for row in rows { print(line(row)) }
      print("(\(rows.count) \(noun)\(rows.count == 1 ? "" : "s"))")
    }
  }

  /// A value for CSV and TSV: empty for nil, as text otherwise.
  static func cell(_ value: Any?) -> String { value == nil ? "" : text(of: value) }

  /// Text for a table cell: line breaks and tabs shown as escapes, so each row is one line.
  static func visible(_ text: String) -> String {
    text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
      .replacingOccurrences(of: "\t", with: "\\t")
  }

  /// The columns `text` takes on a terminal: East Asian wide and fullwidth characters two,
  /// combining marks and zero-width characters none, others one.
  static func width(of text: String) -> Int {
    var width = 0
    for scalar in text.unicodeScalars {
      let value = scalar.value
      switch scalar.properties.generalCategory {
      case .nonspacingMark, .enclosingMark, .format: continue
      default: break
      }
      let wide =
        (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value)
        || (0xAC00...0xD7A3).contains(value) || (0xF900...0xFAFF).contains(value)
        || (0xFE30...0xFE4F).contains(value) || (0xFF00...0xFF60).contains(value)
        || (0xFFE0...0xFFE6).contains(value) || (0x1F300...0x1F64F).contains(value)
        || (0x1F900...0x1F9FF).contains(value) || (0x20000...0x3FFFD).contains(value)
      width += wide ? 2 : 1
    }
    return width
  }

  /// A key path's value as JSON: attribute values as `dump --json` types them, objects by
  /// their URI, collections as arrays, nil as null.
  static func json(of value: Any?) -> String {
    switch value {
    case nil, is NSNull: return "null"
    case let value as AttributeValue: return ObjectJSON.value(value)
    case let text as String: return ObjectJSON.string(text)
    case let flag as Bool: return flag ? "true" : "false"
    case let number as Int: return "\(number)"
    case let number as Int64: return "\(number)"
    case let number as Int32: return "\(number)"
    case let number as Int16: return "\(number)"
    case let number as Double: return ObjectJSON.value(.double(number))
    case let number as Float: return ObjectJSON.value(.float(number))
    case let number as Decimal: return ObjectJSON.value(.decimal(number))
    case let date as Date: return ObjectJSON.value(.date(date))
    case let data as Data: return ObjectJSON.value(.binaryData(data))
    case let uuid as UUID: return ObjectJSON.value(.uuid(uuid))
    case let url as URL: return ObjectJSON.string(url.absoluteString)
    case let object as NamedObject: return ObjectJSON.string(object.uri)
    case let objects as [Any]:
      return "[" + objects.map { json(of: $0) }.joined(separator: ",") + "]"
    case let value?: return ObjectJSON.string("\(value)")
    }
  }

  static func text(of value: Any?) -> String {
    switch value {
    case nil: return "nil"
    case let text as String: return text
    case let date as Date: return ObjectJSON.iso8601(date)
    case let object as NamedObject: return "\(object.entity)#\(object.key)"
    case let objects as [Any]:
      return "[" + objects.map { text(of: $0) }.joined(separator: ", ") + "]"
    case let value?: return "\(value)"
    }
  }
}
