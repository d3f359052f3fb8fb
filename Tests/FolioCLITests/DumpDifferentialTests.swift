import Folio
import FolioTestSupport
import Foundation
import Testing

/// `folio dump` prints objects as the store's reader hands them over; `dump --load` prints the
/// graph a context loaded from the same store: the slow twin. Both must show every object the
/// same, relationships complete on both sides, in every output, on every store.
@Suite("folio dump streamed and loaded")
struct DumpDifferentialTests {
  /// `text`'s objects, one string each, sorted: the streamed dump prints objects in the
  /// store's order and the loaded one in the graph's, and nothing else may differ.
  static func objects(_ text: String, jsonLines: Bool) -> [String] {
    if jsonLines { return text.split(separator: "\n").map(String.init).sorted() }
    var blocks: [String] = []
    let body = text.hasSuffix("\n") ? text.dropLast() : Substring(text)
    for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
      let isHeader = line.wholeMatch(of: /[A-Za-z_][A-Za-z0-9_]*#[0-9]+/) != nil
      if isHeader || blocks.isEmpty { blocks.append("") }
      blocks[blocks.count - 1] += line + "\n"
    }
    return blocks.sorted()
  }

  /// Runs both dumps of `arguments` (a store and its options) in each output and compares them.
  static func compare(
    _ arguments: [String], _ label: String, outputs: [[String]] = [["--jsonl"], [], ["--json"]]
  ) throws {
    for output in outputs {
      let streamed = try run(folio, ["dump"] + output + arguments)
      let loaded = try run(folio, ["dump", "--load"] + output + arguments)
      #expect(streamed.status == 0, "\(label) \(output): \(streamed.standardError)")
      #expect(loaded.status == streamed.status, "\(label) \(output)")
      #expect(loaded.standardError == streamed.standardError, "\(label) \(output)")
      if output == ["--json"] {
        // One object a line between the store's header and the closing bracket.
        let strip = { (text: String) in
          Self.objects(
            text.split(separator: "\n").dropFirst().dropLast().map {
              $0.hasSuffix(",") ? String($0.dropLast()) : String($0)
            }.joined(separator: "\n"), jsonLines: true)
        }
        #expect(strip(streamed.standardOutput) == strip(loaded.standardOutput), "\(label)")
      } else {
        let a = Self.objects(streamed.standardOutput, jsonLines: !output.isEmpty)
        let b = Self.objects(loaded.standardOutput, jsonLines: !output.isEmpty)
        #expect(a.count == b.count, "\(label) \(output)")
        let differing = zip(a, b).first { $0 != $1 }
        #expect(
          differing == nil, "\(label) \(output): \(differing.map { "\($0)\n≠\n\($1)" } ?? "")")
      }
    }
  }

  @Test(
    "every corpus SQLite store dumps the same streamed and loaded, with its model and without",
    arguments: SQLiteCorpus.available)
  func corpus(store: SQLiteCorpus.Store) throws {
    let url = try SQLiteCorpus.copy(of: store)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let external = ["--allow-missing-external-data"]
    try Self.compare([url.path] + external, "\(store) (cached model)")
    let bundle = SQLiteCorpus.root.appendingPathComponent(store.bundleFolder)
      .appendingPathComponent(store.bundle)
    // `--json` prints what `--jsonl` does, framed: the other stores check the frame.
    try Self.compare(
      [url.path, "--model", bundle.path] + external, "\(store) (bundle)",
      outputs: [["--jsonl"], []])
  }

  @Test("the XML stores dump the same streamed and loaded")
  func xmlStores() throws {
    var stores: [[String]] = [
      ["Samples/Expenses/Expenses.xml", "--model", "Samples/Expenses/Expenses.xcdatamodeld"],
      ["Samples/Library/Library.xml", "--model", "Samples/Library/Library.xcdatamodeld"],
      ["Samples/Expenses/Expenses.xml"],
    ]
    stores.append([
      "Fuzz/Seeds/xml-store/everything.xml", "--model", "Fuzz/Seeds/Everything.xcdatamodel",
    ])
    stores.append([
      "Fuzz/Seeds/xml-store/company.xml", "--model", "Samples/Company/Company.xcdatamodeld",
    ])
    stores.append([
      "Fuzz/Seeds/xml-store/messaging.xml", "--model", "Samples/Messaging/Messaging.xcdatamodeld",
    ])
    stores.append(["Fuzz/Seeds/xml-store/messaging.xml"])
    for store in stores { try Self.compare(store, store.joined(separator: " ")) }
  }

  /// The folder of the corpus's XML stores, which Core Data and other apps wrote.
  static let xmlCorpus = packageRoot.appendingPathComponent("../shared/corpus/stores")

  /// The names of the corpus's XML stores; none without `../shared/corpus`.
  static var xmlCorpusNames: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: xmlCorpus.path)) ?? []
    return names.sorted()
  }

  @Test(
    "every corpus XML store dumps the same streamed and loaded, with the model inferred from it",
    arguments: xmlCorpusNames)
  func xmlCorpusStores(name: String) throws {
    let url = Self.xmlCorpus.appendingPathComponent(name)
    try Self.compare(
      [url.path, "--drop-dangling-references", "--allow-missing-external-data"], name,
      outputs: [["--jsonl"], []])
  }
}

/// Random stores of a model with every kind of relationship, in each format.
extension DumpDifferentialTests {
  /// One-to-one, one-to-many unordered and ordered, many-to-many unordered, ordered on one
  /// side, and its own inverse, into an entity with subentities and from a subentity.
  static let everyKind = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
      <entity name="Node" representedClassName="Node">
        <attribute name="label" optional="YES" attributeType="String"/>
        <relationship name="partner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Card" inverseName="holder" inverseEntity="Card"/>
        <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="owner" inverseEntity="Item"/>
        <relationship name="steps" optional="YES" toMany="YES" deletionRule="Nullify" ordered="YES" destinationEntity="Item" inverseName="stepOf" inverseEntity="Item"/>
        <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="nodes" inverseEntity="Tag"/>
        <relationship name="playlist" optional="YES" toMany="YES" deletionRule="Nullify" ordered="YES" destinationEntity="Tag" inverseName="lists" inverseEntity="Tag"/>
        <relationship name="friends" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Node" inverseName="friends" inverseEntity="Node"/>
      </entity>
      <entity name="Special" representedClassName="Special" parentEntity="Node">
        <attribute name="level" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
        <relationship name="extras" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="extraOf" inverseEntity="Item"/>
      </entity>
      <entity name="Card" representedClassName="Card">
        <attribute name="number" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
        <relationship name="holder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Node" inverseName="partner" inverseEntity="Node"/>
      </entity>
      <entity name="Item" representedClassName="Item">
        <attribute name="name" optional="YES" attributeType="String"/>
        <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Node" inverseName="items" inverseEntity="Node"/>
        <relationship name="stepOf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Node" inverseName="steps" inverseEntity="Node"/>
        <relationship name="extraOf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Special" inverseName="extras" inverseEntity="Special"/>
      </entity>
      <entity name="Tag" representedClassName="Tag">
        <attribute name="name" optional="YES" attributeType="String"/>
        <relationship name="nodes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Node" inverseName="tags" inverseEntity="Node"/>
        <relationship name="lists" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Node" inverseName="playlist" inverseEntity="Node"/>
      </entity>
    </model>
    """

  /// Writes `everyKind` as `Every.xcdatamodel` in `folder` and returns its URL.
  static func everyKindModel(in folder: URL) throws -> URL {
    let modelFolder = folder.appendingPathComponent("Every.xcdatamodel")
    try FileManager.default.createDirectory(at: modelFolder, withIntermediateDirectories: true)
    try Self.everyKind.write(
      to: modelFolder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
    return modelFolder
  }

  /// Adds `target` to `object`'s to-many relationship `key`, ordered or not.
  static func add(_ target: ManagedObject, to key: String, of object: ManagedObject) throws {
    let now = try object.value(forKey: key)
    if let list = now as? [ManagedObject] {
      if !list.contains(target) { try object.setValue(list + [target], forKey: key) }
    } else {
      try object.setValue((now as? Set<ManagedObject> ?? []).union([target]), forKey: key)
    }
  }

  /// A random graph of `everyKind`'s entities.
  static func randomDocument(_ model: ManagedObjectModel, seed: UInt64) throws -> Document {
    var random = SeededGenerator(seed: seed)
    let document = try Document(model: model)
    let context = document.context
    var nodes: [ManagedObject] = []
    var specials: [ManagedObject] = []
    var cards: [ManagedObject] = []
    var items: [ManagedObject] = []
    var tags: [ManagedObject] = []
    for index in 0..<40 {
      switch Int.random(in: 0..<5, using: &random) {
      case 0:
        let node = try context.insertNewObject(forEntityName: "Node")
        try node.setValue("n\(index)", forKey: "label")
        nodes.append(node)
      case 1:
        let special = try context.insertNewObject(forEntityName: "Special")
        try special.setValue(Int64(index), forKey: "level")
        specials.append(special)
        nodes.append(special)
      case 2:
        let card = try context.insertNewObject(forEntityName: "Card")
        try card.setValue(Int64(index), forKey: "number")
        cards.append(card)
      case 3:
        let item = try context.insertNewObject(forEntityName: "Item")
        try item.setValue("i\(index)", forKey: "name")
        items.append(item)
      default:
        let tag = try context.insertNewObject(forEntityName: "Tag")
        try tag.setValue("t\(index)", forKey: "name")
        tags.append(tag)
      }
    }
    for _ in 0..<80 {
      guard let node = nodes.randomElement(using: &random) else { break }
      switch Int.random(in: 0..<7, using: &random) {
      case 0: try node.setValue(cards.randomElement(using: &random), forKey: "partner")
      case 1:
        try items.randomElement(using: &random)?.setValue(node, forKey: "owner")
      case 2:
        try items.randomElement(using: &random)?.setValue(node, forKey: "stepOf")
      case 3:
        if let tag = tags.randomElement(using: &random) {
          try Self.add(tag, to: "tags", of: node)
        }
      case 4:
        if let tag = tags.randomElement(using: &random) {
          try Self.add(tag, to: "playlist", of: node)
        }
      case 5:
        if let other = nodes.randomElement(using: &random) {
          try Self.add(other, to: "friends", of: node)
        }
      default:
        if let special = specials.randomElement(using: &random) {
          try items.randomElement(using: &random)?.setValue(special, forKey: "extraOf")
        }
      }
    }
    return document
  }

  @Test(
    "random stores with every kind of relationship dump the same streamed and loaded",
    arguments: [1, 2, 3] as [UInt64])
  func randomStores(seed: UInt64) throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let modelFolder = try Self.everyKindModel(in: folder)
    let model = try ManagedObjectModel(contentsOf: modelFolder)
    let document = try Self.randomDocument(model, seed: seed)
    let formats: [(String, any StoreFormat)] = [
      ("every.sqlite", SQLiteStore()), ("every.xml", XMLStore()), ("every.folio", BinaryStore()),
    ]
    for (name, format) in formats {
      let url = folder.appendingPathComponent(name)
      try document.save(to: url, format: format)
      try Self.compare([url.path, "--model", modelFolder.path], "seed \(seed) \(name)")
      if name.hasSuffix(".sqlite") {
        // The relationships of the streamed dump are all there: each pair seen from both ends.
        let dump = try run(folio, ["dump", "--jsonl", url.path, "--model", modelFolder.path])
        #expect(dump.standardOutput.contains("\"friends\":[\"x-coredata"), "seed \(seed)")
        #expect(dump.standardOutput.contains("\"items\":[\"x-coredata"), "seed \(seed)")
        #expect(dump.standardOutput.contains("\"nodes\":[\"x-coredata"), "seed \(seed)")
      }
    }
  }
}

/// What `query` prints of related objects names them as `dump` does.
extension DumpDifferentialTests {
  @Test("query names related objects by their IDs and URIs, as dump names them")
  func queryNamesObjects() throws {
    var cases: [(store: [String], entity: String, keys: String)] = [
      (["Samples/Expenses/Expenses.xml"], "Spending", "person"),
      (["Samples/Expenses/Expenses.xml"], "Person", "spendings"),
    ]
    let recipes = SQLiteCorpus.root.appendingPathComponent(
      "alhoqbani__AppleSample-iPhoneCoreDataRecipes__Recipes/Recipes.sqlite")
    if SQLiteCorpus.isPresent {
      cases.append(([recipes.path], "Recipe", "type"))
      cases.append(([recipes.path], "Recipe", "ingredients"))
    }
    for (store, entity, key) in cases {
      let dump = try run(folio, ["dump", "--jsonl"] + store)
      let uris = Set(
        dump.standardOutput.split(separator: "\n").compactMap { line in
          (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["uri"]
            as? String
        })
      let names = Set(
        try run(folio, ["dump"] + store).standardOutput.split(separator: "\n")
          .filter { $0.wholeMatch(of: /[A-Za-z_][A-Za-z0-9_]*#[0-9]+/) != nil }.map(String.init))
      let json = try run(folio, ["query"] + store + [entity, "--keys", key, "--format", "jsonl"])
      #expect(json.status == 0, "\(json.standardError)")
      var printed: [String] = []
      for line in json.standardOutput.split(separator: "\n") {
        let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        switch row?[key] {
        case let uri as String: printed.append(uri)
        case let list as [String]: printed += list
        default: continue
        }
      }
      #expect(!printed.isEmpty, "\(store) \(entity).\(key)")
      #expect(printed.allSatisfy(uris.contains), "\(store) \(entity).\(key): \(printed)")
      let table = try run(folio, ["query"] + store + [entity, "--keys", key])
      let shown = table.standardOutput.matches(of: /[A-Za-z_][A-Za-z0-9_]*#[0-9]+/).map {
        String($0.output)
      }
      #expect(!shown.isEmpty && shown.allSatisfy(names.contains), "\(store) \(entity).\(key)")
    }
  }
}
