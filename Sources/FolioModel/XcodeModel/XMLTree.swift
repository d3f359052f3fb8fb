internal import CFolioXML
internal import CLibXML2
import Foundation

/// A parsed XML document: libxml2's tree, owned and freed by this value.
///
/// Parsing never touches the network, never loads an external DTD and refuses references to
/// external entities, so a hostile file cannot reach outside itself; entities declared inside
/// the file are substituted as XML requires, with libxml2's guard against expansion bombs.
/// libxml2's own error printing is off and its first error becomes a ``ModelError`` with the
/// file, line and column. Line numbers past 65535 are kept (`XML_PARSE_BIG_LINES`).
final class XMLTree {
  private let document: xmlDocPtr
  let path: String

  /// Parses `data`, naming `path` in errors.
  init(data: Data, path: String) throws(ModelError) {
    Self.initializeOnce
    self.path = path
    guard let context = xmlNewParserCtxt() else {
      throw ModelError.unreadable(path, reason: "libxml2 could not allocate a parser")
    }
    defer { xmlFreeParserCtxt(context) }
    var firstError = folio_xml_first_error()
    let options = Int32(
      XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
        | XML_PARSE_BIG_LINES.rawValue)
    guard data.count < Int32.max else {
      throw ModelError.unreadable(path, reason: "the file is larger than 2 GiB")
    }
    let bytes = data.isEmpty ? Data([0]) : data
    // Bytes the declared encoding cannot decode are reported to the thread's handlers, not
    // the parser's: they are kept too, so that libxml2 prints nothing.
    var threadError = folio_xml_first_error()
    let parsed = withUnsafeMutablePointer(to: &firstError) { first -> xmlDocPtr? in
      withUnsafeMutablePointer(to: &threadError) { thread -> xmlDocPtr? in
        folio_xml_capture_errors(context, first)
        let handlers = folio_xml_capture_thread_handlers(thread)
        defer {
          folio_xml_restore_thread_handlers(handlers)
          context.pointee._private = nil
        }
        return bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> xmlDocPtr? in
          guard let base = buffer.baseAddress?.assumingMemoryBound(to: CChar.self) else {
            return nil
          }
          return xmlCtxtReadMemory(context, base, Int32(data.count), path, nil, options)
        }
      }
    }
    guard let parsed, context.pointee.wellFormed != 0 else {
      if let parsed { xmlFreeDoc(parsed) }
      throw Self.error(
        first: firstError, thread: threadError, context: context, data: data, path: path)
    }
    document = parsed
  }

  /// The error of a parse that failed: bytes the declared encoding cannot decode, a file that
  /// ends before its markup does, or libxml2's first error, at its line and column.
  private static func error(
    first: folio_xml_first_error, thread: folio_xml_first_error, context: xmlParserCtxtPtr,
    data: Data, path: String
  ) -> ModelError {
    func text(_ error: folio_xml_first_error) -> String {
      withUnsafeBytes(of: error.message) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    if thread.isSet != 0 {
      // libxml2 names the bytes; the line is where the parser had got to.
      let message = text(thread)
      let encoding = folio_xml_parser_encoding(context).map { String(cString: $0) }
      return .malformedXML(
        encoding.map { "the file is not valid \($0), the encoding it declares (\(message))" }
          ?? "the file cannot be decoded (\(message))",
        at: InputLocation(file: path, line: max(1, Int(folio_xml_parser_line(context)))))
    }
    guard first.isSet != 0 else {
      return .malformedXML("the document is empty", at: InputLocation(file: path, line: 1))
    }
    let message = text(first)
    let line = max(1, Int(first.line))
    let location = InputLocation(
      file: path, line: line, column: first.column > 0 ? Int(first.column) : nil)
    // Past the last line's end (or libxml2 saying so): the file was cut short.
    let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    let atEnd =
      line >= lines.count && first.column > 0 && Int(first.column) > (lines.last?.count ?? 0)
    if message.hasPrefix("Premature end of data") || atEnd {
      return .malformedXML("the file ends before the model does (\(message))", at: location)
    }
    return .malformedXML(message, at: location)
  }

  deinit { xmlFreeDoc(document) }

  /// The document's root element.
  var root: XMLElement? {
    xmlDocGetRootElement(document).map { XMLElement(node: $0, tree: self) }
  }

  private static let initializeOnce: Void = { xmlInitParser() }()
}

/// An element of an ``XMLTree``; keeps the tree alive while it exists.
struct XMLElement {
  let node: xmlNodePtr
  let tree: XMLTree

  /// The element's name.
  var name: String { String(cString: node.pointee.name) }

  /// The element's 1-based line in the file.
  var line: Int { folio_xml_node_line(node) }

  /// Where the element is: its file and line.
  var location: InputLocation { InputLocation(file: tree.path, line: line) }

  /// The value of the attribute called `name`, or `nil` when the element has none.
  func attribute(_ name: String) -> String? {
    guard let value = xmlGetProp(node, name) else { return nil }
    defer { folio_xml_free(value) }
    return String(cString: value)
  }

  /// The child elements, in document order (text, comments and the like are skipped).
  var children: [XMLElement] {
    var result: [XMLElement] = []
    var child = node.pointee.children
    while let current = child {
      if current.pointee.type == XML_ELEMENT_NODE {
        result.append(XMLElement(node: current, tree: tree))
      }
      child = current.pointee.next
    }
    return result
  }

  /// The element's text content.
  var text: String {
    guard let content = xmlNodeGetContent(node) else { return "" }
    defer { folio_xml_free(content) }
    return String(cString: content)
  }
}
