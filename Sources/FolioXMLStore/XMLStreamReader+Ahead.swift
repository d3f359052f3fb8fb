internal import CFolioXML
internal import CLibXML2
import FolioStores
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A thread that parses an XML store's next chunk while the reader reads the last one.
///
/// libxml2's callbacks fill the parser's queue with a chunk's events, as when the reader parses
/// on its own thread; then, once the reader has read the previous chunk and handed it back,
/// the thread swaps the two queues' contents, so that the reader's queue holds the new events,
/// and goes on to the next chunk. The two threads hand the queues over through semaphores, so
/// each touches a queue, the parser and the file only while the other does not: the parser
/// and the file belong to this thread until it ends, and the reader learns the parser's line
/// and the chunk's outcome from what this thread hands over.
final class ParseAhead: @unchecked Sendable {
  /// What the reader and this thread share: pointers the reader owns and frees after
  /// ``finish()``.
  struct Parts: @unchecked Sendable {
    let parser: xmlParserCtxtPtr
    let queue: UnsafeMutablePointer<folio_xml_events>
    let view: UnsafeMutablePointer<folio_xml_events>
    let chunk: UnsafeMutableRawBufferPointer
    let descriptor: Int32
    let threadError: UnsafeMutablePointer<folio_xml_first_error>
  }

  /// How a chunk ended.
  enum Kind {
    /// Its events, and more to come.
    case events
    /// Its events up to the piece that failed; the parser has failed.
    case failed
    /// The end of the file: the events the end made, and whether the parser failed at it.
    case end(failed: Bool)
    /// The file could not be read (`errno`); no events.
    case readError(Int32)
    /// The queue could not grow; no events to trust.
    case outOfMemory
  }

  /// A chunk handed over: how it ended, and the parser's line after it.
  struct Outcome {
    var kind: Kind
    var line: Int
  }

  private let parts: Parts
  /// Signalled by the reader when it has read the chunk it holds (or is going away).
  private let handedBack = DispatchSemaphore(value: 0)
  /// Signalled by this thread when the reader's queue holds the next chunk.
  private let filled = DispatchSemaphore(value: 0)
  /// Signalled by this thread as it ends.
  private let ended = DispatchSemaphore(value: 0)
  // Written by one side before it signals, read by the other after it waits.
  private var outcome = Outcome(kind: .events, line: 1)
  private var isStopped = false
  private var hasEnded = false

  init(_ parts: Parts) {
    self.parts = parts
    let thread = Thread { [self] in run() }
    thread.name = "folio.xml.parse-ahead"
    thread.start()
  }

  /// The next chunk, in the reader's queue; the reader's previous chunk is handed back.
  func next() -> Outcome {
    guard !hasEnded else { return Outcome(kind: .end(failed: false), line: outcome.line) }
    handedBack.signal()
    filled.wait()
    if case .events = outcome.kind {} else { hasEnded = true }
    return outcome
  }

  /// Stops the thread and waits for it to end: the parser, the queues and the file are the
  /// reader's again.
  func finish() {
    isStopped = true
    handedBack.signal()
    ended.wait()
  }

  private func run() {
    defer { ended.signal() }
    while true {
      let kind = Self.parseChunk(parts)
      let line = Int(folio_xml_parser_line(parts.parser))
      handedBack.wait()
      if isStopped { return }
      folio_xml_events_swap(parts.queue, parts.view)
      folio_xml_events_clear(parts.queue)
      outcome = Outcome(kind: kind, line: line)
      filled.signal()
      guard case .events = kind else {
        // The reader may still hand its last chunk back, or go away: wait for either.
        handedBack.wait()
        return
      }
    }
  }

  /// Reads the next chunk of the file and parses it into the parser's queue, a piece of
  /// ``XMLStreamReader/pieceSize`` bytes at a time, up to the piece that fails: on the
  /// reader's thread, or on this one ahead of it.
  static func parseChunk(_ parts: Parts) -> Kind {
    folio_xml_events_clear(parts.queue)
    let count = XMLStreamReader.read(parts.descriptor, into: parts.chunk)
    guard count >= 0 else { return .readError(errno) }
    // libxml2 reports a byte its decoder refuses to the thread, not to the parser.
    let handlers = folio_xml_capture_thread_handlers(parts.threadError)
    defer { folio_xml_restore_thread_handlers(handlers) }
    let kind: Kind
    if count == 0 {
      let failed = XMLStreamReader.parse(
        nil, count: 0, terminate: true, parser: parts.parser, queue: parts.queue)
      kind = .end(failed: failed)
    } else if let base = parts.chunk.baseAddress?.assumingMemoryBound(to: CChar.self) {
      var offset = 0
      var failed = false
      while offset < count, !failed {
        let size = min(XMLStreamReader.pieceSize, count - offset)
        failed = XMLStreamReader.parse(
          base + offset, count: size, terminate: false, parser: parts.parser, queue: parts.queue)
        offset += size
      }
      kind = failed ? .failed : .events
    } else {
      kind = .readError(EFAULT)
    }
    return parts.queue.pointee.isOutOfMemory != 0 ? .outOfMemory : kind
  }
}
