/// Where in the input something was found: a place in a file, a byte offset, a key in a model.
///
/// Every error and warning that Folio reports about bad input carries one, so a user can go
/// straight to the spot. The description joins the parts that are known:
/// `Expenses.xcdatamodel/contents:12:5: Person.spendings`, `store.folio@4096`, `Person.name`.
public struct InputLocation: Sendable, Hashable, CustomStringConvertible {
  /// The file's path as the user gave it, or `nil` for input that did not come from a file.
  public var file: String?
  /// The 1-based line in `file`.
  public var line: Int?
  /// The 1-based column in `line`.
  public var column: Int?
  /// The 0-based byte offset in `file`, for binary input.
  public var byteOffset: Int?
  /// The entity the input describes.
  public var entity: String?
  /// The property of `entity` the input describes.
  public var property: String?

  /// Creates a location from whichever parts are known.
  public init(
    file: String? = nil, line: Int? = nil, column: Int? = nil, byteOffset: Int? = nil,
    entity: String? = nil, property: String? = nil
  ) {
    self.file = file
    self.line = line
    self.column = column
    self.byteOffset = byteOffset
    self.entity = entity
    self.property = property
  }

  /// A copy that also names `entity` and, when given, `property`.
  public func naming(entity: String?, property: String? = nil) -> InputLocation {
    var copy = self
    copy.entity = entity
    copy.property = property
    return copy
  }

  /// `file:line:column`, `file@offset` (`@offset` without a file), `column N` (a column of a
  /// one-line input such as a predicate) and `Entity.property`, joined by `": "`.
  public var description: String {
    var parts: [String] = []
    if let file {
      var place = file
      if let line {
        place += ":\(line)"
        if let column { place += ":\(column)" }
      } else if let byteOffset {
        place += "@\(byteOffset)"
      }
      parts.append(place)
    } else if let byteOffset {
      parts.append("@\(byteOffset)")
    } else if line == nil, let column {
      parts.append("column \(column)")
    }
    if let entity {
      parts.append(property.map { "\(entity).\($0)" } ?? entity)
    }
    return parts.joined(separator: ": ")
  }
}
