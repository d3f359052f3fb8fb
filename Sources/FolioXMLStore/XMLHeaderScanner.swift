/// Finds where an XML store's header ends, scanning its bytes as XML without building
/// anything: just past `</databaseInfo>`, or past the `<database>` start tag when there is no
/// `<databaseInfo>`. Comments, processing instructions, CDATA sections and quoted attribute
/// values are stepped over whole, so no text inside them is taken for a tag.
struct XMLHeaderScanner {
  let bytes: [UInt8]
  private var count: Int { bytes.count }

  /// Where the header of the store whose bytes (or first bytes) are `bytes` ends; `nil` when
  /// they hold no whole header.
  static func endOfHeader(in bytes: [UInt8]) -> Int? {
    let scanner = XMLHeaderScanner(bytes: bytes)
    guard let afterDatabase = scanner.afterDatabaseTag() else { return nil }
    // The first element inside <database>: <databaseInfo>, or anything else (no header).
    var index = afterDatabase
    while let (kind, end) = scanner.nextMarkup(from: index) {
      switch kind {
      case .other:
        index = end
      case .start("databaseInfo", let selfClosing):
        return selfClosing ? end : scanner.endOfElement(named: "databaseInfo", from: end)
      default:
        return afterDatabase
      }
    }
    return nil
  }

  /// Past the `<database>` start tag, after the prolog; `nil` when something else comes first.
  private func afterDatabaseTag() -> Int? {
    var index = 0
    while let (kind, end) = nextMarkup(from: index) {
      switch kind {
      case .start("database", false): return end
      case .other: index = end
      default: return nil
      }
    }
    return nil
  }

  /// Past the end tag `name` that closes the element whose content starts at `position`.
  private func endOfElement(named name: String, from position: Int) -> Int? {
    var depth = 0
    var index = position
    while let (inner, innerEnd) = nextMarkup(from: index) {
      switch inner {
      case .start(_, let selfClosing): if !selfClosing { depth += 1 }
      case .end(let found):
        if depth == 0 { return found == name ? innerEnd : nil }
        depth -= 1
      case .other: break
      }
      index = innerEnd
    }
    return nil
  }

  /// What a tag or other markup is.
  private enum Markup {
    case start(String, selfClosing: Bool)
    case end(String)
    case other
  }

  /// The next markup from `position` on, and where it ends; `nil` when there is none whole.
  private func nextMarkup(from position: Int) -> (Markup, Int)? {
    guard position < count, let open = bytes[position...].firstIndex(of: UInt8(ascii: "<"))
    else { return nil }
    return markup(at: open)
  }

  /// The tag or markup at `position`, and where it ends.
  private func markup(at position: Int) -> (Markup, Int)? {
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

  private func starts(_ text: String, at position: Int) -> Bool {
    let utf8 = Array(text.utf8)
    return position + utf8.count <= count
      && Array(bytes[position..<position + utf8.count]) == utf8
  }

  private func skip(past text: String, from position: Int) -> Int? {
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
  private func endOfTag(from position: Int) -> Int? {
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

  private func name(at position: Int) -> String {
    var end = position
    while end < count, !" \t\r\n/>".utf8.contains(bytes[end]) { end += 1 }
    return String(decoding: bytes[position..<end], as: UTF8.self)
  }
}
