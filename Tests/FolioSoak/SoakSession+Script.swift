extension SoakSession {
  /// The undo-script line of `operation`, written before it is applied (an `add` at an index
  /// becomes a `set` of the whole resulting order, which the language can express).
  func scriptLine(for operation: SoakOperation) -> String {
    switch operation {
    case .insert(let entity, let uid): return "insert \(entity) $o\(uid) uid=\(uid)"
    case .add(let uid, let key, let target, let index?):
      var order = oracle.many(uid, key)
      guard !order.contains(target), index < order.count else {
        return "add $o\(uid).\(key) $o\(target)"
      }
      guard isExpressible(operation) else {
        // A set cannot name the deleted objects the relationship still holds.
        inexpressible += 1
        return "add $o\(uid).\(key) $o\(target)  # NOT EXPRESSIBLE: at index \(index)"
      }
      order.insert(target, at: index)
      let list = order.map { "$o\($0)" }.joined(separator: ", ")
      return "set $o\(uid).\(key) = [\(list)]  # add $o\(target) at \(index)"
    case .add(let uid, let key, let target, nil): return "add $o\(uid).\(key) $o\(target)"
    case .save(let format): return file == nil ? "save \(format.fileName)" : "save"
    case .saveAs(let format): return "save \(format.fileName)"
    case .reopen: return "close\nopen \(file?.fileName ?? "")"
    default: return contextLines(for: operation) ?? operation.description
    }
  }

  /// The undo-script lines of the steps that cross the context's boundaries. A child or
  /// another root context gets a name of its own, so each starts afresh; `context main` makes
  /// the document's context current again.
  private func contextLines(for operation: SoakOperation) -> String? {
    func set(_ uid: Int, _ key: String, _ value: SoakOracle.Value?) -> String {
      "set $o\(uid).\(key) = \(value?.description ?? "nil")"
    }
    var lines: [String]
    switch operation {
    case .refresh(let uid, let merge): return "refresh $o\(uid)" + (merge ? " merge" : "")
    case .childSave(let uid, let key, let value, let link):
      lines = [newContext("child sheet"), set(uid, key, value)]
      if let link { lines.append(link.scriptLine) }
      lines.append("save")
    case .childDiscard(let uid, let key, let value, let link, let deleted):
      lines = [newContext("child sheet"), set(uid, key, value)]
      if let link { lines.append(link.scriptLine) }
      if let deleted { lines.append("delete $o\(deleted)") }
    case .otherSet(let uid, let key, let value):
      lines = [newContext("context other"), set(uid, key, value), "save"]
    case .otherLink(let uid, let key, let target):
      let link = SoakOperation.Link(uid: uid, key: key, target: target)
      lines = [newContext("context other"), link.scriptLine, "save"]
    case .otherInsert(let entity, let uid, let name):
      let named = name.map { " name=\"\($0)\"" } ?? ""
      lines = [newContext("context other"), "insert \(entity) $o\(uid) uid=\(uid)\(named)", "save"]
    case .otherDelete(let uid):
      lines = [newContext("context other"), "delete $o\(uid)", "save"]
    case .mergeDidSave:
      // mergeChanges(fromContextDidSave:) refreshes, merging, each object the notification
      // names that the context has: what `refresh … merge` does to one.
      let named = (oracle.lastOtherSave.map { $0.updated.union($0.deleted) } ?? [])
        .filter(oracle.isInContext).sorted()
      guard !named.isEmpty else { return "# merge-did-save: the context has none of its objects" }
      return named.map { "refresh $o\($0) merge  # merge-did-save" }.joined(separator: "\n")
    case .fetch: return "# fetch"
    default: return nil
    }
    lines.append("context main")
    return lines.joined(separator: "\n")
  }

  /// `child sheetN` or `context otherN`, for the next N.
  private func newContext(_ command: String) -> String {
    contextCount += 1
    return "\(command)\(contextCount)"
  }

  /// Whether ``scriptLine(for:)`` can express `operation`: all but an `add` at an index of an
  /// ordered relationship that holds deleted objects.
  public func isExpressible(_ operation: SoakOperation) -> Bool {
    guard case .add(let uid, let key, _, _?) = operation else { return true }
    return oracle.many(uid, key).allSatisfy(oracle.isLive)
  }

  /// `expect` lines for the oracle's whole state: how many objects of each entity a fetch
  /// finds, and every value of every live object. A script that ends with them passes only if
  /// Folio, run from the script, reaches the oracle's state.
  public func stateExpectations() -> [String] {
    let live = oracle.liveObjects
    // `count` fetches, once the turn's changes are processed (see `isFetchSettled`).
    var lines =
      oracle.isFetchSettled
      ? countExpectations(of: oracle.fetchable) : ["# counts left out: changes not processed"]
    for (uid, object) in live.sorted(by: { $0.key < $1.key }) {
      let keys =
        ["uid"] + (SoakSchema.attributes[object.entity] ?? []).map(\.name)
        + (SoakSchema.relationships[object.entity] ?? []).map(\.name)
      for key in keys {
        let isToMany = SoakSchema.relationship(key, of: object.entity)?.isToMany == true
        let value = object.values[key]?.description ?? (isToMany ? "[]" : "nil")
        lines.append("expect $o\(uid).\(key) == \(value)")
      }
    }
    lines.append("expect grouping-level == \(oracle.groupingLevel)")
    lines.append("expect \(oracle.canUndo ? "" : "!")can-undo")
    return lines
  }

  /// `expect count` of each entity: how many of `uids` a fetch finds (`count` fetches).
  func countExpectations(of uids: Set<Int>) -> [String] {
    let entities = uids.compactMap { oracle.graph[$0]?.entity ?? oracle.file[$0]?.entity }
    return SoakSchema.entities.map { entity in
      "expect count \(entity) == \(entities.filter { $0 == entity }.count)"
    }
  }

  /// Appends `line`, written before `operation` applied, with the outcome the oracle gave it:
  /// `expect error` after the command that fails (before `context main` for another context's
  /// save), the objects found again after reopening or `reset`, and what a fetch finds.
  func writeScript(
    _ line: String, for operation: SoakOperation, outcome: Result<Void, SoakFailure>
  ) {
    var lines = [line]
    if case .failure(let failure) = outcome {
      let expectation = "expect error \(failure.code)"
      if line.hasSuffix("\ncontext main") {
        lines = [String(line.dropLast("\ncontext main".count)), expectation, "context main"]
      } else {
        lines.append(expectation)
      }
    }
    script += lines
    switch operation {
    case .reopen, .reset:
      for (uid, object) in oracle.liveObjects.sorted(by: { $0.key < $1.key }) {
        script.append("fetch \(object.entity) where \"uid == \(uid)\" as $o\(uid)")
      }
    case .fetch: script += countExpectations(of: fetched.expected)
    default: break
    }
  }
}
