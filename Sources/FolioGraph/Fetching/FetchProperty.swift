import FolioQuery

extension FetchProperty {
  /// `value` given ``FetchProperty/resultType``.
  ///
  /// - Throws: `GraphError.typeMismatch` when it cannot be given that type.
  func converted(_ value: Any?) throws(GraphError) -> Any? {
    guard let converted = converting(value) else {
      throw GraphError(
        .typeMismatch,
        "\(name): \(value.map { "\($0)" } ?? "nil") cannot be given the result type \(resultType?.rawValue ?? "")"
      )
    }
    return converted
  }
}
