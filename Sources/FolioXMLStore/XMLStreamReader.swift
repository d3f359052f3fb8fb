internal import CFolioXML
internal import CLibXML2
import FolioModel
import FolioStores
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A pull reader over an XML store: libxml2's push parser on the file's descriptor, owned and
/// freed by this value, with the store's safety rules applied.
///
/// The prolog is checked before libxml2 sees the file (``XMLProlog``): only Core Data's DOCTYPE
/// is allowed, with no internal subset, so no entity can ever be declared. libxml2 then reads
/// with no network, no DTD loading and no entity substitution; an entity reference that still
/// appears is refused, and so is nesting deeper than ``maximumDepth``. The file is parsed a
/// chunk at a time into a queue of events (SAX2 callbacks in `CLibXML2`, no tree is built), so
/// memory stays bounded whatever the file's size. The first libxml2 error becomes a
/// ``StoreError`` with the file, line and column, after the events before it.
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
  /// How many bytes are parsed at a time.
  private static let chunkSize = 1 << 16
  /// How many bytes libxml2 is given at a time: xmlTextReader's 512, so that an error stops
  /// the events at the same place.
  static let pieceSize = 512
  /// The smallest file parsed ahead on a second thread.
  static let parseAheadMinimum = 1 << 20

  let path: String
  private let parser: xmlParserCtxtPtr
  private let descriptor: Int32
  private let firstError: UnsafeMutablePointer<folio_xml_first_error>
  /// The first error libxml2 reports outside the parser's context: a byte the declared
  /// encoding cannot decode.
  private let threadError: UnsafeMutablePointer<folio_xml_first_error>
  /// The queue libxml2's callbacks fill.
  private let queue: UnsafeMutablePointer<folio_xml_events>
  /// The queue the reader's events come from: `queue` itself, or when a thread parses ahead,
  /// the one it swaps each parsed chunk's events into.
  private let view: UnsafeMutablePointer<folio_xml_events>
  /// The thread parsing ahead, for a large file.
  private let ahead: ParseAhead?
  private let chunk: UnsafeMutableRawBufferPointer
  // No access to a property marked `@exclusivity(unchecked)` overlaps another access to it: none is
  // passed inout to code that can reach it again, and no closure run while one is being changed
  // touches it. Debug builds, where the tests run, check that at every access; release builds leave
  // the check out (an XML load takes 1.3 times as long with it). Each property keeps its own mark:
  // gathered in one struct, reading one field while changing another would overlap on the struct.
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The next event in the queue.
  private var cursor = 0
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The event the reader stands on, when it stands on one.
  private var current: folio_xml_event?
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The lines of the open elements' start tags.
  private var openLines: [Int] = []
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The line of the node before the current one in its parent, for an entity reference.
  private var previousSiblingLine: Int?
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  private var isTerminated = false
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  private var hasFailed = false
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// The current element's name, valid until the next event.
  private(set) var name: UnsafePointer<UInt8>?
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// Which ``KnownName`` the current element has, 0 for none.
  private var nameKnown: Int32 = 0
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// With a thread parsing ahead, the parser's line after the last chunk it handed over: the
  /// line between events, which the parser, busy on that thread, cannot be asked for.
  private var aheadLine = 1

  /// Opens `url` and checks its prolog. With `parsesAhead` (by default, for a file of
  /// ``parseAheadMinimum`` bytes or more), a second thread parses the next chunk while the
  /// reader's events are read: the same events and errors, sooner.
  ///
  /// - Throws: `.notFound`, `.unreadable`, `.malformedXML` for a refused prolog.
  init(url: URL, parsesAhead: Bool? = nil) throws(StoreError) {
    path = url.path
    descriptor = try StoreError.openForReading(url.path)
    do {
      try XMLProlog.check(descriptor: descriptor, path: path)
    } catch {
      close(descriptor)
      throw error
    }
    // libxml2's globals (its encoding handlers among them) must be set up once, under its own
    // lock, before two threads first use it: set up lazily, two first uses race and one
    // table of handlers is lost.
    xmlInitParser()
    let options =
      XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
      | XML_PARSE_BIG_LINES.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_HUGE.rawValue
    let firstError = UnsafeMutablePointer<folio_xml_first_error>.allocate(capacity: 1)
    firstError.initialize(to: folio_xml_first_error())
    let threadError = UnsafeMutablePointer<folio_xml_first_error>.allocate(capacity: 1)
    threadError.initialize(to: folio_xml_first_error())
    let queue = UnsafeMutablePointer<folio_xml_events>.allocate(capacity: 1)
    queue.initialize(to: folio_xml_events())
    queue.pointee.firstError = firstError
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
    // Like xmlTextReader, the parser is made with the first 4 bytes, which name the encoding.
    let head = Self.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: chunk[0..<4]))
    let path = url.path
    let handlers = folio_xml_capture_thread_handlers(threadError)
    let made = chunk.baseAddress.flatMap { base in
      folio_xml_events_parser(
        queue, base.assumingMemoryBound(to: CChar.self), Int32(max(head, 0)), path,
        Int32(options))
    }
    folio_xml_restore_thread_handlers(handlers)
    guard head >= 0, let made else {
      if let made { xmlFreeParserCtxt(made) }
      close(descriptor)
      firstError.deallocate()
      threadError.deallocate()
      folio_xml_events_free(queue)
      queue.deallocate()
      chunk.deallocate()
      throw StoreError.unreadable(path, "libxml2 could not create a parser")
    }
    self.firstError = firstError
    self.threadError = threadError
    self.queue = queue
    self.chunk = chunk
    parser = made
    hasFailed = folio_xml_parser_failed(parser) != 0
    var size = stat()
    let isLarge = fstat(descriptor, &size) == 0 && Int(size.st_size) >= Self.parseAheadMinimum
    if parsesAhead ?? isLarge, !hasFailed {
      let view = UnsafeMutablePointer<folio_xml_events>.allocate(capacity: 1)
      view.initialize(to: folio_xml_events())
      self.view = view
      aheadLine = Int(folio_xml_parser_line(made))
      ahead = ParseAhead(
        ParseAhead.Parts(
          parser: made, queue: queue, view: view, chunk: chunk, descriptor: descriptor,
          threadError: threadError))
    } else {
      view = queue
      ahead = nil
    }
  }

  deinit {
    if let ahead {
      ahead.finish()
      folio_xml_events_free(view)
      view.deallocate()
    }
    xmlFreeParserCtxt(parser)
    close(descriptor)
    firstError.deallocate()
    threadError.deallocate()
    folio_xml_events_free(queue)
    queue.deallocate()
    chunk.deallocate()
  }

  /// Reads up to `buffer.count` bytes, retrying after a signal; -1 on failure.
  static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    var total = 0
    while total < buffer.count {
      let count = Glibc.read(
        descriptor, buffer.baseAddress.map { $0 + total }, buffer.count - total)
      if count < 0, errno == EINTR { continue }
      if count < 0 { return -1 }
      if count == 0 { break }
      total += count
    }
    return total
  }

  /// Parses the next chunk of the file into the queue. Returns `false` at the end.
  private func refill() throws(StoreError) -> Bool {
    if hasFailed { throw libxmlError() }
    if isTerminated { return false }
    cursor = 0
    // The next chunk, parsed on this thread or handed over by the thread parsing ahead: the
    // same parse either way.
    let kind: ParseAhead.Kind
    if let ahead {
      let outcome = ahead.next()
      aheadLine = outcome.line
      kind = outcome.kind
    } else {
      kind = ParseAhead.parseChunk(
        ParseAhead.Parts(
          parser: parser, queue: queue, view: view, chunk: chunk, descriptor: descriptor,
          threadError: threadError))
    }
    switch kind {
    case .events: break
    case .failed: hasFailed = true
    case .end(let failed):
      isTerminated = true
      hasFailed = failed
    case .readError(let code):
      throw StoreError.unreadable(path, String(cString: strerror(code)))
    case .outOfMemory:
      throw StoreError.unreadable(path, "out of memory")
    }
    return true
  }

  /// Parses one piece into `queue`; whether the parser has failed. When it fails, the events
  /// the piece made are dropped, as xmlTextReader, which gives up at a piece that fails, never
  /// shows them: the error is reported where it was.
  static func parse(
    _ bytes: UnsafePointer<CChar>?, count: Int, terminate: Bool, parser: xmlParserCtxtPtr,
    queue: UnsafeMutablePointer<folio_xml_events>
  ) -> Bool {
    let events = queue.pointee.eventCount
    let attributes = queue.pointee.attributeCount
    let byteCount = queue.pointee.byteCount
    let lastCount = events > 0 ? queue.pointee.events?[events - 1].count : nil
    let status = xmlParseChunk(parser, bytes, Int32(count), terminate ? 1 : 0)
    guard status != 0 || folio_xml_parser_failed(parser) != 0 else { return false }
    queue.pointee.eventCount = events
    queue.pointee.attributeCount = attributes
    queue.pointee.byteCount = byteCount
    // Text the piece added to the last event is taken back too.
    if let lastCount, let last = queue.pointee.events.map({ $0 + (events - 1) }),
      Int(last.pointee.kind) == Int(FOLIO_XML_TEXT), let bytes = queue.pointee.bytes
    {
      last.pointee.count = lastCount
      bytes[last.pointee.start + lastCount] = 0
    }
    return true
  }

  /// Moves to the next start tag, end tag or text (whitespace included); comments and
  /// processing instructions are skipped.
  func next() throws(StoreError) -> Event {
    if let current {
      switch Int(current.kind) {
      case Int(FOLIO_XML_START): previousSiblingLine = nil
      case Int(FOLIO_XML_END): previousSiblingLine = openLines.popLast()
      case Int(FOLIO_XML_TEXT): previousSiblingLine = Int(current.line)
      default: break
      }
      self.current = nil
    }
    while cursor == view.pointee.eventCount {
      guard try refill() else { return .endOfFile }
    }
    // The queue holds at least one event past the cursor.
    guard let events = view.pointee.events else { preconditionFailure("event queue is empty") }
    let event = events[cursor]
    cursor += 1
    current = event
    switch Int(event.kind) {
    case Int(FOLIO_XML_START):
      name = UnsafePointer(event.name)
      nameKnown = event.known
      if openLines.count >= Self.maximumDepth {
        throw StoreError.tooDeep(Self.maximumDepth, at: location())
      }
      openLines.append(Int(event.line))
      return .start
    case Int(FOLIO_XML_END):
      name = UnsafePointer(event.name)
      nameKnown = event.known
      return .end
    case Int(FOLIO_XML_TEXT):
      return .text
    default:
      let entity = event.name.map { String(cString: $0) } ?? ""
      throw StoreError.entityReference(entity, at: location())
    }
  }

  /// Whether the next event is an end tag already parsed: moving to it keeps the current
  /// text's bytes where they are.
  var isEndParsedNext: Bool {
    guard cursor < view.pointee.eventCount, let events = view.pointee.events else {
      return false
    }
    return Int(events[cursor].kind) == Int(FOLIO_XML_END)
  }

  /// The current text node's bytes (NUL-terminated), valid until the queue is refilled.
  var textBytes: (UnsafePointer<UInt8>, Int)? {
    guard let current, Int(current.kind) == Int(FOLIO_XML_TEXT), let bytes = view.pointee.bytes
    else { return nil }
    return (UnsafePointer(bytes + current.start), current.count)
  }

  /// The names of a store's elements and attributes that the reader knows by number.
  struct KnownName {
    let rawValue: Int32
    private init(_ constant: Int) { rawValue = Int32(constant) }

    static let database = KnownName(FOLIO_XML_NAME_DATABASE)
    static let databaseInfo = KnownName(FOLIO_XML_NAME_DATABASE_INFO)
    static let object = KnownName(FOLIO_XML_NAME_OBJECT)
    static let attribute = KnownName(FOLIO_XML_NAME_ATTRIBUTE)
    static let relationship = KnownName(FOLIO_XML_NAME_RELATIONSHIP)
    static let name = KnownName(FOLIO_XML_NAME_NAME)
    static let type = KnownName(FOLIO_XML_NAME_TYPE)
    static let id = KnownName(FOLIO_XML_NAME_ID)
    static let destination = KnownName(FOLIO_XML_NAME_DESTINATION)
    static let idrefs = KnownName(FOLIO_XML_NAME_IDREFS)
  }

  /// Whether the current element is `expected`.
  @inline(__always)
  func isNamed(_ expected: KnownName) -> Bool { nameKnown == expected.rawValue }

  /// The bytes (NUL-terminated) of the current element's attribute `known`, valid until the
  /// next event, or `nil` when the element has no such attribute.
  func attribute(_ known: KnownName) -> UnsafeBufferPointer<UInt8>? {
    guard let current, Int(current.kind) == Int(FOLIO_XML_START), current.count > 0,
      let attributes = view.pointee.attributes, let bytes = view.pointee.bytes
    else { return nil }
    for index in current.start..<current.start + current.count
    where attributes[index].known == known.rawValue {
      let attribute = attributes[index]
      return UnsafeBufferPointer(start: bytes + attribute.start, count: attribute.count)
    }
    return nil
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
    guard let current, Int(current.kind) == Int(FOLIO_XML_TEXT), let bytes = view.pointee.bytes
    else {
      return withUnsafePointer(to: UInt8(0)) { body($0, 0) }
    }
    return body(UnsafePointer(bytes + current.start), current.count)
  }

  /// The bytes (NUL-terminated) of the current element's attribute `attributeName`, valid
  /// until the next event, or `nil` when the element has no such attribute.
  func attribute(_ attributeName: StaticString) -> UnsafeBufferPointer<UInt8>? {
    guard let current, Int(current.kind) == Int(FOLIO_XML_START), current.count > 0,
      let attributes = view.pointee.attributes, let bytes = view.pointee.bytes
    else { return nil }
    let wanted = UnsafeRawPointer(attributeName.utf8Start).assumingMemoryBound(to: CChar.self)
    for index in current.start..<current.start + current.count {
      let attribute = attributes[index]
      if let name = attribute.name,
        strcmp(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self), wanted) == 0
      {
        return UnsafeBufferPointer(start: bytes + attribute.start, count: attribute.count)
      }
    }
    return nil
  }

  /// The current node's 1-based line.
  var line: Int {
    guard let current else {
      return ahead == nil ? Int(folio_xml_parser_line(parser)) : aheadLine
    }
    switch Int(current.kind) {
    case Int(FOLIO_XML_END): return openLines.last ?? Int(current.line)
    case Int(FOLIO_XML_REFERENCE):
      return previousSiblingLine ?? openLines.last ?? Int(current.line)
    default: return Int(current.line)
    }
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

  /// A recorded libxml2 error's message, without its final newline.
  private static func text(of error: folio_xml_first_error) -> String {
    withUnsafeBytes(of: error.message) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The first libxml2 error, as a store error at its line and column.
  private func libxmlError() -> StoreError {
    if threadError.pointee.isSet != 0 {
      // A byte the declared encoding cannot decode. libxml2 names the bytes; the line is
      // where the markup or text holding them starts, as far as the parser got.
      let message = Self.text(of: threadError.pointee)
      let encoding = folio_xml_parser_encoding(parser).map { String(cString: $0) }
      return StoreError.malformedXML(
        encoding.map { "the file is not valid \($0), the encoding it declares (\(message))" }
          ?? "the file cannot be decoded (\(message))",
        at: InputLocation(file: path, line: line))
    }
    let first = firstError.pointee
    guard first.isSet != 0 else {
      return StoreError.malformedXML(
        "libxml2 stopped reading", at: InputLocation(file: path, line: line))
    }
    let message = Self.text(of: first)
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
