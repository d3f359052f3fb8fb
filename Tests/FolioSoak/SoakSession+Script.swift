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
