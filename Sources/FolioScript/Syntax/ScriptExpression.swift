/// An expression of `expect` and `print`.
public indirect enum ScriptExpression: Sendable, Hashable {
  /// `$var` or `$var.keypath`: the object, or the value at the key path.
  case keyPath(variable: String, path: String?)
  /// `count ENTITY [where "PRED"]`: how many objects of the entity (and its subentities) the
  /// document holds now.
  case count(entity: String, predicate: String?)
  /// `has-changes`: whether the document has unsaved changes.
  case hasChanges
  /// `can-undo`.
  case canUndo
  /// `can-redo`.
  case canRedo
  /// `deleted $var`: whether the object is deleted.
  case deleted(variable: String)
  /// `undo-name`.
  case undoName
  /// `redo-name`.
  case redoName
  /// `grouping-level`.
  case groupingLevel
  /// `context`: the name of the current context.
  case context
  /// `!EXPR`, for `has-changes`, `can-undo`, `can-redo` and `deleted`.
  case not(ScriptExpression)
  /// `OPERAND OP VALUE`.
  case comparison(ScriptExpression, ComparisonOperator, ScriptValue)
  /// `error CODE`: the previous command failed with that code or validation rule.
  case error(code: String)

  /// The expression as a script writes it.
  public var text: String {
    switch self {
    case .keyPath(let variable, let path): path.map { "$\(variable).\($0)" } ?? "$\(variable)"
    case .count(let entity, let predicate):
      "count \(entity)" + (predicate.map { " where \(Literal.quoted($0))" } ?? "")
    case .hasChanges: "has-changes"
    case .canUndo: "can-undo"
    case .canRedo: "can-redo"
    case .deleted(let variable): "deleted $\(variable)"
    case .undoName: "undo-name"
    case .redoName: "redo-name"
    case .groupingLevel: "grouping-level"
    case .context: "context"
    case .not(let expression): "!\(expression.text)"
    case .comparison(let operand, let operation, let value):
      "\(operand.text) \(operation.rawValue) \(value.text)"
    case .error(let code): "error \(code)"
    }
  }
}

/// `==`, `!=`, `<`, `<=`, `>`, `>=`.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
  /// `==`: equal, numbers by value.
  case equal = "=="
  /// `!=`: not equal.
  case notEqual = "!="
  /// `<`: numbers, strings and dates only.
  case less = "<"
  /// `<=`.
  case lessOrEqual = "<="
  /// `>`.
  case greater = ">"
  /// `>=`.
  case greaterOrEqual = ">="
}
