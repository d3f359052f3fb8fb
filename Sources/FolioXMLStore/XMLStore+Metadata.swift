import FolioModel
import FolioStores
import Foundation

extension XMLStore {
  /// Replaces the metadata of the store in the file at `url` without reading its objects:
  /// `<databaseInfo>` is written anew and everything after it is copied byte for byte, into a
  /// file that replaces the old one atomically.
  ///
  /// The new metadata is `metadata` but for what describes the objects, which stays the
  /// file's: the next object ID, the entity version hashes, and the keys derived from them
  /// (Folio's checksum of the hashes, Apple's `NSStoreModelVersionHashesDigest`), kept when the
  /// file has them and never added — so a store Apple wrote is still checked by structure
  /// afterwards, and one Folio wrote still by hash. An empty identifier keeps the file's.
  ///
  /// - Throws: what ``readMetadata(from:)`` throws for a file whose header is not sound;
  ///   `.malformedXML` when the end of `<databaseInfo>` cannot be found; `.writeFailed` when
  ///   the new file cannot be written. The old file is then intact.
  /// - Complexity: O(*n*) in the size of the file, which is copied; only the header is parsed.
  public func writeMetadata(_ metadata: StoreMetadata, to url: URL) throws(StoreError) {
    let parser = try XMLStoreParser(url: url)
    let old = parser.metadata
    let nextObjectID = parser.nextObjectID
    let bytes: [UInt8]
    do {
      bytes = Array(try Data(contentsOf: url))
    } catch {
      throw StoreError(.unreadable, "cannot read the file", at: InputLocation(file: url.path))
    }
    guard var tailStart = XMLHeaderScanner.endOfHeader(in: bytes) else {
      throw StoreError(
        .malformedXML, "the end of <databaseInfo> cannot be found",
        at: InputLocation(file: url.path))
    }
    // The header is written with its own line break after </databaseInfo>.
    if tailStart < bytes.count, bytes[tailStart] == UInt8(ascii: "\n") { tailStart += 1 }
    var new = metadata
    new.modelVersionHashes = old.modelVersionHashes
    for key in [StoreMetadata.folioChecksumKey, "NSStoreModelVersionHashesDigest"] {
      new.userInfo[key] = old.userInfo[key]
    }
    new.userInfo[Self.carriedModelKey] = nil
    var dictionary = Self.metadataDictionary(
      new, hashes: old.modelVersionHashes, identifiers: new.modelVersionIdentifiers)
    dictionary[Self.carriedModelKey] = parser.carriedModel
    let identifier = new.identifier.isEmpty ? old.identifier : new.identifier
    try AtomicFile.write(to: url) { output throws(StoreError) in
      let writer = try XMLStoreWriter(output: output)
      try writer.writeHeader(
        identifier: identifier.isEmpty ? UUID().uuidString : identifier,
        nextObjectID: nextObjectID, metadata: dictionary)
      var start = tailStart
      while start < bytes.count {
        let end = min(start + 1 << 16, bytes.count)
        try writer.raw(Array(bytes[start..<end]))
        start = end
      }
      try writer.flush()
    }
  }
}

/// Finds where an XML store's header ends, scanning its bytes as XML without building
/// anything: just past `</databaseInfo>`, or past the `<database>` start tag when there is no
/// `<databaseInfo>`. Comments, processing instructions, CDATA sections and quoted attribute
/// values are stepped over whole, so no text inside them is taken for a tag.
enum XMLHeaderScanner {
  static func endOfHeader(in bytes: [UInt8]) -> Int? {
    var index = 0
    let count = bytes.count
    func starts(_ text: String, at position: Int) -> Bool {
      let utf8 = Array(text.utf8)
      return position + utf8.count <= count
        && Array(bytes[position..<position + utf8.count]) == utf8
    }
    func skip(past text: String, from position: Int) -> Int? {
      let utf8 = Array(text.utf8)
      var position = position
      while position + utf8.count <= count {
        if bytes[position] == utf8[0], Array(bytes[position..<position + utf8.count]) == utf8 {
          return position + utf8.count
        }
        position += 1
      }
      return nil
    }
    /// Past the `>` of the tag starting at `position`, stepping over quoted values.
    func endOfTag(from position: Int) -> Int? {
      var position = position
      var quote: UInt8?
      while position < count {
        let byte = bytes[position]
        if let open = quote {
          if byte == open { quote = nil }
        } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
          quote = byte
        } else if byte == UInt8(ascii: ">") {
          return position + 1
        }
        position += 1
      }
      return nil
    }
    func name(at position: Int) -> String {
      var end = position
      while end < count, !" \t\r\n/>".utf8.contains(bytes[end]) { end += 1 }
      return String(decoding: bytes[position..<end], as: UTF8.self)
    }
    /// Where the tag or markup at `position` ends, with its kind.
    enum Markup {
      case start(String, selfClosing: Bool)
      case end(String)
      case other
    }
    func markup(at position: Int) -> (Markup, Int)? {
      if starts("<!--", at: position) {
        return skip(past: "-->", from: position + 4).map { (.other, $0) }
      }
      if starts("<![CDATA[", at: position) {
        return skip(past: "]]>", from: position + 9).map { (.other, $0) }
      }
      if starts("<?", at: position) {
        return skip(past: "?>", from: position + 2).map { (.other, $0) }
      }
      if starts("<!", at: position) { return endOfTag(from: position + 2).map { (.other, $0) } }
      if starts("</", at: position) {
        return endOfTag(from: position + 2).map { (.end(name(at: position + 2)), $0) }
      }
      guard let end = endOfTag(from: position + 1) else { return nil }
      let selfClosing = end >= 2 && bytes[end - 2] == UInt8(ascii: "/")
      return (.start(name(at: position + 1), selfClosing: selfClosing), end)
    }
    // The prolog, then <database>.
    var afterDatabase: Int?
    while index < count, afterDatabase == nil {
      guard let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) else { return nil }
      guard let (kind, end) = markup(at: open) else { return nil }
      switch kind {
      case .start("database", false): afterDatabase = end
      case .other: break
      default: return nil
      }
      index = end
    }
    guard let afterDatabase else { return nil }
    // The first element inside <database>: <databaseInfo>, or anything else (no header).
    index = afterDatabase
    while index < count {
      guard let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) else { return nil }
      guard let (kind, end) = markup(at: open) else { return nil }
      switch kind {
      case .other:
        index = end
        continue
      case .start("databaseInfo", let selfClosing):
        if selfClosing { return end }
        var depth = 0
        index = end
        while index < count {
          guard let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) else { return nil }
          guard let (inner, innerEnd) = markup(at: open) else { return nil }
          switch inner {
          case .start(_, let selfClosing): if !selfClosing { depth += 1 }
          case .end(let name):
            if depth == 0 { return name == "databaseInfo" ? innerEnd : nil }
            depth -= 1
          case .other: break
          }
          index = innerEnd
        }
        return nil
      default:
        return afterDatabase
      }
    }
    return nil
  }
}
