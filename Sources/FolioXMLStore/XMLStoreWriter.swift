internal import CFolioXML
internal import CLibXML2
import FolioModel
import FolioStores
import Foundation

/// Writes an XML store as Core Data does, through libxml2's `xmlTextWriter` on a file
/// descriptor.
///
/// The header — XML declaration, DOCTYPE, `<databaseInfo>` and the metadata property list —
/// is written element by element with the writer. The objects, which are most of the file, are
/// laid out by ``XMLObjectEncoder`` into a byte buffer (each value escaped as it is appended)
/// and handed to the writer in 64 KiB chunks with `xmlTextWriterWriteRawLen`: the writer then
/// owns the output buffering but is spared escaping and allocating each value again. The
/// layout is Apple's: 4-space indentation, one element per line, `<relationship …>` closed by
/// an end tag, base64 inside `<data>` on its own lines indented by tabs.
final class XMLStoreWriter {
  private let writer: xmlTextWriterPtr
  /// Where libxml2's output goes, through ``writeToOutput``.
  private let output: AtomicOutput
  var path: String { output.path }
  /// libxml2 reports a failed write of its output buffer (`I/O error : flush error`) through
  /// the thread's error handler, which prints to standard error: a library must not. While the
  /// writer lives, on the thread that made it, such errors are kept here instead (the output's
  /// own failure, which names the system's reason, is what a save reports).
  private let threadErrors: UnsafeMutablePointer<folio_xml_first_error>
  private let previousThreadErrors: folio_xml_thread_errors

  /// A writer onto `output`, used and freed on the calling thread.
  init(output: AtomicOutput) throws(StoreError) {
    self.output = output
    // Set up libxml2's globals under its lock before the writer looks up an encoding handler
    // (done lazily, two threads' first saves race and one table of handlers is lost).
    xmlInitParser()
    let threadErrors = UnsafeMutablePointer<folio_xml_first_error>.allocate(capacity: 1)
    threadErrors.initialize(to: folio_xml_first_error())
    let previous = folio_xml_capture_thread_errors(threadErrors)
    func undo() {
      folio_xml_restore_thread_errors(previous)
      threadErrors.deallocate()
    }
    guard
      let buffer = xmlOutputBufferCreateIO(
        writeToOutput, nil, Unmanaged.passUnretained(output).toOpaque(), nil)
    else {
      undo()
      throw StoreError.writerFailed(output.path, "create an output buffer")
    }
    guard let writer = xmlNewTextWriter(buffer) else {
      _ = xmlOutputBufferClose(buffer)
      undo()
      throw StoreError.writerFailed(output.path, "create a writer")
    }
    self.writer = writer
    self.threadErrors = threadErrors
    self.previousThreadErrors = previous
  }

  deinit {
    // Freeing the writer flushes it, which may fail too.
    xmlFreeTextWriter(writer)
    folio_xml_restore_thread_errors(previousThreadErrors)
    threadErrors.deallocate()
  }

  /// Throws, when `status` says libxml2 failed, the output's own error (which names the
  /// system's reason) or else what libxml2 was doing.
  private func check(_ status: Int32, _ step: String) throws(StoreError) {
    guard status >= 0 else { throw output.failure ?? StoreError.writerFailed(path, step) }
  }

  func raw(_ text: String) throws(StoreError) {
    try check(xmlTextWriterWriteRaw(writer, text), "write")
  }

  func raw(_ bytes: [UInt8]) throws(StoreError) {
    guard !bytes.isEmpty else { return }
    let status = bytes.withUnsafeBufferPointer { buffer in
      xmlTextWriterWriteRawLen(writer, buffer.baseAddress, Int32(buffer.count))
    }
    try check(status, "write")
  }

  private func element(_ name: String, _ text: String) throws(StoreError) {
    try check(xmlTextWriterWriteElement(writer, name, text), "write <\(name)>")
  }

  /// Writes everything before the first object.
  func writeHeader(
    identifier: String, nextObjectID: Int64?, metadata: [String: PropertyListValue]
  ) throws(StoreError) {
    try StoreLimits.checkNesting(ofMetadata: metadata)
    try check(xmlTextWriterStartDocument(writer, "1.0", nil, nil), "start the document")
    try check(
      xmlTextWriterWriteDTD(writer, "database", nil, StoreError.coreDataSystemID, nil),
      "write the DOCTYPE")
    try raw("\n\n")
    try check(xmlTextWriterStartElement(writer, "database"), "start <database>")
    try raw("\n    ")
    try check(xmlTextWriterStartElement(writer, "databaseInfo"), "start <databaseInfo>")
    try raw("\n        ")
    try element("version", XMLMetadataReader.storeVersion)
    try raw("\n        ")
    try element("UUID", identifier)
    if let nextObjectID {
      try raw("\n        ")
      try element("nextObjectID", String(nextObjectID))
    }
    try raw("\n        ")
    try check(xmlTextWriterStartElement(writer, "metadata"), "start <metadata>")
    try raw("\n            ")
    try check(xmlTextWriterStartElement(writer, "plist"), "start <plist>")
    try check(xmlTextWriterWriteAttribute(writer, "version", "1.0"), "write <plist>")
    try raw("\n                ")
    try write(.dictionary(metadata), indent: 16, depth: 0)
    try raw("\n            ")
    try check(xmlTextWriterEndElement(writer), "end <plist>")
    try raw("\n        ")
    try check(xmlTextWriterEndElement(writer), "end <metadata>")
    try raw("\n    ")
    try check(xmlTextWriterEndElement(writer), "end <databaseInfo>")
    try raw("\n")
  }

  /// Writes a property-list value at `indent` spaces, inside `depth` containers.
  private func write(_ value: PropertyListValue, indent: Int, depth: Int) throws(StoreError) {
    let inner = "\n" + String(repeating: " ", count: indent + 4)
    switch value {
    case .dictionary(let entries):
      try check(xmlTextWriterStartElement(writer, "dict"), "start <dict>")
      for key in entries.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes($1.utf8) }) {
        guard let entry = entries[key] else { continue }
        try raw(inner)
        try element("key", key)
        try raw(inner)
        try write(entry, indent: indent + 4, depth: depth + 1)
      }
      if !entries.isEmpty { try raw("\n" + String(repeating: " ", count: indent)) }
      try check(xmlTextWriterFullEndElement(writer), "end <dict>")
    case .array(let items):
      try check(xmlTextWriterStartElement(writer, "array"), "start <array>")
      for item in items {
        try raw(inner)
        try write(item, indent: indent + 4, depth: depth + 1)
      }
      if !items.isEmpty { try raw("\n" + String(repeating: " ", count: indent)) }
      try check(xmlTextWriterFullEndElement(writer), "end <array>")
    case .string(let text):
      try check(xmlTextWriterStartElement(writer, "string"), "start <string>")
      try check(xmlTextWriterWriteString(writer, text), "write <string>")
      try check(xmlTextWriterFullEndElement(writer), "end <string>")
    case .integer(let number):
      try element("integer", String(number))
    case .real(let number):
      try element("real", number.description)
    case .boolean(let flag):
      try check(xmlTextWriterStartElement(writer, flag ? "true" : "false"), "start a boolean")
      try check(xmlTextWriterEndElement(writer), "end a boolean")
    case .date(let date):
      let formatter = ISO8601DateFormatter()
      try element("date", formatter.string(from: date))
    case .data(let data):
      let tabs = String(repeating: "\t", count: depth)
      try check(xmlTextWriterStartElement(writer, "data"), "start <data>")
      var text = ""
      let encoded = data.base64EncodedString()
      var start = encoded.startIndex
      while start < encoded.endIndex {
        let end =
          encoded.index(start, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
        text += "\n" + tabs + encoded[start..<end]
        start = end
      }
      try raw(text + "\n" + tabs)
      try check(xmlTextWriterFullEndElement(writer), "end <data>")
    }
  }

  /// Writes what the writer holds to the descriptor.
  func flush() throws(StoreError) {
    try check(xmlTextWriterFlush(writer), "flush")
  }

  /// Closes `<database>` and the document, and flushes everything to the descriptor.
  func finish() throws(StoreError) {
    try check(xmlTextWriterEndElement(writer), "end <database>")
    try check(xmlTextWriterEndDocument(writer), "end the document")
    try check(xmlTextWriterFlush(writer), "flush")
  }
}

/// libxml2's write callback: `length` bytes from `buffer` to the ``AtomicOutput`` that
/// `context` points to; the byte count, or -1 when the write failed.
private func writeToOutput(
  _ context: UnsafeMutableRawPointer?, _ buffer: UnsafePointer<CChar>?, _ length: Int32
) -> Int32 {
  guard let context, let buffer, length >= 0 else { return -1 }
  let output = Unmanaged<AtomicOutput>.fromOpaque(context).takeUnretainedValue()
  do {
    try output.write(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    return length
  } catch {
    return -1
  }
}
