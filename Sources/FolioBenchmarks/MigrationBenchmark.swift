import Folio
import Foundation

/// Version 2 of the benchmark's Expenses model: `content` renamed `note`, a required
/// `currency` with a default, and people given an optional `email`.
func migratedExpensesModel() throws -> ManagedObjectModel {
  var note = AttributeDescription("note", .string)
  note.renamingIdentifier = "content"
  return try ManagedObjectModel {
    EntityDescription("Person") {
      AttributeDescription("name", .string, isOptional: false)
      AttributeDescription("email", .string)
      RelationshipDescription(
        "spendings", to: "Spending", inverse: "person", toMany: true, deleteRule: .cascade)
    }
    EntityDescription("Spending") {
      AttributeDescription("amount", .double, isOptional: false, defaultValue: .double(0))
      note
      AttributeDescription(
        "currency", .string, isOptional: false, defaultValue: .string("EUR"))
      AttributeDescription("date", .date)
      RelationshipDescription("person", to: "Person", inverse: "spendings")
    }
  }
}

/// `migration FORMAT:N`: a store of N objects migrated one inferred step, against reading it
/// and writing it again (what opening and saving it costs, as records).
func migrationBenchmark(_ argument: String) throws -> (String, [Case]) {
  let parts = argument.split(separator: ":").map(String.init)
  guard parts.count == 2, let count = Int(parts[1]) else {
    throw BenchmarkFailure("migration takes FORMAT:N")
  }
  let format = try storeFormat(named: parts[0])
  let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("folio-migration-\(ProcessInfo.processInfo.processIdentifier)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  // The bundle: version 1 and version 2.
  let bundleURL = folder.appendingPathComponent("Expenses.xcdatamodeld")
  for (name, model) in [
    ("Expenses 1", try documentExpensesModel()), ("Expenses 2", try migratedExpensesModel()),
  ] {
    let version = bundleURL.appendingPathComponent("\(name).xcdatamodel")
    try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
    try model.xcodeModelXML().write(
      to: version.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
  }
  try """
  <?xml version="1.0" encoding="UTF-8"?>
  <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Expenses 2.xcdatamodel</string></dict></plist>
  """.write(
    to: bundleURL.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
  let bundle = try ModelBundle(contentsOf: bundleURL)
  let store = folder.appendingPathComponent("store.\(parts[0])")
  let copy = folder.appendingPathComponent("copy.\(parts[0])")
  try writeStore(parts[0], objects: count, to: store)
  // Open and save: the store read whole and written again beside.
  let model = bundle.versions[0].model
  var start = now()
  let contents = try format.read(from: store, model: model)
  try format.write(contents, model: model, to: copy)
  let floor = Double(now() - start) / 1e6
  trimMalloc()
  // Opening the document and saving an edit: what the user does with the file otherwise.
  start = now()
  do {
    let document = try Document.open(copy, model: model, formats: [format])
    var request = FetchRequest<ManagedObject>(entityName: "Person", predicate: nil)
    request.fetchLimit = 1
    guard let person = try document.context.fetch(request).first else {
      throw BenchmarkFailure("the store did not load")
    }
    try person.setValue("renamed", forKey: "name")
    try document.save()
  }
  let openSave = Double(now() - start) / 1e6
  trimMalloc()
  // The user's path: `folio migrate` on a copy, when a release `folio` is beside this program.
  let folio = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("folio")
  var command: Double?
  if FileManager.default.isExecutableFile(atPath: folio.path) {
    let cliStore = folder.appendingPathComponent("cli.\(parts[0])")
    try FileManager.default.copyItem(at: store, to: cliStore)
    let process = Process()
    process.executableURL = folio
    process.arguments = ["migrate", cliStore.path, "--model", bundleURL.path]
    process.standardOutput = FileHandle.nullDevice
    start = now()
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchmarkFailure("folio migrate failed") }
    command = Double(now() - start) / 1e6
  }
  start = now()
  let migration = try StoreMigration(storeAt: store, format: format, bundle: bundle)
  let report = try migration.run()
  let migrate = Double(now() - start) / 1e6
  guard report.steps.count == 1,
    report.steps[0].objectsAfter.values.reduce(0, +) == contents.records.count
  else {
    throw BenchmarkFailure("the migration did not carry every object")
  }
  var cases = [
    Case(title: "records read and written again", value: floor, unit: "ms"),
    Case(title: "document opened, one edit saved (open + save)", value: openSave, unit: "ms"),
    Case(title: "migrate (read, migrate, write, swap)", value: migrate, unit: "ms"),
    Case(title: "migrate / (open + save)", value: migrate / openSave, unit: "×", limit: 1.5),
    Case(title: "migrate / records read and written", value: migrate / floor, unit: "×"),
  ]
  if let command {
    cases += [
      Case(title: "folio migrate, end to end", value: command, unit: "ms"),
      Case(
        title: "folio migrate / (open + save)", value: command / openSave, unit: "×", limit: 1.5),
    ]
  }
  return (
    "Migration: an Expenses \(parts[0]) store of \(count.formatted()) objects, one inferred step",
    cases
  )
}
