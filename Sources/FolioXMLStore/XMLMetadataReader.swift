import FolioModel
import FolioStores
import Foundation

/// Reads `<databaseInfo>`: the store version (which must be Core Data's 134481920), the
/// store's UUID, the next object ID and the metadata property list.
///
/// The property list's known keys fill ``StoreMetadata``'s fields; every other key, Apple's
/// `NSStoreModelVersionHashesDigest` and Folio's ``StoreMetadata/folioChecksumKey`` included,
/// goes to `userInfo` as it is.
struct XMLMetadataReader {
  static let storeVersion = "134481920"

  let reader: XMLStreamReader
  var metadata = StoreMetadata(storeType: "XML", identifier: "")
  var nextObjectID: Int64?

  init(reader: XMLStreamReader) { self.reader = reader }

  private func element() throws(StoreError) -> Bool {
    while true {
      switch try reader.next() {
      case .text: continue
      case .start: return true
      case .end: return false
      case .endOfFile:
        throw StoreError.truncated(
          "in <databaseInfo>", at: InputLocation(file: reader.path, line: reader.line))
      }
    }
  }

  /// Reads from just after `<databaseInfo>` to its end tag.
  mutating func read() throws(StoreError) {
    var sawVersion = false
    while try element() {
      let location = reader.lazyLocation()
      if reader.isNamed("version") {
        let text = try reader.elementText("version").trimmingCharacters(in: .whitespacesAndNewlines)
        guard text == Self.storeVersion else {
          throw StoreError.unsupportedVersion(text, at: location.resolved())
        }
        sawVersion = true
      } else if reader.isNamed("UUID") {
        metadata.identifier = try reader.elementText("UUID")
          .trimmingCharacters(in: .whitespacesAndNewlines)
      } else if reader.isNamed("nextObjectID") {
        let text = try reader.elementText("nextObjectID")
          .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = Int64(text), value >= 1 else {
          throw StoreError.badField(text, "next object ID", at: location.resolved())
        }
        nextObjectID = value
      } else if reader.isNamed("metadata") {
        try readMetadata()
      } else {
        try reader.skipElement()
      }
    }
    guard sawVersion else {
      throw StoreError.missingAttribute(
        "version", on: "databaseInfo", at: InputLocation(file: reader.path, line: reader.line))
    }
  }

  private mutating func readMetadata() throws(StoreError) {
    while try element() {
      guard reader.isNamed("plist") else {
        throw StoreError.unexpectedElement(
          reader.nameString, expected: "<plist>", at: reader.location())
      }
      guard try element() else { continue }
      let location = reader.lazyLocation()
      guard case .dictionary(let values) = try value(level: 1) else {
        throw StoreError.unexpectedElement(
          reader.nameString, expected: "<dict> in <plist>", at: location.resolved())
      }
      metadata.apply(values)
      while try element() { try reader.skipElement() }
    }
  }

  /// The property-list value whose start tag the reader stands on, read to its end tag; an
  /// array or dictionary there is on `level`, refused past
  /// ``StoreLimits/maximumNestingLevels``.
  private func value(level: Int) throws(StoreError) -> PropertyListValue {
    let location = reader.lazyLocation()
    if level > StoreLimits.maximumNestingLevels, reader.isNamed("dict") || reader.isNamed("array") {
      throw StoreError(
        .limitExceeded, StoreLimits.nestedTooDeeply("property lists"), at: reader.location())
    }
    if reader.isNamed("dict") {
      var result: [String: PropertyListValue] = [:]
      while try element() {
        guard reader.isNamed("key") else {
          throw StoreError.unexpectedElement(
            reader.nameString, expected: "<key>", at: reader.location())
        }
        let key = try reader.elementText("key")
        guard try element() else {
          throw StoreError.badField(
            key, "property list entry (the key has no value)", at: location.resolved())
        }
        result[key] = try value(level: level + 1)
      }
      return .dictionary(result)
    }
    if reader.isNamed("array") {
      var result: [PropertyListValue] = []
      while try element() { result.append(try value(level: level + 1)) }
      return .array(result)
    }
    if reader.isNamed("true") || reader.isNamed("false") {
      let flag = reader.isNamed("true")
      _ = try reader.elementText(flag ? "true" : "false")
      return .boolean(flag)
    }
    let name = reader.nameString
    let text = try reader.elementText(name)
    switch name {
    case "string":
      return .string(text)
    case "integer":
      guard let number = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw StoreError.badField(text, "property list integer", at: location.resolved())
      }
      return .integer(number)
    case "real":
      guard let number = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw StoreError.badField(text, "property list real", at: location.resolved())
      }
      return .real(number)
    case "data":
      let compact = text.filter { !$0.isWhitespace }
      guard let data = Data(base64Encoded: compact) else {
        throw StoreError.badField(compact, "property list base64 data", at: location.resolved())
      }
      return .data(data)
    case "date":
      let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
      guard let date = ISO8601DateFormatter().date(from: trimmed) else {
        throw StoreError.badField(trimmed, "property list date", at: location.resolved())
      }
      return .date(date)
    default:
      throw StoreError.unexpectedElement(
        name, expected: "a property list value", at: location.resolved())
    }
  }
}
