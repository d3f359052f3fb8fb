import ArgumentParser
import Folio
import Foundation

/// `folio delete FILE --entity E --where PREDICATE`: deletes objects in a store, without loading
/// it (Core Data's batch delete).
struct DeleteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete",
    abstract: "Delete the objects of an entity that a predicate selects, in the store itself.",
    discussion: """
      The store is changed where it is, without loading its objects into memory, as Core \
      Data's batch delete does: a SQLite store in SQL, in one write transaction; an XML or \
      binary store in one pass over its objects, written anew atomically (a PostgreSQL \
      document is refused: batch requests are not implemented for it yet). Either waits for \
      another program saving the store, and what that program saved is kept. The delete \
      rules apply: Cascade deletes the targets too, Nullify takes the deleted objects out of \
      their inverses, and a Deny relationship that still holds an object refuses the whole \
      deletion. Validation rules are not run. The predicate is Core Data's format syntax \
      (Formats/predicate-format.md); TRUEPREDICATE selects every object.

      Examples:
        folio delete Samples/Expenses/Expenses.xml --entity Spending \\
          --where "amount < 5" --model Samples/Expenses/Expenses.xcdatamodeld
        folio delete Samples/Expenses/Expenses.xml --entity Person \\
          --where "name BEGINSWITH 'Ada'" --format json \\
          --model Samples/Expenses/Expenses.xcdatamodeld
      """)

  @OptionGroup var store: StoreOptions

  @OptionGroup var batch: BatchOptions

  @OptionGroup var output: TextOrJSON

  func run() throws {
    let parsed = try batch.parsedPredicate()
    let source = try batch.source(of: store, verb: "delete")
    var request = BatchDeleteRequest(entityName: batch.entity, predicate: parsed)
    request.includesSubentities = !batch.excludingSubentities
    let outcome = try batch.execute(
      { model throws(GraphError) in try request.storeBatch(model: model) }, on: source,
      file: store.file)
    let cascaded = outcome.objects.count - outcome.selectedCount
    if output.json {
      try BatchOptions.printJSON([
        "file": store.file, "entity": batch.entity, "deleted": outcome.selectedCount,
        "cascaded": cascaded,
      ])
    } else {
      var line = "deleted \(BatchOptions.objects(outcome.selectedCount, of: batch.entity))"
      if cascaded > 0 { line += ", and \(cascaded) more by Cascade delete rules" }
      print(line)
    }
  }
}

/// `folio update FILE --entity E --where PREDICATE --set KEY=VALUE…`: sets attributes in a
/// store, without loading it (Core Data's batch update).
struct UpdateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "update",
    abstract: "Set attributes of the objects of an entity that a predicate selects, in the store.",
    discussion: """
      The store is changed where it is, without loading its objects into memory, as Core \
      Data's batch update does (see folio delete --help). Each --set KEY=VALUE gives an \
      attribute a value written as in a predicate: a number, 'text' in quotes, YES or NO, nil, \
      a date as @2024-05-01, or an expression of the object's own values (amount * 2), \
      computed for each object before any changes. Values are checked against the \
      attributes' types; validation rules are not run.

      Examples:
        folio update Samples/Expenses/Expenses.xml --entity Spending \\
          --where "amount > 10" --set "content='large'" --set "amount=amount * 2" \\
          --model Samples/Expenses/Expenses.xcdatamodeld
      """)

  @OptionGroup var store: StoreOptions

  @OptionGroup var batch: BatchOptions

  @Option(
    name: .customLong("set"),
    help: ArgumentHelp(
      "An attribute and its new value, KEY=VALUE; repeat for several.", valueName: "key=value"),
    completion: Completions.typed)
  var assignments: [String] = []

  @OptionGroup var output: TextOrJSON

  func validate() throws {
    if assignments.isEmpty { throw ValidationError("--set KEY=VALUE is needed at least once") }
  }

  func run() throws {
    let parsed = try batch.parsedPredicate()
    var values: [String: Any] = [:]
    for assignment in assignments {
      guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
        throw ArgumentValueError("--set takes KEY=VALUE, not \"\(assignment)\"")
      }
      let key = String(assignment[..<equals]).trimmingCharacters(in: .whitespaces)
      let text = String(assignment[assignment.index(after: equals)...])
      let expression: QueryExpression
      do {
        expression = try QueryExpression(format: text)
      } catch {
        throw ArgumentValueError("--set \"\(assignment)\": \(error.description)")
      }
      if case .constant(let constant) = expression {
        values[key] = constant.anyValue ?? NSNull()
      } else {
        values[key] = expression
      }
    }
    let source = try batch.source(of: store, verb: "update")
    if let entity = source.model.entity(named: batch.entity) {
      for (key, value) in values {
        // A bare word is a key path: text meant as a value needs quotes.
        guard let expression = value as? QueryExpression, case .keyPath(let path) = expression,
          entity.property(named: path) == nil
        else { continue }
        throw ArgumentValueError(
          "--set \(key)=\(path): \(batch.entity) has no property \"\(path)\"; text is written in quotes: \(key)='\(path)'"
        )
      }
    }
    var request = BatchUpdateRequest(
      entityName: batch.entity, predicate: parsed, propertiesToUpdate: values)
    request.includesSubentities = !batch.excludingSubentities
    let outcome = try batch.execute(
      { model throws(GraphError) in try request.storeBatch(model: model) }, on: source,
      file: store.file)
    if output.json {
      try BatchOptions.printJSON([
        "file": store.file, "entity": batch.entity, "updated": outcome.objects.count,
      ])
    } else {
      print("updated \(BatchOptions.objects(outcome.objects.count, of: batch.entity))")
    }
  }
}

/// The options `delete` and `update` share, and how they run a batch.
struct BatchOptions: ParsableArguments {
  @Option(
    help: "The entity whose objects change (its subentities' objects too).",
    completion: Completions.batchEntity)
  var entity: String

  @Option(
    name: .customLong("where"),
    help: "A predicate the objects must satisfy, e.g. \"amount < 5\"; TRUEPREDICATE for all.",
    completion: Completions.typed)
  var predicate: String

  @Flag(help: "Leave the objects of the entity's subentities alone.")
  var excludingSubentities = false

  /// The `--where` predicate, or bad usage naming the column.
  func parsedPredicate() throws -> QueryPredicate {
    do {
      return try QueryPredicate(format: predicate)
    } catch {
      throw ArgumentValueError("--where \"\(predicate)\": \(error.description)")
    }
  }

  /// The store to change, recognised and its model found; standard input is refused.
  func source(of store: StoreOptions, verb: String) throws -> StoreOptions.Source {
    guard store.file != "-" else {
      throw ValidationError("\(verb) changes a store file in place; it cannot read one from -")
    }
    // A server's document cannot fall back on a pass over records written anew as a file:
    // its format must run the batch itself.
    let format = try PersistentStoreCoordinator.format(of: try store.url(), among: store.formats)
    if format is any ServerStoreFormat, !(format is any BatchExecutingStoreFormat) {
      throw CommandFailure(
        "\(store.file): \(verb) is not implemented for \(format.typeName) documents yet: batch requests run on SQLite, XML and binary stores only (nothing was changed)"
      )
    }
    let source = try store.open()
    // An inferred model guesses delete rules (Nullify) and types; a batch written with it
    // would change the store by guesses, and an XML store would carry the guess from then on.
    if source.modelIsInferred {
      throw CommandFailure(
        "\(store.file): the store carries no model, and one inferred from it does not say the delete rules and types the app's model does: pass --model with the model that wrote it (nothing was changed)"
      )
    }
    return source
  }

  /// Executes the batch `make` builds from the store's model; a refusal or a bad request is
  /// one line naming the file and the place.
  func execute(
    _ make: (ManagedObjectModel) throws(GraphError) -> StoreBatch, on source: StoreOptions.Source,
    file: String
  ) throws -> StoreBatchOutcome {
    let batch: StoreBatch
    do {
      batch = try make(source.model)
    } catch {
      throw CommandFailure("\(file): \(error.description)")
    }
    let outcome = try source.format.executeBatch(batch, at: source.url, model: source.model)
    if let refusal = outcome.refusal {
      throw CommandFailure(
        "\(file): \(PersistentStoreCoordinator.error(of: refusal).description) (nothing was changed)"
      )
    }
    return outcome
  }

  /// `3 Spending objects`, `1 Spending object`.
  static func objects(_ count: Int, of entity: String) -> String {
    "\(count) \(entity) object\(count == 1 ? "" : "s")"
  }

  /// `object` as one line of JSON, keys sorted.
  static func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    print(String(decoding: data, as: UTF8.self))
  }
}
