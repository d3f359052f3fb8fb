import Folio
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

// The CLI on a big XML store, end to end: `folio dump --jsonl` beside Foundation's JSONEncoder
// encoding the same objects, and `folio info` without a model beside `xmllint --stream` reading
// the same file, each with the command's peak memory.

/// How long a command took and the most memory it held, from `wait4`'s resource usage.
struct CommandRun {
  var seconds: Double
  var peakBytes: Int
  var status: Int32
}

/// Runs `executable` with `arguments`, its standard output to `output`, and measures it.
func measureCommand(_ executable: String, _ arguments: [String], output: String = "/dev/null")
  throws -> CommandRun
{
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  let argv = ([executable] + arguments).map { strdup($0) } + [nil]
  defer { for pointer in argv { free(pointer) } }
  var pid: pid_t = 0
  let start = now()
  let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
  guard spawned == 0 else {
    throw BenchmarkFailure("cannot run \(executable): \(String(cString: strerror(spawned)))")
  }
  var status: Int32 = 0
  var usage = rusage()
  while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
  let seconds = Double(now() - start) / 1e9
  // Exited normally: the low seven bits are zero and the exit code is in the next eight.
  let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
  return CommandRun(seconds: seconds, peakBytes: Int(usage.ru_maxrss) * 1024, status: code)
}

/// Each command run `runs` times, in turn, and its fastest run (with the most memory any run
/// held): the figure least disturbed by whatever else the machine did meanwhile.
func measureFastest(_ commands: [(String, [String])], runs: Int = 3) throws -> [CommandRun] {
  var best: [CommandRun?] = Array(repeating: nil, count: commands.count)
  for _ in 0..<runs {
    for (index, (executable, arguments)) in commands.enumerated() {
      let run = try measureCommand(executable, arguments)
      guard run.status == 0 else { return commands.indices.map { _ in run } }
      if let previous = best[index] {
        best[index] = CommandRun(
          seconds: min(previous.seconds, run.seconds),
          peakBytes: max(previous.peakBytes, run.peakBytes), status: 0)
      } else {
        best[index] = run
      }
    }
  }
  return best.compactMap { $0 }
}

/// The path of `name` on `PATH`, if it is there.
func onPath(_ name: String) -> String? {
  let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
  return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// One object as `folio dump --jsonl` prints it, for JSONEncoder.
private struct EncodedObject: Encodable {
  enum Value: Encodable {
    case number(Double), integer(Int64), text(String), flag(Bool), none

    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .number(let value): try container.encode(value)
      case .integer(let value): try container.encode(value)
      case .text(let value): try container.encode(value)
      case .flag(let value): try container.encode(value)
      case .none: try container.encodeNil()
      }
    }
  }
  enum Reference: Encodable {
    case one(String?), many([String])

    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .one(let value): try container.encode(value)
      case .many(let values): try container.encode(values)
      }
    }
  }
  var uri: String
  var entity: String
  var primaryKey: Int64
  var attributes: [String: Value]
  var relationships: [String: Reference]
}

/// The records as the objects JSONEncoder encodes: the same fields, values and URIs the dump
/// prints.
private func encodable(_ contents: StoreContents, model: ManagedObjectModel) -> [EncodedObject] {
  let store = contents.metadata.identifier
  var entityOf: [Int64: String] = [:]
  for record in contents.records { entityOf[record.id] = record.entityName }
  func uri(_ id: Int64) -> String {
    "x-coredata://\(store)/\(entityOf[id] ?? "?")/p\(StoreKeySpace.key(of: id))"
  }
  let formatter = ISO8601DateFormatter()
  return contents.records.map { record in
    let entity = model.entity(named: record.entityName)
    var attributes: [String: EncodedObject.Value] = [:]
    for attribute in entity?.allAttributes ?? [] {
      switch record.attribute(attribute.name) {
      case .double(let value): attributes[attribute.name] = .number(value)
      case .integer(let value): attributes[attribute.name] = .integer(value)
      case .string(let value): attributes[attribute.name] = .text(value)
      case .boolean(let value): attributes[attribute.name] = .flag(value)
      case .date(let value): attributes[attribute.name] = .text(formatter.string(from: value))
      case nil: attributes[attribute.name] = EncodedObject.Value.none
      case let value?: attributes[attribute.name] = .text(value.modelText)
      }
    }
    var relationships: [String: EncodedObject.Reference] = [:]
    for relationship in entity?.allRelationships ?? [] {
      let targets = record.relationships[relationship.name] ?? []
      relationships[relationship.name] =
        relationship.isToMany ? .many(targets.map(uri)) : .one(targets.first.map(uri))
    }
    return EncodedObject(
      uri: uri(record.id), entity: record.entityName,
      primaryKey: StoreKeySpace.key(of: record.id), attributes: attributes,
      relationships: relationships)
  }
}

/// `cli N`: an Expenses XML store of N objects, through the `folio` beside this program.
func cliBenchmark(objects count: Int) throws -> (String, [Case]) {
  let folio = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("folio").path
  guard FileManager.default.isExecutableFile(atPath: folio) else {
    throw BenchmarkFailure("no folio beside the benchmarks: swift build -c release --product folio")
  }
  let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("folio-cli-\(ProcessInfo.processInfo.processIdentifier)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  let store = folder.appendingPathComponent("store.xml")
  let writer = try measureCommand(
    CommandLine.arguments[0], ["document-write", "xml:\(count):\(store.path)"])
  guard writer.status == 0 else { throw BenchmarkFailure("writing the store failed") }
  let size = (try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int) ?? 0

  let dump = try measureCommand(folio, ["dump", "--jsonl", store.path])
  // The two are run in turn, three times each, and each's fastest run is compared.
  let xmllint = onPath("xmllint")
  let runs = try measureFastest(
    [(folio, ["info", store.path])]
      + (xmllint.map { [($0, ["--stream", "--noout", store.path])] } ?? []))
  let info = runs[0]
  guard dump.status == 0, info.status == 0 else {
    throw BenchmarkFailure("folio failed: dump \(dump.status), info \(info.status)")
  }
  // JSONEncoder, encoding the objects the dump prints (built beforehand, not timed). After
  // the commands: a child's peak memory counts this process's until it starts its program.
  let model = try documentExpensesModel()
  let objects = encodable(try XMLStore().read(from: store, model: model), model: model)
  let start = now()
  let encoded = try JSONEncoder().encode(objects)
  let encoder = Double(now() - start) / 1e9
  guard encoded.count > objects.count else { throw BenchmarkFailure("JSONEncoder wrote nothing") }
  let megabyte = 1024.0 * 1024
  var cases = [
    Case(title: "JSONEncoder encoding the same objects", value: encoder, unit: "s"),
    Case(title: "folio dump --jsonl, end to end", value: dump.seconds, unit: "s"),
    Case(
      title: "folio dump --jsonl / JSONEncoder", value: dump.seconds / encoder, unit: "×",
      limit: 1.0),
    Case(
      title: "folio dump --jsonl, peak memory", value: Double(dump.peakBytes) / megabyte,
      unit: "MB", limit: 300),
    Case(title: "folio info, no model (fastest of 3)", value: info.seconds, unit: "s"),
    Case(
      title: "folio info, peak memory", value: Double(info.peakBytes) / megabyte, unit: "MB"),
  ]
  // In the library: inferring the model from the tags against reading the store with it.
  func fastest(_ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<3 {
      let start = now()
      try body()
      best = min(best, Double(now() - start) / 1e9)
    }
    return best
  }
  let inference = try fastest { _ = try XMLStore.inferModelForReading(from: store) }
  let read = try fastest {
    var counter = CountingConsumer()
    try XMLStore().read(from: store, model: model, into: &counter)
  }
  cases += [
    Case(title: "inferring the model from the tags (fastest of 3)", value: inference, unit: "s"),
    Case(title: "reading the store with the model (fastest of 3)", value: read, unit: "s"),
    Case(title: "inference / read", value: inference / read, unit: "×", limit: 0.3),
  ]
  if xmllint != nil, let floor = runs.last, floor.status == 0 {
    cases += [
      Case(title: "xmllint --stream --noout (fastest of 3)", value: floor.seconds, unit: "s"),
      Case(
        title: "folio info / xmllint --stream", value: info.seconds / floor.seconds, unit: "×",
        limit: 1.3),
    ]
  } else {
    print("  (xmllint is not installed: apt-get install libxml2-utils for its figures)")
  }
  return (
    "The CLI on an Expenses XML store of \(count.formatted()) objects "
      + "(\(size / (1 << 20)) MB), end to end", cases
  )
}
