import Folio
import FolioTestSupport
import Foundation
import Testing

/// The batch paths against their slow twin: the same deletion or update made the plain way
/// (the graph loaded into a context, the matching objects deleted or changed there, saved) on
/// a copy of the same store must leave a store equal, object by object, to the batch's — in
/// SQL for SQLite (the predicate in SQL where it translates, evaluated over the records where
/// not), over the records for XML and binary. On random stores of the Soak model, which has
/// every relationship kind and delete rule, and on the corpus's Core Data stores.
@Suite("Batch requests against the plain path")
struct BatchDifferentialTests {
  static let soakModel = packageRoot.appendingPathComponent("Samples/Soak/Soak.xcdatamodeld")

  /// Every object of the store at `url` as a line: entity, ID, values, and relationships by
  /// ID (unordered ones sorted).
  static func lines(_ url: URL, _ format: any StoreFormat, _ model: ManagedObjectModel) throws
    -> [String]
  {
    try format.read(from: url, model: model).records.map { record in
      var line = "\(record.entityName) \(record.id)"
      for key in record.attributes.keys.sorted() {
        line += " \(key)=\(record.attributes[key].map { "\($0)" } ?? "nil")"
      }
      let entity = model.entity(named: record.entityName)
      for name in record.relationships.keys.sorted() {
        var targets = record.relationships[name] ?? []
        if entity?.relationship(named: name)?.isOrdered != true { targets.sort() }
        if !targets.isEmpty { line += " \(name)=\(targets)" }
      }
      return line
    }.sorted()
  }

  /// What a batch did to a store: its lines after, or the error that refused it.
  enum Result: Equatable {
    case store([String])
    case refused(GraphError.Code)
  }

  /// `request` made the plain way on the store at `url`: fetched, deleted or changed in a
  /// context, saved.
  static func plain(
    _ operation: Operation, entity: String, predicate: QueryPredicate?, url: URL,
    format: any StoreFormat, model: ManagedObjectModel
  ) throws -> Result {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(at: url, format: format)
    let context = try ManagedObjectContext(coordinator: coordinator, undoManager: nil)
    do {
      let objects = try context.fetch(
        FetchRequest<ManagedObject>(entityName: entity, predicate: predicate))
      switch operation {
      case .delete:
        for object in objects { try context.delete(object) }
      case .update(let values):
        // Expressions read every object as it was before any of them changed.
        var computed: [(ManagedObject, String, Any?)] = []
        for object in objects {
          for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            if let expression = value as? QueryExpression {
              do {
                computed.append((object, key, try expression.value(with: object)))
              } catch {
                throw GraphError(.invalidPredicate, error.message)
              }
            } else {
              computed.append((object, key, value is NSNull ? nil : value))
            }
          }
        }
        for (object, key, value) in computed { try object.setValue(value, forKey: key) }
      }
      try context.save()
    } catch let error as GraphError {
      return .refused(error.code)
    }
    return .store(try lines(url, format, model))
  }

  /// The batch way, through a context on the store or the store alone.
  static func batch(
    _ operation: Operation, entity: String, predicate: QueryPredicate?, url: URL,
    format: any StoreFormat, model: ManagedObjectModel, throughContext: Bool
  ) throws -> Result {
    do {
      if throughContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(at: url, format: format)
        let context = try ManagedObjectContext(coordinator: coordinator)
        switch operation {
        case .delete:
          try context.execute(BatchDeleteRequest(entityName: entity, predicate: predicate))
        case .update(let values):
          try context.execute(
            BatchUpdateRequest(entityName: entity, predicate: predicate, propertiesToUpdate: values)
          )
          #expect(context.brokenInvariants() == [])
        }
      } else {
        let batch: StoreBatch
        switch operation {
        case .delete:
          batch = try BatchDeleteRequest(entityName: entity, predicate: predicate)
            .storeBatch(model: model)
        case .update(let values):
          batch = try BatchUpdateRequest(
            entityName: entity, predicate: predicate, propertiesToUpdate: values
          ).storeBatch(model: model)
        }
        let outcome = try format.executeBatch(batch, at: url, model: model)
        if let refusal = outcome.refusal { throw PersistentStoreCoordinator.error(of: refusal) }
      }
    } catch let error as GraphError {
      return .refused(error.code)
    }
    return .store(try lines(url, format, model))
  }

  enum Operation {
    case delete
    case update([String: Any])
  }

  /// Runs the batch and the plain way on two copies of the store at `url`, and compares them.
  /// Returns whether they were compared (not when the plain save failed validation the batch
  /// does not run).
  @discardableResult
  static func compare(
    _ operation: Operation, entity: String, predicate: QueryPredicate?, url: URL,
    format: any StoreFormat, model: ManagedObjectModel, throughContext: Bool, label: String
  ) throws -> Bool {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    var copies: [URL] = []
    for name in ["batch", "plain"] {
      let copy = folder.appendingPathComponent("\(name)-\(url.lastPathComponent)")
      for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: url.path + suffix) {
        try FileManager.default.copyItem(
          atPath: url.path + suffix, toPath: copy.path + suffix)
      }
      copies.append(copy)
    }
    let plainResult = try plain(
      operation, entity: entity, predicate: predicate, url: copies[1], format: format,
      model: model)
    if case .refused(let code) = plainResult, code != .deny, code != .invalidPredicate {
      return false
    }
    let batchResult = try batch(
      operation, entity: entity, predicate: predicate, url: copies[0], format: format,
      model: model, throughContext: throughContext)
    #expect(batchResult == plainResult, "\(label): \(predicate.map { "\($0)" } ?? "all")")
    if case .refused = batchResult {
      #expect(try lines(copies[0], format, model) == lines(url, format, model), "\(label)")
    }
    return true
  }
}
