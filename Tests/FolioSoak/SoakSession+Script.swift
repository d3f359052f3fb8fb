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
    default: return operation.description
    }
  }

  /// Whether ``scriptLine(for:)`` can express `operation`: all but an `add` at an index of an
  /// ordered relationship that holds deleted objects.
  public func isExpressible(_ operation: SoakOperation) -> Bool {
    guard case .add(let uid, let key, _, _?) = operation else { return true }
    return oracle.many(uid, key).allSatisfy(oracle.isLive)
  }

  /// `expect` lines for the oracle's whole state: how many live objects each entity has, and
  /// every value of every live object. A script that ends with them passes only if Folio, run
  /// from the script, reaches the oracle's state.
  public func stateExpectations() -> [String] {
    let live = oracle.liveObjects
    var lines: [String] = []
    for entity in SoakSchema.entities {
      lines.append("expect count \(entity) == \(live.values.filter { $0.entity == entity }.count)")
    }
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

  func writeScript(
    _ line: String, for operation: SoakOperation, outcome: Result<Void, SoakFailure>
  ) {
    script.append(line)
    if case .failure(let failure) = outcome { script.append("expect error \(failure.code)") }
    if case .reopen = operation {
      for (uid, object) in oracle.liveObjects.sorted(by: { $0.key < $1.key }) {
        script.append("fetch \(object.entity) where \"uid == \(uid)\" as $o\(uid)")
      }
    }
  }
}
