import CLibXML2
import FolioModel
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A pull reader over an XML store: libxml2's `xmlTextReader` on the file's descriptor, owned
/// and freed by this value, with the store's safety rules applied.
///
/// The prolog is checked before libxml2 sees the file (``XMLProlog``): only Core Data's DOCTYPE
/// is allowed, with no internal subset, so no entity can ever be declared. libxml2 then reads
/// with no network, no DTD loading and no entity substitution; an entity reference that still
/// appears is refused, and so is nesting deeper than ``maximumDepth``. The reader keeps only
/// the current element's subtree, so memory stays bounded whatever the file's size. The first
/// libxml2 error becomes a ``StoreError`` with the file, line and column.
final class XMLStreamReader {
  /// What the reader stopped on.
  enum Event: Equatable {
    case start
    case end
    case text
    case endOfFile
  }

  /// How deep elements may nest; Core Data's stores need 8 (metadata property lists a few more).
  static let maximumDepth = 64

  let path: String
  private let reader: xmlTextReaderPtr
  private let descriptor: Int32
  private let firstError: UnsafeMutablePointer<folio_xml_first_error>
  /// Whether the current start element is empty (`<x/>`), so an end event is owed.
  private var owesEnd = false
  /// The current element's name, valid until the next event.
  private(set) var name: UnsafePointer<UInt8>?

  /// Opens `url` and checks its prolog.
  ///
  /// - Throws: `.notFound`, `.unreadable`, `.malformedXML` for a refused prolog.
  init(url: URL) throws(StoreError) {
    path = url.path
    descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      if errno == ENOENT { throw StoreError.notFound(url.path) }
      throw StoreError.unreadable(url.path, String(cString: strerror(errno)))
    }
    do {
      try XMLProlog.check(descriptor: descriptor, path: path)
    } catch {
      close(descriptor)
      throw error
    }
    let options =
      XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
      | XML_PARSE_BIG_LINES.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_HUGE.rawValue
    guard let reader = xmlReaderForFd(descriptor, path, nil, Int32(options)) else {
      close(descriptor)
      throw StoreError.unreadable(path, "libxml2 could not create a reader")
    }
    self.reader = reader
    firstError = .allocate(capacity: 1)
    firstError.initialize(to: folio_xml_first_error())
    folio_xml_reader_capture_errors(reader, firstError)
  }

  deinit {
    xmlFreeTextReader(reader)
    close(descriptor)
    firstError.deallocate()
  }

  /// Moves to the next start tag, end tag or text (whitespace included); comments and
  /// processing instructions are skipped.
  func next() throws(StoreError) -> Event {
    if owesEnd {
      owesEnd = false
      return .end
    }
    while true {
      let status = xmlTextReaderRead(reader)
      if status == 0 { return .endOfFile }
      guard status == 1 else { throw libxmlError() }
      switch xmlTextReaderNodeType(reader) {
      case 1:  // element
        name = xmlTextReaderConstLocalName(reader).map { UnsafePointer($0) }
        if xmlTextReaderDepth(reader) >= Self.maximumDepth {
          throw StoreError.tooDeep(Self.maximumDepth, at: location())
        }
        owesEnd = xmlTextReaderIsEmptyElement(reader) == 1
        return .start
      case 15:  // end element
        name = xmlTextReaderConstLocalName(reader).map { UnsafePointer($0) }
        return .end
      case 3, 4, 13, 14:  // text, CDATA, whitespace
        return .text
      case 5:  // entity reference
        let entity = xmlTextReaderConstName(reader).map { String(cString: $0) } ?? ""
        throw StoreError.entityReference(entity, at: location())
      case 10:  // DOCTYPE: the prolog check allowed only Core Data's
        continue
      default:
        continue
      }
    }
  }

  /// Whether the current element is called `expected`.
  func isNamed(_ expected: StaticString) -> Bool {
    guard let name else { return false }
    return strcmp(
      UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self),
      UnsafeRawPointer(expected.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
  }

  /// The current element's name as a string.
  var nameString: String { name.map { String(cString: $0) } ?? "" }

  /// The current text node's bytes (NUL-terminated), valid until the next event.
  func withValue<Result>(_ body: (UnsafePointer<UInt8>, Int) -> Result) -> Result {
    guard let value = xmlTextReaderConstValue(reader) else {
      return withUnsafePointer(to: UInt8(0)) { body($0, 0) }
    }
    return body(
      UnsafePointer(value), strlen(UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self)))
  }

  /// The value of the current element's attribute `attributeName`, or `nil` when the element
  /// has no such attribute.
  func attributeString(_ attributeName: StaticString) -> String? {
    guard let node = xmlTextReaderCurrentNode(reader) else { return nil }
    var property = node.pointee.properties
    let wanted = UnsafeRawPointer(attributeName.utf8Start).assumingMemoryBound(to: CChar.self)
    while let current = property {
      if let propertyName = current.pointee.name,
        strcmp(UnsafeRawPointer(propertyName).assumingMemoryBound(to: CChar.self), wanted) == 0
      {
        var value = ""
        var text = current.pointee.children
        while let part = text {
          if let content = part.pointee.content { value += String(cString: content) }
          text = part.pointee.next
        }
        return value
      }
      property = current.pointee.next
    }
    return nil
  }

  /// The current node's 1-based line.
  var line: Int {
    guard let node = xmlTextReaderCurrentNode(reader) else {
      return Int(xmlTextReaderGetParserLineNumber(reader))
    }
    let line = xmlGetLineNo(node)
    return line > 0 ? line : Int(xmlTextReaderGetParserLineNumber(reader))
  }

  /// The current element's location: its line, and the column of its start tag.
  func location(entity: String? = nil, property: String? = nil) -> InputLocation {
    let line = self.line
    let column = XMLProlog.column(ofTag: nameString, line: line, path: path)
    return InputLocation(
      file: path, line: line, column: column, entity: entity, property: property)
  }

  /// The current element's place, resolved to a location (with the column) only when an error
  /// needs it.
  func lazyLocation() -> LazyLocation {
    LazyLocation(path: path, line: line, tag: nameString)
  }

  /// A line and a tag, resolved to a full location on demand.
  struct LazyLocation {
    let path: String
    let line: Int
    let tag: String

    func resolved() -> InputLocation {
      InputLocation(
        file: path, line: line, column: XMLProlog.column(ofTag: tag, line: line, path: path))
    }
  }

  /// The text inside the current element up to its end tag; a child element is refused.
  func elementText(_ element: String) throws(StoreError) -> String {
    var text = ""
    while true {
      switch try next() {
      case .text: text += withValue { XMLValueCoding.string($0, count: $1) }
      case .end: return text
      case .start:
        throw StoreError.unexpectedElement(
          nameString, expected: "text in <\(element)>", at: location())
      case .endOfFile: throw StoreError.truncated("in <\(element)>", at: location())
      }
    }
  }

  /// Skips the rest of the current element, its children included.
  func skipElement() throws(StoreError) {
    var depth = 1
    while depth > 0 {
      switch try next() {
      case .start: depth += 1
      case .end: depth -= 1
      case .text: continue
      case .endOfFile: throw StoreError.truncated("in an element", at: location())
      }
    }
  }

  /// The first libxml2 error, as a store error at its line and column.
  private func libxmlError() -> StoreError {
    let first = firstError.pointee
    guard first.isSet != 0 else {
      return StoreError.malformedXML(
        "libxml2 stopped reading", at: InputLocation(file: path, line: line))
    }
    let message = withUnsafeBytes(of: first.message) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }.trimmingCharacters(in: .whitespacesAndNewlines)
    let location = InputLocation(
      file: path, line: max(1, Int(first.line)), column: first.column > 0 ? Int(first.column) : nil)
    if message.hasPrefix("Premature end of data")
      || XMLProlog.isAtEnd(line: Int(first.line), column: Int(first.column), path: path)
    {
      return StoreError.truncated(message, at: location)
    }
    return StoreError.malformedXML(message, at: location)
  }
}
