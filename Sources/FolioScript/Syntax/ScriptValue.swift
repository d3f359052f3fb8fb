import Foundation

/// A value written in a script: `"text"`, `42`, `42.5`, `true`, `nil`, `@2026-11-21T10:00:00Z`,
/// `uuid:…`, `base64:…`, `$variable` or a list `[…]`.
public indirect enum ScriptValue: Sendable, Hashable {
  /// `nil`: no value.
  case null
  /// `"text"`, with JSON escapes.
  case string(String)
  /// A whole number that fits in 64 bits.
  case integer(Int64)
  /// A number with a fraction or an exponent, kept exactly.
  case decimal(Decimal)
  /// `true` or `false`.
  case boolean(Bool)
  /// `@2026-11-21T10:00:00Z`.
  case date(Date)
  /// `uuid:…`.
  case uuid(UUID)
  /// `base64:…`.
  case data(Data)
  /// `$name`: the object bound to the variable.
  case variable(String)
  /// `[…]`: values or objects.
  case list([ScriptValue])

  /// The value as a script writes it.
  public var text: String {
    switch self {
    case .null: "nil"
    case .string(let text): Literal.quoted(text)
    case .integer(let number): String(number)
    case .decimal(let number): number.description
    case .boolean(let flag): flag ? "true" : "false"
    case .date(let date): Literal.text(of: date)
    case .uuid(let uuid): "uuid:\(uuid.uuidString)"
    case .data(let data): "base64:\(data.base64EncodedString())"
    case .variable(let name): "$\(name)"
    case .list(let values): "[\(values.map(\.text).joined(separator: ", "))]"
    }
  }
}
