import Folio
import Foundation

/// The size of a store's file and, for a binary store, its sections with their compression:
/// what `folio info` shows below the format.
struct StoreLayout {
  var fileSize: Int?
  var sections: [BinaryStoreLayout.Section] = []

  init(url: URL, format: any StoreFormat) throws {
    if format is BinaryStore {
      let layout = try BinaryStore().layout(of: url)
      fileSize = layout.fileSize
      sections = layout.sections
    } else {
      fileSize = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int
    }
  }

  /// How many times smaller the stored bytes are than the content, `12.3:1`.
  static func ratio(_ section: BinaryStoreLayout.Section) -> String {
    String(format: "%.1f:1", Double(section.length) / Double(max(section.storedLength, 1)))
  }

  /// The lines `info` prints.
  var lines: [String] {
    var lines: [String] = []
    if let fileSize { lines.append("File size: \(fileSize) bytes") }
    if !sections.isEmpty {
      lines.append("Sections:")
      for section in sections {
        var line = "  \(section.name): \(section.storedLength) bytes at offset \(section.offset)"
        if section.isDeflated {
          line += ", \(section.length) inflated (\(Self.ratio(section)))"
        }
        lines.append(line)
      }
    }
    return lines
  }

  /// The JSON members `info --json` adds: `"fileSize"`, and `"sections"` for a binary store.
  var json: String {
    var members: [String] = []
    if let fileSize { members.append("\"fileSize\":\(fileSize)") }
    if !sections.isEmpty {
      let items = sections.map {
        "{\"name\":\(ObjectJSON.string($0.name)),\"offset\":\($0.offset),"
          + "\"storedBytes\":\($0.storedLength),\"bytes\":\($0.length),"
          + "\"deflated\":\($0.isDeflated)}"
      }
      members.append("\"sections\":[\(items.joined(separator: ","))]")
    }
    return members.map { "," + $0 }.joined()
  }
}
