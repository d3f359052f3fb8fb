import ArgumentParser
import Folio
import Foundation

/// `folio dump FILE`: a store's graph as text or JSON.
struct DumpCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dump",
    abstract: "Print every object of a store, with its attributes and relationships.",
    discussion: """
      Objects are named by entity and store ID (Person#3). With --json or --jsonl, by their \
      URI (x-coredata://STORE-UUID/Person/p3), beside their entity and key; values are JSON \
      types, every attribute present (null where it has none), a to-one one URI or null, a \
      to-many an array. Formats/dump.schema.json describes the output.

      Objects are printed as they are read, in the store's order, so memory stays small \
      whatever the store's size; an object that refers to one further on whose entity has \
      subentities waits for it, and comes at the end. Every relationship is shown from both \
      ends, as a loaded graph has it; an unordered to-many lists its objects in ID order. \
      --load prints the same from the graph loaded first. Examples:
        folio dump Samples/Expenses/Expenses.xml
        folio dump --json Samples/Expenses/Expenses.xml \\
          --model Samples/Expenses/Expenses.xcdatamodeld
        folio dump --jsonl Samples/Expenses/Expenses.xml \\
          | jq 'select(.attributes.amount > 100)'

      \(progressHelp) The line is not drawn while standard output is the terminal too.
      """)

  @OptionGroup var store: StoreOptions

  @Option(
    help: """
      The output: text; json, one document: the store and its objects, one object a line; \
      or jsonl, one JSON object a line (JSON Lines), nothing else.
      """,
    completion: .list(["text", "json", "jsonl"]))
  var format: OutputFormat?

  @Flag(name: .customLong("json"), help: "The same as --format json.")
  var json = false

  @Flag(name: .customLong("jsonl"), help: "The same as --format jsonl.")
  var jsonl = false

  @Flag(
    help:
      "Load the whole store into memory first and print the loaded graph: the same output, the slow way, for checking."
  )
  var load = false

  func validate() throws {
    _ = try OutputFormat.chosen(format, json: json, jsonl: jsonl, allowed: OutputFormat.allCases)
  }

  func run() throws {
    let progress = try store.progress(standardOutputBusy: true)
    defer { progress.finish() }
    let source = try store.open(progress: progress)
    let mode: DumpPrinter.Mode =
      switch try OutputFormat.chosen(
        format, json: json, jsonl: jsonl, allowed: OutputFormat.allCases)
      {
      case .json: .json(format: source.format.typeName)
      case .jsonl: .jsonl
      case .text: .text
      }
    var printer = DumpPrinter(mode: mode, model: source.model)
    do {
      if load {
        try printLoaded(source, into: &printer, progress: progress)
      } else {
        try store.read(source, into: &printer, progress: progress)
      }
    } catch {
      // Output that cannot be written stops the reading; that is the error to show.
      if let failure = printer.failure { throw failure }
      throw error
    }
  }
}

extension DumpCommand {
  /// Hands `printer` the objects of a context that loaded `source`: the slow twin of the
  /// streamed dump, which must print the same.
  private func printLoaded(
    _ source: StoreOptions.Source, into printer: inout DumpPrinter, progress: ProgressReporter
  ) throws {
    let context = try store.loadContext(source, progress: progress)
    let records = context.persistentRecords()
    let metadata =
      context.persistentStoreCoordinator?.persistentStores.first?.metadata
      ?? StoreMetadata(storeType: "")
    printer.begin(
      metadata: metadata, nextObjectID: (records.map(\.id).max() ?? 0) + 1,
      recordCount: records.count)
    for record in records { try printer.consume(record) }
    try printer.finish()
  }
}

/// Prints records as they are read: the consumer `dump` hands a store's reader.
struct DumpPrinter: StoreRecordConsumer {
  enum Mode {
    case text, jsonl
    case json(format: String)
  }

  let mode: Mode
  let model: ManagedObjectModel
  private var out = OutputBytes()
  private var objectJSON: ObjectJSON?
  private var printed = 0
  /// The first failure to write; a consumer's errors are the store's, so it is kept here.
  private(set) var failure: OutputFailure?

  /// The entities with subentities: a reference to one of them needs its target's own entity.
  private let hierarchies: Set<String>
  /// The entities of such hierarchies: the ones with subentities and the ones with a parent.
  private let tracked: Set<String>
  /// The entity of each object read so far that belongs to such a hierarchy.
  private var entityOf: [Int64: String] = [:]
  /// Records that refer to an object of such a hierarchy not read yet, printed at the end.
  private var held: [StoreRecord] = []
  /// Each entity's relationships that lead into such a hierarchy.
  private var lookups: [String: [String]] = [:]
  /// Each relationship's destination, by entity and name.
  private var destinations: [String: [String: String]] = [:]
  /// Each entity's relationships, printed in name order, empty ones too.
  private var relationshipNames: [String: [String]] = [:]
  /// The to-one relationships, by entity: printed as the object, or nil, not as a list.
  private var toOnes: [String: Set<String>] = [:]
  /// The unordered to-many relationships, by entity: their members print in ID order.
  private var unordered: [String: Set<String>] = [:]
  /// Every relationship of each record, both sides of each pair, as the loaded graph has them.
  var wantsEveryRelationship: Bool { true }

  init(mode: Mode, model: ManagedObjectModel) {
    self.mode = mode
    self.model = model
    var parents: Set<String> = []
    for entity in model.entities {
      if let parent = entity.parentEntityName { parents.insert(parent) }
    }
    hierarchies = parents
    tracked = parents.union(model.entities.filter { $0.parentEntityName != nil }.map(\.name))
    for entity in model.entities {
      var byName: [String: String] = [:]
      for relationship in entity.allRelationships where !relationship.isTransient {
        byName[relationship.name] = relationship.destinationEntityName
        if relationship.isToMany, !relationship.isOrdered {
          unordered[entity.name, default: []].insert(relationship.name)
        }
        if !relationship.isToMany { toOnes[entity.name, default: []].insert(relationship.name) }
        relationshipNames[entity.name, default: []].append(relationship.name)
        if parents.contains(relationship.destinationEntityName) {
          lookups[entity.name, default: []].append(relationship.name)
        }
      }
      destinations[entity.name] = byName
    }
    relationshipNames = relationshipNames.mapValues { $0.sorted() }
  }

  mutating func begin(metadata: StoreMetadata, nextObjectID: Int64, recordCount: Int?) {
    objectJSON = ObjectJSON(storeIdentifier: metadata.identifier, model: model)
    if case .json(let format) = mode {
      out.append("{\"store\":{\"uuid\":")
      out.append(jsonString: metadata.identifier)
      out.append(",\"format\":")
      out.append(jsonString: format)
      out.append("},\"objects\":[")
    }
  }

  mutating func consume(_ record: StoreRecord) throws(StoreError) {
    guard failure == nil else {
      // Nothing more can be printed: stop reading.
      throw StoreError(.writeFailed, failure?.description ?? "", at: nil)
    }
    if isTracked(record.entityName) { entityOf[record.id] = record.entityName }
    if let names = lookups[record.entityName],
      names.contains(where: { name in
        (record.targets(of: name) ?? []).contains { entityOf[$0] == nil }
      })
    {
      held.append(record)
      return
    }
    print(record)
  }

  mutating func finish() throws(StoreError) {
    for record in held { print(record) }
    held = []
    if case .json = mode { out.append(printed > 0 ? "\n]}\n" : "]}\n") }
    flush(all: true)
    if let failure {
      throw StoreError(.writeFailed, failure.description, at: nil)
    }
  }

  private func isTracked(_ entity: String) -> Bool { tracked.contains(entity) }

  /// The entity of `target`, the object `relationship` of `entity` refers to.
  private func entity(of target: Int64, _ entity: String, _ relationship: String) -> String {
    let destination = destinations[entity]?[relationship] ?? "Unknown"
    return hierarchies.contains(destination) ? entityOf[target] ?? destination : destination
  }

  private mutating func print(_ record: StoreRecord) {
    switch mode {
    case .text: printText(record)
    case .json:
      out.append(printed == 0 ? "\n" : ",\n")
      writeJSON(record)
    case .jsonl:
      writeJSON(record)
      out.append("\n")
    }
    printed += 1
    flush(all: false)
  }

  private mutating func writeJSON(_ record: StoreRecord) {
    guard let objectJSON else { return }
    // References are named relationship by relationship, so the closure looks each up by the
    // relationship it is asked about.
    let names = destinations[record.entityName] ?? [:]
    var byTarget: [Int64: String] = [:]
    if lookups[record.entityName] != nil {
      for (name, targets) in record.relationships {
        for target in targets { byTarget[target] = entity(of: target, record.entityName, name) }
      }
    }
    objectJSON.write(
      record,
      entityOf: { target, relationship in
        byTarget[target] ?? names[relationship] ?? "Unknown"
      }, to: &out)
  }

  private mutating func printText(_ record: StoreRecord) {
    out.append(text: record.entityName)
    out.append("#")
    out.append(integer: StoreKeySpace.key(of: record.id))
    out.append("\n")
    var values: [(String, AttributeValue)] = []
    record.forEachAttribute { name, value in values.append((name, value)) }
    for (name, value) in values.sorted(by: { $0.0 < $1.0 }) {
      out.append(text: "  \(name) = \(DumpText.text(of: value))\n")
    }
    for name in relationshipNames[record.entityName] ?? record.relationships.keys.sorted() {
      var targets = record.targets(of: name) ?? []
      if unordered[record.entityName]?.contains(name) == true { targets.sort() }
      let shown = targets.map {
        "\(entity(of: $0, record.entityName, name))#\(StoreKeySpace.key(of: $0))"
      }
      if toOnes[record.entityName]?.contains(name) == true, shown.count <= 1 {
        out.append(text: "  \(name) = \(shown.first ?? "nil")\n")
      } else {
        out.append(text: "  \(name) = [\(shown.joined(separator: ", "))]\n")
      }
    }
  }

  private mutating func flush(all: Bool) {
    guard failure == nil else { return }
    do {
      if all { try out.write() } else { try out.writeIfFull() }
    } catch let error as OutputFailure {
      failure = error
    } catch {
      failure = OutputFailure(code: 5)
    }
  }
}
