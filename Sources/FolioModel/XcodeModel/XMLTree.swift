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
    let parsed = withUnsafeMutablePointer(to: &firstError) { first -> xmlDocPtr? in
      folio_xml_capture_errors(context, first)
      defer { context.pointee._private = nil }
      return bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> xmlDocPtr? in
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: CChar.self) else {
          return nil
        }
        return xmlCtxtReadMemory(context, base, Int32(data.count), path, nil, options)
      }
    }
    guard let parsed, context.pointee.wellFormed != 0 else {
      if let parsed { xmlFreeDoc(parsed) }
      var message = "the document is empty"
      var line = 1
      var column: Int?
      if firstError.isSet != 0 {
        message = withUnsafeBytes(of: firstError.message) { raw in
          String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }.trimmingCharacters(in: .whitespacesAndNewlines)
        line = max(1, Int(firstError.line))
        column = firstError.column > 0 ? Int(firstError.column) : nil
      }
      throw ModelError.malformedXML(
        message, at: InputLocation(file: path, line: line, column: column))
    }
    document = parsed
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
