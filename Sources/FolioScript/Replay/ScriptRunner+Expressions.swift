import Folio
import Foundation

/// Evaluating `expect` and `print` expressions, and writing values back in script syntax.
extension ScriptRunner {
  // MARK: Expect

  /// Checks `expression`; `previous` is the error of the command before, for `expect error`.
  func expect(_ expression: ScriptExpression, after previous: ScriptError?, at here: InputLocation)
    throws(ScriptError)
  {
    switch expression {
    case .error(let code):
      guard let previous else { throw ScriptError.noError(code, at: here) }
      guard previous.matches(code) else {
        throw ScriptError.otherError(code, found: previous, at: here)
      }
    case .comparison(let operand, let operation, let value):
      let left = try evaluate(operand, at: here)
      let right = try runtimeValue(of: value, at: here)
      guard try holds(left, operation, right, at: here) else {
        throw ScriptError.notHeld(expression.text, found: text(of: left), at: here)
      }
    case .hasChanges, .not(.hasChanges):
      let expected = expression == .hasChanges
      let actual = try document(for: "expect", at: here).hasChanges
      guard actual == expected else {
        let state = actual ? "the document has changes" : "the document has no changes"
        throw ScriptError.notHeld(expression.text, because: state, at: here)
      }
    case .deleted(let variable), .not(.deleted(let variable)):
      let expected = expression == .deleted(variable: variable)
      let actual = isDeleted(try lookup(variable, at: here))
      guard actual == expected else {
        let state = "$\(variable) is \(actual ? "" : "not ")deleted"
        throw ScriptError.notHeld(expression.text, because: state, at: here)
      }
    default:
      guard case .boolean(true) = try evaluate(expression, at: here) else {
        throw ScriptError.notHeld(expression.text, found: "false", at: here)
      }
    }
  }

  // MARK: Evaluating

  /// The value of `expression`: what `print` writes.
  func evaluate(_ expression: ScriptExpression, at here: InputLocation) throws(ScriptError)
    -> RuntimeValue
  {
    switch expression {
    case .keyPath(let variable, let path):
      let object = try lookup(variable, at: here)
      guard let path else { return .object(object) }
      let value = try graph(at: here) { () throws(GraphError) in
        try object.value(forKeyPath: path)
      }
      let steps = path.split(separator: ".").map(String.init)
      return RuntimeValue(value, isOrdered: isOrdered(steps, from: object.entity))
    case .count(let entity, let predicate):
      // The document as it is now: unlike a fetch, counting does not process pending changes.
      let context = try document(for: "count", at: here)
      let parsed = try self.predicate(predicate, at: here)
      let objects = try graph(at: here) { () throws(GraphError) in
        try context.objects(ofEntity: entity)
      }
      guard let parsed else { return .integer(Int64(objects.count)) }
      var count = 0
      for object in objects {
        do {
          if try parsed.evaluate(with: object) { count += 1 }
        } catch {
          throw ScriptError.graph(
            ManagedObjectContext.fetchError(error, entity: entity), at: here, details: [])
        }
      }
      return .integer(Int64(count))
    case .hasChanges:
      return .boolean(try document(for: "has-changes", at: here).hasChanges)
    case .deleted(let variable):
      return .boolean(isDeleted(try lookup(variable, at: here)))
    case .canUndo:
      return .boolean(try undoManager(for: "can-undo", at: here).canUndo)
    case .canRedo:
      return .boolean(try undoManager(for: "can-redo", at: here).canRedo)
    case .undoName:
      return .string(try undoManager(for: "undo-name", at: here).undoActionName)
    case .redoName:
      return .string(try undoManager(for: "redo-name", at: here).redoActionName)
    case .groupingLevel:
      return .integer(Int64(try undoManager(for: "grouping-level", at: here).groupingLevel))
    case .context:
      _ = try document(for: "context", at: here)
      return .string(current?.name ?? "")
    case .not(let inner):
      guard case .boolean(let flag) = try evaluate(inner, at: here) else {
        throw ScriptError.notNegatable(inner.text, at: here)
      }
      return .boolean(!flag)
    case .comparison(let operand, let operation, let value):
      let left = try evaluate(operand, at: here)
      return .boolean(try holds(left, operation, try runtimeValue(of: value, at: here), at: here))
    case .error:
      throw ScriptError.errorOnlyAfterExpect(at: here)
    }
  }

  private func holds(
    _ left: RuntimeValue, _ operation: ComparisonOperator, _ right: RuntimeValue,
    at here: InputLocation
  ) throws(ScriptError) -> Bool {
    guard let result = RuntimeValue.holds(left, operation, right) else {
      throw ScriptError.cannotCompare(
        text(of: left), with: text(of: right), using: operation.rawValue, at: here)
    }
    return result
  }

  /// A script value as a runtime value; `$variable` is the object bound to it.
  func runtimeValue(of value: ScriptValue, at here: InputLocation) throws(ScriptError)
    -> RuntimeValue
  {
    switch value {
    case .null: return .null
    case .string(let text): return .string(text)
    case .integer(let number): return .integer(number)
    case .decimal(let number): return .decimal(number)
    case .boolean(let flag): return .boolean(flag)
    case .date(let date): return .date(date)
    case .uuid(let uuid): return .uuid(uuid)
    case .data(let data): return .data(data)
    case .variable(let name): return .object(try lookup(name, at: here))
    case .list(let values):
      var items: [RuntimeValue] = []
      for item in values { items.append(try runtimeValue(of: item, at: here)) }
      return .list(items, isOrdered: true)
    }
  }

  /// Whether a key path's result keeps an order: it does unless one of its to-many steps is
  /// unordered. Collection operators are skipped; the steps after them still count.
  func isOrdered(_ steps: [String], from entity: EntityDescription) -> Bool {
    var current: EntityDescription? = entity
    var isOrdered = true
    for step in steps where !step.hasPrefix("@") {
      guard let relationship = current?.relationship(named: step) else { break }
      if relationship.isToMany, !relationship.isOrdered { isOrdered = false }
      current = model?.entity(named: relationship.destinationEntityName)
    }
    return isOrdered
  }

  // MARK: Writing values

  /// A value in script syntax. An unordered list is sorted, so the text is deterministic:
  /// objects by number, numbers, strings and dates by value, anything else by its text.
  func text(of value: RuntimeValue) -> String {
    switch value {
    case .null: return "nil"
    case .integer(let number): return String(number)
    case .double(let number): return number.description
    case .float(let number): return number.description
    case .decimal(let number): return number.description
    case .string(let text): return Literal.quoted(text)
    case .boolean(let flag): return flag ? "true" : "false"
    case .date(let date): return Literal.text(of: date)
    case .uuid(let uuid): return "uuid:\(uuid.uuidString)"
    case .data(let data): return "base64:\(data.base64EncodedString())"
    case .url(let url): return Literal.quoted(url.absoluteString)
    case .object(let object): return name(of: object)
    case .list(let items, let isOrdered):
      let shown = isOrdered ? items : sortedForDisplay(items)
      return "[\(shown.map { text(of: $0) }.joined(separator: ", "))]"
    case .other(let text): return text
    }
  }

  private func sortedForDisplay(_ items: [RuntimeValue]) -> [RuntimeValue] {
    let objects = items.compactMap { item -> ManagedObject? in
      if case .object(let object) = item { return object }
      return nil
    }
    if objects.count == items.count {
      return objects.sorted { number(of: $0) < number(of: $1) }.map { .object($0) }
    }
    func family(_ item: RuntimeValue) -> Int? {
      switch item {
      case .integer, .double, .float, .decimal: 0
      case .string: 1
      case .date: 2
      default: nil
      }
    }
    let families = Set(items.map(family))
    let indexed = Array(items.enumerated())
    if families.count == 1, let family = families.first, family != nil {
      return indexed.sorted { a, b in
        switch RuntimeValue.order(a.element, b.element) {
        case .less?: true
        case .equal?, .unordered?: a.offset < b.offset
        default: false
        }
      }.map(\.element)
    }
    let texts = items.map { text(of: $0) }
    return indexed.sorted { a, b in
      texts[a.offset] == texts[b.offset]
        ? a.offset < b.offset : texts[a.offset] < texts[b.offset]
    }.map(\.element)
  }

  // MARK: The whole graph

  /// `3 objects (3 inserted, 0 updated, 0 deleted), has changes`, or what is missing; `, in
  /// context NAME` follows when the current context is not `main`.
  var stateSummary: String {
    guard model != nil else { return "no model" }
    guard let context, let current else { return "model loaded, no document" }
    let deleted = context.deletedObjects.count
    let count = context.registeredObjects.count - deleted
    let place = current.name == ScriptContext.mainName ? "" : ", in context \(current.name)"
    return
      "\(count) object\(count == 1 ? "" : "s") (\(context.insertedObjects.count) inserted, "
      + "\(context.updatedObjects.count) updated, \(deleted) deleted), "
      + (context.hasChanges ? "has changes" : "no changes") + place
  }

  /// The summary, then each object the script met (in any context) that the current context
  /// holds, in order of number, with every property in model order.
  func dumpLines() -> [String] {
    guard let context else { return [stateSummary] }
    var lines = [stateSummary]
    var instances: [Int: ManagedObject] = [:]
    for known in contexts {
      for object in known.knownObjects {
        guard let number = numbers[ObjectIdentifier(object)], instances[number] == nil else {
          continue
        }
        instances[number] = context.object(with: object.objectID)
      }
    }
    for (_, object) in instances.sorted(by: { $0.key < $1.key }) {
      let name = name(of: object)
      var header = name.hasPrefix("$") ? "\(object.entityName) \(name)" : name
      if object.isInserted {
        header += " (inserted)"
      } else if object.isDeleted {
        header += " (deleted)"
      } else if object.isUpdated {
        header += " (updated)"
      }
      lines.append(header)
      for property in object.entity.properties {
        let isOrdered: Bool
        switch property {
        case .attribute: isOrdered = true
        case .relationship(let relationship): isOrdered = relationship.isOrdered
        case .fetchedProperty: continue
        }
        let value = RuntimeValue(
          (try? object.value(forKey: property.name)) ?? nil, isOrdered: isOrdered)
        lines.append("  \(property.name) = \(text(of: value))")
      }
    }
    return lines
  }
}
