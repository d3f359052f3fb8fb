import FolioStores
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The start tags of an XML store's objects and their properties, found by scanning its bytes
/// without parsing them: what model inference needs, at a small part of the cost of a parse.
///
/// It reads the markup Core Data writes — UTF-8, a `<database>` root, comments, processing
/// instructions, CDATA sections, a DOCTYPE without an internal subset, attribute values with
/// the predefined and numeric character references — and gives up on anything else
/// (``Unsupported``), as it does on a file that is not well formed where that shows in the
/// tags it reads. It checks nothing else: the caller reads the file through libxml2 afterwards,
/// which does. Where it finishes, its tags are the tags libxml2 reads.
struct XMLTagScan {
  /// The file holds something the scan does not read.
  struct Unsupported: Error {}

  /// A text of a tag: a view of the scan's buffer, valid only while the visitor runs.
  typealias Text = UnsafeBufferPointer<UInt8>

  /// A start tag of the store's structure, its texts with their character references
  /// replaced. IDs, names and types hold no tab or line break; `idrefs` may.
  enum Tag {
    /// `<object type id>`, a child of `<database>`.
    case object(type: Text, id: Text)
    /// `<attribute name type>`, a child of an `<object>`.
    case attribute(name: Text, type: Text)
    /// `<relationship name type destination idrefs>`, a child of an `<object>`.
    case relationship(name: Text, type: Text, destination: Text?, idrefs: Text)
  }

  private let descriptor: Int32
  /// The bytes read, `capacity` of them, freed by ``close()``: no reference is counted as the
  /// scan goes.
  private var buffer: UnsafeMutablePointer<UInt8>
  private var capacity = Self.chunk
  /// Where the unread bytes of `buffer` start and end.
  private var start = 0
  private var end = 0
  private var atEndOfFile = false
  /// Where `buffer` starts in the file.
  private var bufferOffset = 0
  /// How many elements are open around the scan's position.
  private var depth = 0
  private var sawRoot = false
  /// Whether the scan is inside an `<object>`.
  private var inObject = false

  private static let chunk = 1 << 20

  /// Opens the file at `path`; `nil` when it cannot be read (the caller's parse says why).
  init?(path: String) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    self.descriptor = descriptor
    buffer = .allocate(capacity: Self.chunk)
  }

  /// Opens the file at `path` at byte `offset`, where another scan stopped between two of
  /// `<database>`'s children (``isBetweenObjects(at:)``).
  init?(path: String, at offset: Int) {
    self.init(path: path)
    guard lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
      close()
      return nil
    }
    bufferOffset = offset
    depth = 1
    sawRoot = true
  }

  /// Whether a scan that stopped at its limit stopped at markup starting at byte `offset`,
  /// between two children of `<database>`: a scan from there reads the rest as this one would.
  func isBetweenObjects(at offset: Int) -> Bool {
    depth == 1 && !inObject && bufferOffset + start == offset && start < end
  }

  /// Closes the file and frees the buffer; the scan is not used after.
  func close() {
    _ = Glibc.close(descriptor)
    buffer.deallocate()
  }

  /// The buffer, up to the end of what was read.
  private var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: buffer, count: end) }

  /// Reads more of the file after the unread bytes; whether any came.
  private mutating func refill() throws(Unsupported) -> Bool {
    if atEndOfFile { return false }
    if start > 0 {
      if end > start { memmove(buffer, buffer + start, end - start) }
      end -= start
      bufferOffset += start
      start = 0
    }
    if end == capacity {
      let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
      larger.update(from: buffer, count: end)
      buffer.deallocate()
      buffer = larger
      capacity *= 2
    }
    let count = read(descriptor, buffer + end, capacity - end)
    guard count >= 0 else { throw Unsupported() }
    if count == 0 {
      atEndOfFile = true
      return false
    }
    end += count
    return true
  }

  /// Gives each tag of the structure to `visit`, in file order, up to the end of the file, or
  /// with a `limit`, up to the first markup that starts at or after that byte offset; gives up
  /// when `visit` returns false. Whether it reached the end of the file.
  @discardableResult
  mutating func scan(upTo limit: Int? = nil, _ visit: (Tag) -> Bool) throws(Unsupported) -> Bool {
    while true {
      let found = index(of: UInt8(ascii: "<"), in: bytes, from: start, to: end)
      guard let found else {
        start = end
        if try refill() { continue }
        guard sawRoot, depth == 0 else { throw Unsupported() }
        return true
      }
      if let limit, bufferOffset + found >= limit {
        start = found
        return false
      }
      start = found
      // The whole markup is in the buffer, or more is read and it is tried again.
      var complete = try markup(visit)
      while !complete, try refill() { complete = try markup(visit) }
      guard complete else { throw Unsupported() }
    }
  }

  /// Reads the markup at `start` (a `<`), moving past it and giving a tag of the structure to
  /// `visit` when it is all in the buffer; whether it was.
  private mutating func markup(_ visit: (Tag) -> Bool) throws(Unsupported) -> Bool {
    let bytes = self.bytes
    var cursor = Cursor(bytes: bytes, position: start + 1, end: end)
    guard let first = cursor.peek() else { return false }
    switch first {
    case UInt8(ascii: "?"):
      guard let after = cursor.find("?>") else { return false }
      if depth == 0, !sawRoot {
        try Self.checkDeclaration(bytes, from: start, to: after)
      }
      start = after
      return true
    case UInt8(ascii: "!"):
      if cursor.hasPrefix("!--") {
        guard let after = cursor.find("-->") else { return false }
        start = after
      } else if cursor.hasPrefix("![CDATA[") {
        guard depth > 0 else { throw Unsupported() }
        guard let after = cursor.find("]]>") else { return false }
        start = after
      } else if cursor.hasPrefix("!DOCTYPE") {
        guard !sawRoot else { throw Unsupported() }
        while let byte = cursor.next() {
          // An internal subset could declare entities: not read here.
          if byte == UInt8(ascii: "[") { throw Unsupported() }
          if byte == UInt8(ascii: ">") {
            start = cursor.position
            return true
          }
        }
        return false
      } else {
        guard cursor.remaining >= 8 else { return false }
        throw Unsupported()
      }
      return true
    case UInt8(ascii: "/"):
      guard let after = cursor.find(">") else { return false }
      guard depth > 0 else { throw Unsupported() }
      depth -= 1
      if depth <= 1 { inObject = false }
      start = after
      return true
    default:
      break
    }
    guard let element = try cursor.startTag() else { return false }
    start = cursor.position
    let level = depth
    if !element.isEmpty { depth += 1 }
    if level == 0 {
      guard !sawRoot, element.name == .database else { throw Unsupported() }
      sawRoot = true
      return true
    }
    // Values with character references are replaced into `scratch`; the others are read
    // where they are.
    var scratch: [UInt8] = []
    let accepted: Bool
    switch (level, element.name) {
    case (1, .object):
      guard let type = try element.span(.type, in: bytes, scratch: &scratch),
        let id = try element.span(.id, in: bytes, scratch: &scratch)
      else { throw Unsupported() }
      inObject = !element.isEmpty
      accepted = scratch.withUnsafeBufferPointer { scratch in
        visit(.object(type: type.text(bytes, scratch), id: id.text(bytes, scratch)))
      }
    case (2, .attribute) where inObject:
      guard let name = try element.span(.name, in: bytes, scratch: &scratch),
        let type = try element.span(.type, in: bytes, scratch: &scratch)
      else { throw Unsupported() }
      accepted = scratch.withUnsafeBufferPointer { scratch in
        visit(.attribute(name: name.text(bytes, scratch), type: type.text(bytes, scratch)))
      }
    case (2, .relationship) where inObject:
      guard let name = try element.span(.name, in: bytes, scratch: &scratch),
        let type = try element.span(.type, in: bytes, scratch: &scratch)
      else { throw Unsupported() }
      let destination = try element.span(.destination, in: bytes, scratch: &scratch)
      let idrefs = try element.span(.idrefs, in: bytes, scratch: &scratch, anyText: true)
      accepted = scratch.withUnsafeBufferPointer { scratch in
        visit(
          .relationship(
            name: name.text(bytes, scratch), type: type.text(bytes, scratch),
            destination: destination?.text(bytes, scratch),
            idrefs: idrefs?.text(bytes, scratch) ?? Text(start: nil, count: 0)))
      }
    default:
      return true
    }
    guard accepted else { throw Unsupported() }
    return true
  }

  /// Refuses an XML declaration naming an encoding other than UTF-8.
  private static func checkDeclaration(
    _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int
  ) throws(Unsupported) {
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    guard text.hasPrefix("<?xml") else { return }
    guard let range = text.range(of: "encoding") else { return }
    let rest = text[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
    guard rest.lowercased().hasPrefix("utf-8") else { throw Unsupported() }
  }
}

/// A start tag: its name, and where the values of the attributes the scan reads are.
private struct StartTag {
  enum Name {
    case database, object, attribute, relationship, other
  }

  /// The attributes the scan reads.
  enum Key: Int {
    case type, id, name, destination, idrefs
  }

  var name: Name
  /// Whether it closes itself (`<a/>`).
  var isEmpty = false
  /// Each key's value, as a range of the buffer, and whether it holds references.
  private var type, id, name_, destination, idrefs: Range<Int>?
  private var escaped: UInt8 = 0

  init(name: Name) { self.name = name }

  private subscript(key: Key) -> Range<Int>? {
    get {
      switch key {
      case .type: type
      case .id: id
      case .name: name_
      case .destination: destination
      case .idrefs: idrefs
      }
    }
    set {
      switch key {
      case .type: type = newValue
      case .id: id = newValue
      case .name: name_ = newValue
      case .destination: destination = newValue
      case .idrefs: idrefs = newValue
      }
    }
  }

  /// Sets `key`'s value; refuses a second one.
  mutating func set(_ key: Key, _ range: Range<Int>, escaped: Bool) throws(XMLTagScan.Unsupported) {
    guard self[key] == nil else { throw XMLTagScan.Unsupported() }
    self[key] = range
    if escaped { self.escaped |= 1 << UInt8(key.rawValue) }
  }

  /// Where the value of the attribute `key` is, if the tag has it: in the buffer, or, when it
  /// has character references, replaced and appended to `scratch`. A tab or a line break is
  /// read only where `anyText` allows it (libxml2 gives it as a space; Core Data writes none in
  /// names, types and IDs), and never from a character reference (libxml2 keeps it).
  func span(
    _ key: Key, in buffer: UnsafeBufferPointer<UInt8>, scratch: inout [UInt8],
    anyText: Bool = false
  ) throws(XMLTagScan.Unsupported) -> Span? {
    guard let range = self[key] else { return nil }
    let raw = UnsafeBufferPointer(rebasing: buffer[range])
    func isBreak(_ byte: UInt8) -> Bool { byte == 9 || byte == 10 || byte == 13 }
    guard anyText || !raw.contains(where: isBreak) else { throw XMLTagScan.Unsupported() }
    guard escaped & (1 << UInt8(key.rawValue)) != 0 else { return Span(range: range) }
    let spaced = raw.map { isBreak($0) ? 32 : $0 }
    let value = try spaced.withUnsafeBufferPointer { spaced throws(XMLTagScan.Unsupported) in
      try Cursor.unescaped(spaced)
    }
    guard !value.contains(where: isBreak) else { throw XMLTagScan.Unsupported() }
    scratch += value
    return Span(range: (scratch.count - value.count)..<scratch.count, inScratch: true)
  }
}

/// Where a value of a start tag is: in the scan's buffer or in its scratch bytes.
private struct Span {
  var range: Range<Int>
  var inScratch = false

  func text(_ buffer: XMLTagScan.Text, _ scratch: XMLTagScan.Text) -> XMLTagScan.Text {
    XMLTagScan.Text(rebasing: (inScratch ? scratch : buffer)[range])
  }
}

/// A position in the scan's buffer.
private struct Cursor {
  let bytes: UnsafeBufferPointer<UInt8>
  var position: Int
  let end: Int

  var remaining: Int { end - position }

  func peek() -> UInt8? { position < end ? bytes[position] : nil }

  mutating func next() -> UInt8? {
    guard position < end else { return nil }
    defer { position += 1 }
    return bytes[position]
  }

  func hasPrefix(_ text: StaticString) -> Bool {
    let count = text.utf8CodeUnitCount
    guard remaining >= count else { return false }
    return text.withUTF8Buffer { prefix in
      (0..<count).allSatisfy { bytes[position + $0] == prefix[$0] }
    }
  }

  /// The position after the next `text`, from here.
  func find(_ text: StaticString) -> Int? {
    let count = text.utf8CodeUnitCount
    return text.withUTF8Buffer { pattern -> Int? in
      var index = position
      while index + count <= end {
        guard let found = FolioXMLStore.index(of: pattern[0], in: bytes, from: index, to: end)
        else { return nil }
        index = found
        if index + count <= end, (0..<count).allSatisfy({ bytes[index + $0] == pattern[$0] }) {
          return index + count
        }
        index += 1
      }
      return nil
    }
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 32 || byte == 9 || byte == 10 || byte == 13
  }

  private mutating func skipSpaces() {
    while position < end, Self.isSpace(bytes[position]) { position += 1 }
  }

  /// A name: up to a space, `=`, `/` or `>`; `nil` when it does not end in the buffer.
  private mutating func name() throws(XMLTagScan.Unsupported) -> Range<Int>? {
    let first = position
    while position < end {
      let byte = bytes[position]
      if Self.isSpace(byte) || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "/")
        || byte == UInt8(ascii: ">")
      {
        break
      }
      if byte == UInt8(ascii: "<") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
        throw XMLTagScan.Unsupported()
      }
      position += 1
    }
    guard position < end else { return nil }
    guard position > first else { throw XMLTagScan.Unsupported() }
    return first..<position
  }

  /// Whether the bytes in `range` spell `text`.
  private func spells(_ range: Range<Int>, _ text: StaticString) -> Bool {
    guard range.count == text.utf8CodeUnitCount else { return false }
    return text.withUTF8Buffer { expected in
      (0..<range.count).allSatisfy { bytes[range.lowerBound + $0] == expected[$0] }
    }
  }

  /// The start tag after `<`; `nil` when it does not end in the buffer.
  mutating func startTag() throws(XMLTagScan.Unsupported) -> StartTag? {
    guard let tagName = try name() else { return nil }
    let kind: StartTag.Name =
      spells(tagName, "attribute")
      ? .attribute
      : spells(tagName, "relationship")
        ? .relationship
        : spells(tagName, "object") ? .object : spells(tagName, "database") ? .database : .other
    var tag = StartTag(name: kind)
    while true {
      skipSpaces()
      guard let byte = peek() else { return nil }
      if byte == UInt8(ascii: ">") {
        position += 1
        return tag
      }
      if byte == UInt8(ascii: "/") {
        guard position + 1 < end else { return nil }
        guard bytes[position + 1] == UInt8(ascii: ">") else { throw XMLTagScan.Unsupported() }
        position += 2
        tag.isEmpty = true
        return tag
      }
      guard let attribute = try name() else { return nil }
      skipSpaces()
      guard let equals = next() else { return nil }
      guard equals == UInt8(ascii: "=") else { throw XMLTagScan.Unsupported() }
      skipSpaces()
      guard let quote = next() else { return nil }
      guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
        throw XMLTagScan.Unsupported()
      }
      guard let close = index(of: quote, in: bytes, from: position, to: end) else { return nil }
      let value = position..<close
      position = close + 1
      guard kind != .other else { continue }
      guard
        index(of: UInt8(ascii: "<"), in: bytes, from: value.lowerBound, to: value.upperBound)
          == nil
      else { throw XMLTagScan.Unsupported() }
      let escaped =
        index(of: UInt8(ascii: "&"), in: bytes, from: value.lowerBound, to: value.upperBound)
        != nil
      let key: StartTag.Key? =
        spells(attribute, "type")
        ? .type
        : spells(attribute, "id")
          ? .id
          : spells(attribute, "name")
            ? .name
            : spells(attribute, "destination")
              ? .destination : spells(attribute, "idrefs") ? .idrefs : nil
      if let key { try tag.set(key, value, escaped: escaped) }
    }
  }

  /// `raw` with its character references replaced.
  static func unescaped(_ raw: UnsafeBufferPointer<UInt8>) throws(XMLTagScan.Unsupported)
    -> [UInt8]
  {
    var out: [UInt8] = []
    var index = 0
    while index < raw.count {
      guard raw[index] == UInt8(ascii: "&") else {
        out.append(raw[index])
        index += 1
        continue
      }
      guard let semicolon = raw[index...].firstIndex(of: UInt8(ascii: ";")) else {
        throw XMLTagScan.Unsupported()
      }
      let name = String(decoding: raw[(index + 1)..<semicolon], as: UTF8.self)
      index = semicolon + 1
      switch name {
      case "lt": out.append(UInt8(ascii: "<"))
      case "gt": out.append(UInt8(ascii: ">"))
      case "amp": out.append(UInt8(ascii: "&"))
      case "quot": out.append(UInt8(ascii: "\""))
      case "apos": out.append(UInt8(ascii: "'"))
      default:
        let number: UInt32?
        if name.hasPrefix("#x") {
          number = UInt32(name.dropFirst(2), radix: 16)
        } else if name.hasPrefix("#") {
          number = UInt32(name.dropFirst(), radix: 10)
        } else {
          number = nil
        }
        guard let number, number != 0, let scalar = Unicode.Scalar(number) else {
          throw XMLTagScan.Unsupported()
        }
        out += Array(String(Character(scalar)).utf8)
      }
    }
    return out
  }
}

/// The index of the first `byte` in `bytes[from..<to]`, found with `memchr`.
private func index(
  of byte: UInt8, in bytes: UnsafeRawBufferPointer, from: Int, to: Int
) -> Int? {
  guard let base = bytes.baseAddress, from < to,
    let found = memchr(base + from, Int32(byte), to - from)
  else { return nil }
  return UnsafeRawPointer(found) - base
}

private func index(
  of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int
) -> Int? {
  index(of: byte, in: UnsafeRawBufferPointer(bytes), from: from, to: to)
}
