/// A JSON value: what a cell holds on the wire, and what an edit sends.
public enum JSONValue: Sendable, Hashable, Codable {
  case null
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case string(String)

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let flag = try? container.decode(Bool.self) {
      self = .bool(flag)
    } else if let integer = try? container.decode(Int64.self) {
      self = .integer(integer)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let text = try? container.decode(String.self) {
      self = .string(text)
    } else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "a cell value is null, a boolean, a number or a string")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let flag): try container.encode(flag)
    case .integer(let integer): try container.encode(integer)
    case .number(let number): try container.encode(number)
    case .string(let text): try container.encode(text)
    }
  }

  /// The value as the user would type it: what an error message quotes.
  var text: String {
    switch self {
    case .null: "null"
    case .bool(let flag): flag ? "true" : "false"
    case .integer(let integer): String(integer)
    case .number(let number): String(number)
    case .string(let text): text
    }
  }
}
