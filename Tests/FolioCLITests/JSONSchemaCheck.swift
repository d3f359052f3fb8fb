import Foundation

/// Checks JSON against a JSON Schema, for the keywords `Formats/` schemas use: `type`,
/// `enum`, `properties`, `required`, `additionalProperties`, `items`, `oneOf`, `pattern`,
/// `minimum` and local `$ref`s (`#/$defs/NAME`). Any other keyword is an error, so a schema
/// cannot quietly ask for more than is checked.
struct JSONSchemaCheck {
  let root: [String: Any]

  init(contentsOf url: URL) throws {
    root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
  }

  /// The failures of `value` against the root schema (or `#/$defs/NAME` with `definition`),
  /// each with its JSON path; empty when it conforms.
  func failures(of value: Any, definition: String? = nil) -> [String] {
    var found: [String] = []
    let schema: Any = definition.map { (root["$defs"] as? [String: Any])?[$0] ?? [:] } ?? root
    check(value, schema, "$", &found)
    return found
  }

  private static let known: Set<String> = [
    "$schema", "$id", "title", "description", "$defs", "type", "enum", "properties", "required",
    "additionalProperties", "items", "oneOf", "pattern", "minimum", "$ref",
  ]

  private func check(_ value: Any, _ schemaValue: Any, _ path: String, _ found: inout [String]) {
    guard let schema = schemaValue as? [String: Any] else {
      found.append("\(path): the schema is not an object")
      return
    }
    for key in schema.keys where !Self.known.contains(key) {
      found.append("\(path): the checker does not know the keyword \(key)")
    }
    if let reference = schema["$ref"] as? String {
      let prefix = "#/$defs/"
      guard reference.hasPrefix(prefix),
        let target = (root["$defs"] as? [String: Any])?[String(reference.dropFirst(prefix.count))]
      else {
        found.append("\(path): unknown $ref \(reference)")
        return
      }
      check(value, target, path, &found)
    }
    if let types = schema["type"] {
      let names = (types as? [String]) ?? [(types as? String) ?? ""]
      if !names.contains(where: { Self.value(value, isOfType: $0) }) {
        found.append("\(path): \(Self.describe(value)) is not of type \(names)")
        return
      }
    }
    if let options = schema["enum"] as? [Any],
      !options.contains(where: { ($0 as? NSObject)?.isEqual(value as? NSObject) == true })
    {
      found.append("\(path): \(Self.describe(value)) is not one of \(options)")
    }
    if let pattern = schema["pattern"] as? String, let text = value as? String,
      text.range(of: pattern, options: .regularExpression) == nil
    {
      found.append("\(path): \"\(text)\" does not match \(pattern)")
    }
    if let minimum = schema["minimum"] as? NSNumber, let number = value as? NSNumber,
      number.doubleValue < minimum.doubleValue
    {
      found.append("\(path): \(number) is below \(minimum)")
    }
    if let options = schema["oneOf"] as? [Any] {
      let matching = options.filter { option in
        var inner: [String] = []
        check(value, option, path, &inner)
        return inner.isEmpty
      }
      if matching.count != 1 {
        found.append("\(path): \(Self.describe(value)) matches \(matching.count) of oneOf")
      }
    }
    if let object = value as? [String: Any] {
      let properties = schema["properties"] as? [String: Any] ?? [:]
      for name in schema["required"] as? [String] ?? [] where object[name] == nil {
        found.append("\(path): \(name) is missing")
      }
      for (name, member) in object.sorted(by: { $0.key < $1.key }) {
        if let property = properties[name] {
          check(member, property, "\(path).\(name)", &found)
        } else if let extra = schema["additionalProperties"] {
          if let allowed = extra as? Bool {
            if !allowed { found.append("\(path): \(name) is not allowed") }
          } else {
            check(member, extra, "\(path).\(name)", &found)
          }
        }
      }
    }
    if let array = value as? [Any], let items = schema["items"] {
      for (index, item) in array.enumerated() { check(item, items, "\(path)[\(index)]", &found) }
    }
  }

  private static func value(_ value: Any, isOfType type: String) -> Bool {
    switch type {
    case "null": return value is NSNull
    case "boolean": return isBoolean(value)
    case "integer":
      guard let number = value as? NSNumber, !isBoolean(value) else { return false }
      return number.doubleValue.rounded() == number.doubleValue
    case "number": return value is NSNumber && !isBoolean(value)
    case "string": return value is String
    case "array": return value is [Any]
    case "object": return value is [String: Any]
    default: return false
    }
  }

  /// Whether Foundation read `value` as `true` or `false` rather than as a number: its
  /// booleans are numbers of C type `char`, which JSON numbers never are.
  private static func isBoolean(_ value: Any) -> Bool {
    guard let number = value as? NSNumber else { return false }
    return String(cString: number.objCType) == "c"
  }

  private static func describe(_ value: Any) -> String {
    if value is NSNull { return "null" }
    if let text = value as? String { return "\"\(text)\"" }
    return "\(value)"
  }
}
