import FolioModel
import FolioStores
import Foundation

/// The structure of an XML store, read element by element: `<database>`, an optional
/// `<databaseInfo>`, then `<object>` elements with their `<attribute>` and `<relationship>`
/// children.
///
/// The parser knows the layout but not the model: ``XMLRecordReader`` types the values by a
/// model, ``XMLModelInference`` collects what the file shows. Names and values are handed over
/// as they are written.
final class XMLStoreParser {
  /// A property element's header.
  enum PropertyHeader {
    /// `<attribute name type>`: the caller then reads its text or, for a composite, its members.
    case attribute(name: String, type: String, line: Int)
    /// `<relationship name type destination idrefs>`, read to its end tag.
    case relationship(name: String, type: String, destination: String?, idrefs: String, line: Int)
  }

  let reader: XMLStreamReader
  var path: String { reader.path }
  /// What `<databaseInfo>` said; `nil` fields when the store has none.
  private(set) var metadata: StoreMetadata
  private(set) var nextObjectID: Int64?
  private(set) var hasDatabaseInfo = false
  /// The value of the metadata's ``XMLStore/carriedModelKey``, kept out of
  /// `metadata.userInfo`: the model a Folio writer stored with the objects.
  private(set) var carriedModel: PropertyListValue?
  // No access to a property marked `@exclusivity(unchecked)` overlaps another access to it: none is
  // passed inout to code that can reach it again, and no closure run while one is being changed
  // touches it. Debug builds, where the tests run, check that at every access; release builds leave
  // the check out (an XML load takes 1.3 times as long with it). Each property keeps its own mark:
  // gathered in one struct, reading one field while changing another would overlap on the struct.
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// Whether the reader stands on an `<object>` start tag not yet handed out.
  private var isAtObject = false
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  private var isFinished = false
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  private var scratch: [UInt8] = []

  /// Opens `url` and reads up to the first object; `parsesAhead` as ``XMLStreamReader`` takes
  /// it.
  init(url: URL, parsesAhead: Bool? = nil) throws(StoreError) {
    reader = try XMLStreamReader(url: url, parsesAhead: parsesAhead)
    metadata = StoreMetadata(storeType: "XML", identifier: "")
    try readHeader()
  }

  private func nextElementEvent() throws(StoreError) -> XMLStreamReader.Event {
    while true {
      let event = try reader.next()
      if event != .text { return event }
    }
  }

  private func readHeader() throws(StoreError) {
    guard try nextElementEvent() == .start else {
      throw StoreError.truncated("no root element", at: InputLocation(file: path, line: 1))
    }
    guard reader.isNamed(.database) else {
      throw StoreError.unexpectedElement(
        reader.nameString, expected: "<database>", at: reader.location())
    }
    while true {
      switch try nextElementEvent() {
      case .start where reader.isNamed(.databaseInfo) && !hasDatabaseInfo:
        hasDatabaseInfo = true
        var info = XMLMetadataReader(reader: reader)
        try info.read()
        metadata = info.metadata
        carriedModel = metadata.userInfo.removeValue(forKey: XMLStore.carriedModelKey)
        nextObjectID = info.nextObjectID
      case .start where reader.isNamed(.object):
        isAtObject = true
        return
      case .start:
        throw StoreError.unexpectedElement(
          reader.nameString, expected: "<databaseInfo> or <object>", at: reader.location())
      case .end:
        try finish()
        return
      case .endOfFile, .text:
        throw StoreError.truncated(
          "in <database>", at: InputLocation(file: path, line: reader.line))
      }
    }
  }

  private func finish() throws(StoreError) {
    isFinished = true
    switch try nextElementEvent() {
    case .endOfFile: return
    default:
      throw StoreError.malformedXML(
        "content after </database>", at: InputLocation(file: path, line: reader.line))
    }
  }

  /// The next object's `type` and `id` and its line, or `nil` after the last.
  func nextObject() throws(StoreError) -> (type: String, id: String, line: Int)? {
    guard try advanceToObject() != nil else { return nil }
    return try objectHeader { type, id, line in
      (String(decoding: type, as: UTF8.self), String(decoding: id, as: UTF8.self), line)
    }
  }

  /// Moves to the next `<object>` start tag and returns its line, or `nil` after the last.
  func advanceToObject() throws(StoreError) -> Int? {
    if isFinished { return nil }
    if !isAtObject {
      switch try nextElementEvent() {
      case .start where reader.isNamed(.object): break
      case .start:
        throw StoreError.unexpectedElement(
          reader.nameString, expected: "<object>", at: reader.location())
      case .end:
        try finish()
        return nil
      case .endOfFile, .text:
        throw StoreError.truncated(
          "in <database>", at: InputLocation(file: path, line: reader.line))
      }
    }
    isAtObject = false
    return reader.line
  }

  /// Calls `body` with the current `<object>`'s `type` and `id` bytes and its line.
  func objectHeader<Result>(
    _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, Int) throws(StoreError) ->
      Result
  ) throws(StoreError) -> Result {
    guard let type = reader.attribute(.type) else {
      throw StoreError.missingAttribute("type", on: "object", at: reader.location())
    }
    guard let id = reader.attribute(.id) else {
      throw StoreError.missingAttribute("id", on: "object", at: reader.location())
    }
    return try body(type, id, reader.line)
  }

  /// The next property of the current object (or composite attribute), or `nil` at its end.
  func nextProperty() throws(StoreError) -> PropertyHeader? {
    guard let (isAttribute, line) = try advanceToProperty() else { return nil }
    if isAttribute {
      return try attributeHeader { name, type in
        .attribute(
          name: String(decoding: name, as: UTF8.self), type: String(decoding: type, as: UTF8.self),
          line: line)
      }
    }
    return try relationshipHeader { name, type, destination, idrefs in
      .relationship(
        name: String(decoding: name, as: UTF8.self), type: String(decoding: type, as: UTF8.self),
        destination: destination.map { String(decoding: $0, as: UTF8.self) },
        idrefs: idrefs.map { String(decoding: $0, as: UTF8.self) } ?? "", line: line)
    }
  }

  /// Moves to the next property's start tag and says whether it is an `<attribute>` (or a
  /// `<relationship>`), with its line; `nil` at the end of the object.
  func advanceToProperty() throws(StoreError) -> (isAttribute: Bool, line: Int)? {
    switch try nextElementEvent() {
    case .end: return nil
    case .endOfFile, .text:
      throw StoreError.truncated("in <object>", at: InputLocation(file: path, line: reader.line))
    case .start: break
    }
    let line = reader.line
    if reader.isNamed(.attribute) { return (true, line) }
    guard reader.isNamed(.relationship) else {
      throw StoreError.unexpectedElement(
        reader.nameString, expected: "<attribute> or <relationship>", at: reader.location())
    }
    return (false, line)
  }

  /// Calls `body` with the current `<attribute>`'s `name` and `type` bytes, valid in `body`.
  func attributeHeader<Result>(
    _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws(StoreError) -> Result
  ) throws(StoreError) -> Result {
    guard let name = reader.attribute(.name) else {
      throw StoreError.missingAttribute("name", on: "attribute", at: reader.location())
    }
    guard let type = reader.attribute(.type) else {
      throw StoreError.missingAttribute("type", on: "attribute", at: reader.location())
    }
    return try body(name, type)
  }

  /// Calls `body` with the current `<relationship>`'s `name`, `type`, `destination` and
  /// `idrefs` bytes, then reads to its end tag.
  func relationshipHeader<Result>(
    _ body: (
      UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>?,
      UnsafeBufferPointer<UInt8>?
    ) throws(StoreError) -> Result
  ) throws(StoreError) -> Result {
    guard let name = reader.attribute(.name) else {
      throw StoreError.missingAttribute("name", on: "relationship", at: reader.location())
    }
    guard let type = reader.attribute(.type) else {
      throw StoreError.missingAttribute("type", on: "relationship", at: reader.location())
    }
    let result: Result
    do {
      result = try body(name, type, reader.attribute(.destination), reader.attribute(.idrefs))
    } catch {
      // The element is read to its end first, as when the header was read before the caller
      // looked at it: an error there comes first.
      _ = try reader.elementText("relationship")
      throw error
    }
    _ = try reader.elementText("relationship")
    return result
  }

  /// Calls `body` with the text of the current `<attribute>` (NUL-terminated) and reads to its
  /// end tag.
  func withAttributeText<Result>(_ body: (UnsafePointer<UInt8>, Int) throws(StoreError) -> Result)
    throws(StoreError) -> Result
  {
    scratch.removeAll(keepingCapacity: true)
    // Mostly one text node and the end tag, parsed together: the text is read where it lies.
    switch try reader.next() {
    case .text:
      if reader.isEndParsedNext, let (bytes, count) = reader.textBytes {
        _ = try reader.next()
        return try body(bytes, count)
      }
      reader.withValue { pointer, count in
        scratch.append(contentsOf: UnsafeBufferPointer(start: pointer, count: count))
      }
    case .end:
      return try withUnsafePointer(to: UInt8(0)) { empty throws(StoreError) -> Result in
        try body(empty, 0)
      }
    case .start:
      throw StoreError.unexpectedElement(
        reader.nameString, expected: "text in <attribute>", at: reader.location())
    case .endOfFile:
      throw StoreError.truncated("in <attribute>", at: InputLocation(file: path, line: reader.line))
    }
    loop: while true {
      switch try reader.next() {
      case .text:
        reader.withValue { pointer, count in
          scratch.append(contentsOf: UnsafeBufferPointer(start: pointer, count: count))
        }
      case .end: break loop
      case .start:
        throw StoreError.unexpectedElement(
          reader.nameString, expected: "text in <attribute>", at: reader.location())
      case .endOfFile:
        throw StoreError.truncated(
          "in <attribute>", at: InputLocation(file: path, line: reader.line))
      }
    }
    let count = scratch.count
    scratch.append(0)
    return try scratch.withUnsafeBufferPointer { buffer throws(StoreError) -> Result in
      // A non-empty array always has a base address.
      guard let base = buffer.baseAddress else { preconditionFailure("scratch buffer is empty") }
      return try body(base, count)
    }
  }

  /// Skips the rest of the current attribute element.
  func skipAttribute() throws(StoreError) { try reader.skipElement() }

  /// The location of `line` in the file, with the column of `<tag name="name"` when found.
  func location(
    tag: String, named name: String?, line: Int, entity: String? = nil, property: String? = nil
  ) -> InputLocation {
    let found = XMLProlog.locate(tag: tag, named: name, fromLine: line, path: path)
    return InputLocation(
      file: path, line: found?.line ?? line, column: found?.column, entity: entity,
      property: property)
  }
}
