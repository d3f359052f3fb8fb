import Folio
import Foundation

/// Fetching: objects bound by a fetch request, or rows of values printed.
extension ScriptRunner {
  /// Fetching: objects of an entity by predicate and sort, the first bound to a variable.
  func executeFetch(_ command: ScriptCommand, at here: InputLocation)
    throws(ScriptError)
  {
    guard case .fetch(let fetch) = command.kind else {
      preconditionFailure("\(command.name) is not a fetch")
    }
    let context = try document(for: command.name, at: here)
    if fetch.printsRows {
      try fetchRows(fetch, in: context, at: here)
      return
    }
    var request = FetchRequest(entityName: fetch.entity)
    request.predicate = try predicate(fetch.predicate, at: here)
    request.sortDescriptors = fetch.sorts.map {
      QuerySortDescriptor(keyPath: $0.keyPath, ascending: $0.isAscending)
    }
    request.fetchLimit = fetch.limit ?? 0
    let objects = try graph(at: here) { () throws(GraphError) in try context.fetch(request) }
    for object in objects { register(object) }
    if let variable = fetch.variable {
      guard let first = objects.first else {
        throw ScriptError(
          .objectNotFound, "fetch \(fetch.entity) found no object to bind to $\(variable)",
          at: here)
      }
      bind(variable, to: first)
    }
  }

  /// A fetch of rows: each object's `keys`, or each group's with `group-by`, printed one row
  /// per line as `{key: value, …}`.
  private func fetchRows(
    _ fetch: ScriptFetch, in context: ManagedObjectContext, at here: InputLocation
  )
    throws(ScriptError)
  {
    func properties(_ text: String, _ clause: String) throws(ScriptError) -> [FetchProperty] {
      do {
        return try FetchProperty.list(text)
      } catch {
        throw ScriptError(
          .invalidPredicate, "\(clause) \(Literal.quoted(text)): \(error.description)", at: here)
      }
    }
    var request = FetchRequest<[String: Any]>(entityName: fetch.entity)
    request.predicate = try predicate(fetch.predicate, at: here)
    request.havingPredicate = try predicate(fetch.having, at: here)
    request.sortDescriptors = fetch.sorts.map {
      QuerySortDescriptor(keyPath: $0.keyPath, ascending: $0.isAscending)
    }
    request.fetchLimit = fetch.limit ?? 0
    let grouping = try fetch.groupBy.map { text throws(ScriptError) in
      try properties(text, "group-by")
    }
    request.propertiesToGroupBy = grouping
    let keys =
      try fetch.keys.map { text throws(ScriptError) in try properties(text, "keys") }
      ?? (grouping ?? []) + [
        FetchProperty(name: "count", expression: .function("count:", [.evaluatedObject]))
      ]
    request.propertiesToFetch = keys
    let rows = try graph(at: here) { () throws(GraphError) in try context.fetch(request) }
    for row in rows {
      let values = keys.map { key in
        "\(key.name): \(text(of: RuntimeValue(row[key.name], isOrdered: true)))"
      }
      output("{" + values.joined(separator: ", ") + "}")
    }
  }

  /// A predicate in Core Data's format syntax, parsed; `nil` for none.
  func predicate(_ text: String?, at here: InputLocation) throws(ScriptError) -> QueryPredicate? {
    guard let text else { return nil }
    do {
      return try QueryPredicate(format: text)
    } catch {
      throw ScriptError(
        .invalidPredicate, "predicate \"\(text)\": \(error.description)", at: here,
        underlying: error)
    }
  }
}
