import FolioModel
import FolioStores
import Foundation

extension BinaryStore {
  /// Replaces the metadata of the store in the file at `url` without reading its objects: the
  /// META section is written anew, every other section is copied byte for byte (the body is
  /// not inflated), and the file is replaced atomically.
  ///
  /// The new metadata is `metadata` but for what describes the body, which stays the file's:
  /// the store type (`"Binary"`), the entity version hashes and the next object ID.
  ///
  /// - Throws: what ``readMetadata(from:)`` throws for a file that is not a sound store (every
  ///   section's CRC-32 is checked first, so a damaged file is never rewritten as if it were
  ///   sound); `.writeFailed` when the new file cannot be written. The old file is then
  ///   intact.
  /// - Complexity: O(*n*) in the size of the file, which is copied; nothing is decoded but
  ///   the header, the table and META.
  public func writeMetadata(_ metadata: StoreMetadata, to url: URL) throws(StoreError) {
    let file = BinaryFile(url: url)
    let data = try file.readAll()
    let bytes = try withBytes(of: data) { (raw) throws(StoreError) -> [UInt8] in
      let container = try BinaryContainer(prefix: raw, fileSize: raw.count, file: file.path)
      let sections = try BinarySections(container, file: file.path)
      func stored(_ section: BinarySection) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(
          rebasing: raw[section.offset..<section.offset + section.storedLength])
      }
      for section in container.sections {
        try BinarySections.checkCRC(of: section, stored: stored(section), file: file.path)
      }
      let meta = sections.metadata
      let (old, nextObjectID) = try BinarySections.decodeMetadata(
        meta, stored(meta), file: file.path)
      var new = metadata
      new.storeType = old.storeType
      new.modelVersionHashes = old.modelVersionHashes
      let encoded = try BinaryMetadataCoding.encode(
        new, entityHashes: old.modelVersionHashes, nextObjectID: nextObjectID)
      let rebuilt = container.sections.map { section in
        section.kind == SectionKind.metadata
          ? (section.kind, section.flags, encoded, encoded.count)
          : (section.kind, section.flags, Array(stored(section)), section.length)
      }
      return BinaryContainer.assemble(
        stored: rebuilt, modelHash: container.modelHash, major: container.majorVersion,
        minor: container.minorVersion, flags: container.flags)
    }
    try AtomicFile.write(Data(bytes), to: url)
  }
}
