import FolioModel
import FolioStores
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The check of an XML store's prolog, made on the raw bytes before libxml2 reads anything, and
/// the finding of exact columns for error messages.
///
/// A store's prolog may hold the XML declaration, comments, processing instructions and one
/// DOCTYPE, which must be Core Data's: `<!DOCTYPE database SYSTEM
/// "file:///System/Library/DTDs/CoreData.dtd">`. Any other DOCTYPE, and any internal subset,
/// is refused here, naming its line and column, so that no entity is ever declared (which
/// rules out entity expansion and external entities) and no DTD is ever fetched.
enum XMLProlog {
  /// How much of the file the prolog may take.
  static let limit = 65_536

  /// Checks the prolog of the file open at `descriptor` without moving its offset.
  static func check(descriptor: Int32, path: String) throws(StoreError) {
    var failure: Int32 = 0
    let bytes = [UInt8](unsafeUninitializedCapacity: limit) { buffer, initialized in
      let count = pread(descriptor, buffer.baseAddress, limit, 0)
      if count < 0 { failure = errno }
      initialized = max(count, 0)
    }
    guard failure == 0 else {
      throw StoreError.unreadable(path, String(cString: strerror(failure)))
    }
    try check(bytes, path: path)
  }

  static func check(_ bytes: [UInt8], path: String) throws(StoreError) {
    func location(_ offset: Int) -> InputLocation {
      var line = 1
      var column = 1
      for byte in bytes[..<min(offset, bytes.count)] {
        if byte == 0x0A {
          line += 1
          column = 1
        } else {
          column += 1
        }
      }
      return InputLocation(file: path, line: line, column: column)
    }
    func starts(_ text: String, at offset: Int) -> Bool {
      matches(Array(text.utf8), in: bytes, at: offset)
    }
    func find(_ text: String, from offset: Int) -> Int? {
      first(Array(text.utf8), in: bytes, from: offset)
    }
    guard !bytes.isEmpty else {
      throw StoreError.truncated("the file is empty", at: location(0))
    }
    var offset = 0
    if starts("\u{FEFF}", at: 0) { offset = 3 }
    if bytes.count >= 2,
      bytes[0] == 0 || bytes[1] == 0 || (bytes[0] == 0xFE && bytes[1] == 0xFF)
        || (bytes[0] == 0xFF && bytes[1] == 0xFE)
    {
      throw StoreError.notUTF8(at: location(0))
    }
    while offset < bytes.count {
      if XMLValueCoding.isSpace(bytes[offset]) {
        offset += 1
      } else if starts("<?", at: offset) {
        guard let end = find("?>", from: offset) else { return }
        offset = end + 2
      } else if starts("<!--", at: offset) {
        guard let end = find("-->", from: offset) else { return }
        offset = end + 3
      } else if starts("<!DOCTYPE", at: offset) {
        try checkDoctype(bytes, at: offset, location: location)
        guard let end = find(">", from: offset) else { return }
        offset = end + 1
      } else if bytes[offset] != UInt8(ascii: "<") {
        let end =
          bytes[offset...].prefix(20).firstIndex { $0 == 0x0A || $0 == 0x0D }
          ?? min(offset + 20, bytes.count)
        let start = String(decoding: bytes[offset..<end], as: UTF8.self)
        throw StoreError(
          .malformedXML, "the file is not XML: it starts with \"\(start)\"", at: location(offset))
      } else {
        return
      }
    }
  }

  private static func checkDoctype(
    _ bytes: [UInt8], at start: Int, location: (Int) -> InputLocation
  ) throws(StoreError) {
    var end = start
    var quote: UInt8?
    while end < bytes.count {
      let byte = bytes[end]
      if let open = quote {
        if byte == open { quote = nil }
      } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
        quote = byte
      } else if byte == UInt8(ascii: "[") {
        if let entity = firstEntity(bytes, from: end) {
          throw StoreError.entityDeclaration(entity.name, at: location(entity.offset))
        }
        throw StoreError.internalSubset(at: location(end))
      } else if byte == UInt8(ascii: ">") {
        break
      }
      end += 1
    }
    let declaration = String(decoding: bytes[start..<min(end + 1, bytes.count)], as: UTF8.self)
    let words = declaration.dropFirst("<!DOCTYPE".count).dropLast()
      .split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
    let allowed = ["database", "SYSTEM", "\"\(StoreError.coreDataSystemID)\""]
    guard words.map(String.init) == allowed else {
      let shown = declaration.count > 120 ? String(declaration.prefix(120)) + "…" : declaration
      throw StoreError.foreignDTD(shown, at: location(start))
    }
  }

  private static func firstEntity(_ bytes: [UInt8], from start: Int) -> (name: String, offset: Int)?
  {
    let marker = Array("<!ENTITY".utf8)
    if let index = first(marker, in: bytes, from: start) {
      var nameStart = index + marker.count
      while nameStart < bytes.count,
        XMLValueCoding.isSpace(bytes[nameStart]) || bytes[nameStart] == UInt8(ascii: "%")
      {
        nameStart += 1
      }
      var nameEnd = nameStart
      while nameEnd < bytes.count, !XMLValueCoding.isSpace(bytes[nameEnd]) { nameEnd += 1 }
      return (String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self), index)
    }
    return nil
  }

  /// Whether `pattern` is in `bytes` at `offset`. Compares in place: the prolog check runs on
  /// every read, and an unclosed comment or declaration makes it search all of its 64 KiB.
  private static func matches(_ pattern: [UInt8], in bytes: [UInt8], at offset: Int) -> Bool {
    offset >= 0 && offset + pattern.count <= bytes.count
      && bytes[offset..<offset + pattern.count].elementsEqual(pattern)
  }

  /// The offset of the first `pattern` in `bytes` at or after `offset`, or `nil`.
  private static func first(_ pattern: [UInt8], in bytes: [UInt8], from offset: Int) -> Int? {
    guard let head = pattern.first, pattern.count <= bytes.count else { return nil }
    var index = max(offset, 0)
    while index <= bytes.count - pattern.count {
      if bytes[index] == head, matches(pattern, in: bytes, at: index) { return index }
      index += 1
    }
    return nil
  }

  // MARK: Columns, for error messages

  /// Whether only white space follows `line`:`column` in the file: an error there means the
  /// file was cut short. Only error paths call this.
  static func isAtEnd(line: Int, column: Int, path: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: path) else { return false }
    return data.withUnsafeBytes { bytes in
      var currentLine = 1
      var offset = 0
      while currentLine < line, offset < bytes.count {
        if bytes[offset] == 0x0A { currentLine += 1 }
        offset += 1
      }
      guard column - 1 <= bytes.count - offset else { return true }
      return bytes[(offset + max(0, column - 1))...].allSatisfy { XMLValueCoding.isSpace($0) }
    }
  }

  /// The 1-based column where `<tag` starts on `line` of the file at `path` (the first
  /// occurrence whose `name` attribute is `name`, when given), or `nil`.
  ///
  /// Only error paths call this: it reads the file up to `line`.
  static func column(ofTag tag: String, named name: String? = nil, line: Int, path: String)
    -> Int?
  {
    locate(tag: tag, named: name, fromLine: line, path: path, searchLines: 1)?.column
  }

  /// The line and column of the first `<tag` at or after `line` (with `name="…"` when given),
  /// looking at most `searchLines` lines ahead.
  ///
  /// Reads the file in 1 MiB pieces and keeps only the bytes of the line being matched, from
  /// `line` on: time linear in the bytes up to the match, whatever the lines' lengths.
  static func locate(
    tag: String, named name: String?, fromLine line: Int, path: String, searchLines: Int = 10_000
  ) -> (line: Int, column: Int)? {
    guard !tag.isEmpty, let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    var currentLine = 1
    var text = [UInt8]()
    let needle = Array("<\(tag)".utf8)
    let nameNeedle = name.map { Array("name=\"\($0)\"".utf8) }
    while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
      let bytes = [UInt8](chunk)
      var start = 0
      while let newline = bytes[start...].firstIndex(of: 0x0A) {
        if currentLine >= line {
          text.append(contentsOf: bytes[start..<newline])
          if let column = match(text, needle, nameNeedle) { return (currentLine, column) }
          text.removeAll(keepingCapacity: true)
        }
        currentLine += 1
        if currentLine >= line + searchLines { return nil }
        start = newline + 1
      }
      // The rest of the piece starts a line that goes on in the next piece.
      if currentLine >= line { text.append(contentsOf: bytes[start...]) }
    }
    if currentLine >= line, let column = match(text, needle, nameNeedle) {
      return (currentLine, column)
    }
    return nil
  }

  /// The 1-based column of the first `needle` in `text` that ends a tag name (a space, tab,
  /// `>`, `/` or the end of the line follows) and, when `name` is given, whose tag holds
  /// `name` before its first `>`.
  private static func match(_ text: [UInt8], _ needle: [UInt8], _ name: [UInt8]?) -> Int? {
    guard let first = needle.first, text.count >= needle.count else { return nil }
    for start in 0...(text.count - needle.count)
    where text[start] == first && text[start..<start + needle.count].elementsEqual(needle) {
      let next = start + needle.count
      if next < text.count, text[next] != 0x20, text[next] != UInt8(ascii: ">"),
        text[next] != UInt8(ascii: "/"), text[next] != 0x09
      {
        continue
      }
      if let name {
        guard let close = text[start...].firstIndex(of: UInt8(ascii: ">")),
          close - name.count >= start,
          (start...(close - name.count)).contains(where: {
            text[$0..<$0 + name.count].elementsEqual(name)
          })
        else { continue }
      }
      return start + 1
    }
    return nil
  }
}
