import FolioStores
import Foundation

/// How a binary store's file is laid out: its size and its sections, as `folio info` shows
/// them.
public struct BinaryStoreLayout: Sendable, Equatable {
  /// A section of the file.
  public struct Section: Sendable, Equatable {
    /// Its four-letter name: `META`, `BODY`, `MODL`, or another kind's.
    public var name: String
    /// Where its stored bytes start in the file.
    public var offset: Int
    /// How many bytes it takes in the file.
    public var storedLength: Int
    /// How many bytes its content has, inflated when it is stored deflated.
    public var length: Int
    /// Whether it is stored deflated (zlib).
    public var isDeflated: Bool
  }

  /// The file's size in bytes.
  public var fileSize: Int
  /// The sections, in the order of the file's table.
  public var sections: [Section]
}

extension BinaryStore {
  /// The file's size and its header and section table, read and checked.
  static func container(of file: BinaryFile, _ handle: FileHandle) throws(StoreError) -> (
    size: Int, container: BinaryContainer
  ) {
    let size = try file.size(of: handle)
    let header = try file.read(handle, at: 0, count: min(size, BinaryFormat.headerLength))
    let prefixLength = try withBytes(of: header) { (raw) throws(StoreError) in
      try BinaryContainer.prefixLength(header: raw, fileSize: size, file: file.path)
    }
    let prefix = try file.read(handle, at: 0, count: prefixLength)
    let container = try withBytes(of: prefix) { (raw) throws(StoreError) in
      try BinaryContainer(prefix: raw, fileSize: size, file: file.path)
    }
    return (size, container)
  }

  /// The layout of the binary store at `url`, read from its header and section table only.
  ///
  /// - Throws: as ``readMetadata(from:)``.
  public func layout(of url: URL) throws(StoreError) -> BinaryStoreLayout {
    let file = BinaryFile(url: url)
    let handle = try file.open()
    defer { try? handle.close() }
    let (size, container) = try Self.container(of: file, handle)
    return BinaryStoreLayout(
      fileSize: size,
      sections: container.sections.map {
        .init(
          name: $0.name, offset: $0.offset, storedLength: $0.storedLength, length: $0.length,
          isDeflated: $0.flags.contains(.deflated))
      })
  }
}
