import FolioModel
import FolioStores
import Foundation

extension XMLStore {
  /// Replaces the metadata of the store in the file at `url` without reading its objects:
  /// `<databaseInfo>` is written anew and everything after it is copied byte for byte, into a
  /// file that replaces the old one atomically.
  ///
  /// The new metadata is `metadata` but for what describes the objects, which stays the
  /// file's: the next object ID, the entity version hashes, and the keys derived from them
  /// (Folio's checksum of the hashes, Apple's `NSStoreModelVersionHashesDigest`), kept when the
  /// file has them and never added — so a store Apple wrote is still checked by structure
  /// afterwards, and one Folio wrote still by hash. An empty identifier keeps the file's.
  ///
  /// - Throws: what ``readMetadata(from:)`` throws for a file whose header is not sound;
  ///   `.malformedXML` when the end of `<databaseInfo>` cannot be found; `.writeFailed` when
  ///   the new file cannot be written. The old file is then intact.
  /// - Complexity: O(*n*) in the size of the file, which is copied; only the header is parsed.
  public func writeMetadata(_ metadata: StoreMetadata, to url: URL) throws(StoreError) {
    let parser = try XMLStoreParser(url: url)
    let old = parser.metadata
    let nextObjectID = parser.nextObjectID
    let bytes: [UInt8]
    do {
      bytes = Array(try Data(contentsOf: url))
    } catch {
      throw StoreError(.unreadable, "cannot read the file", at: InputLocation(file: url.path))
    }
    guard var tailStart = XMLHeaderScanner.endOfHeader(in: bytes) else {
      throw StoreError(
        .malformedXML, "the end of <databaseInfo> cannot be found",
        at: InputLocation(file: url.path))
    }
    // The header is written with its own line break after </databaseInfo>.
    if tailStart < bytes.count, bytes[tailStart] == UInt8(ascii: "\n") { tailStart += 1 }
    var new = metadata
    new.modelVersionHashes = old.modelVersionHashes
    for key in [StoreMetadata.folioChecksumKey, "NSStoreModelVersionHashesDigest"] {
      new.userInfo[key] = old.userInfo[key]
    }
    new.userInfo[Self.carriedModelKey] = nil
    var dictionary = Self.metadataDictionary(
      new, hashes: old.modelVersionHashes, identifiers: new.modelVersionIdentifiers)
    dictionary[Self.carriedModelKey] = parser.carriedModel
    let identifier = new.identifier.isEmpty ? old.identifier : new.identifier
    try AtomicFile.write(to: url) { output throws(StoreError) in
      let writer = try XMLStoreWriter(output: output)
      try writer.writeHeader(
        identifier: identifier.isEmpty ? UUID().uuidString : identifier,
        nextObjectID: nextObjectID, metadata: dictionary)
      var start = tailStart
      while start < bytes.count {
        let end = min(start + 1 << 16, bytes.count)
        try writer.raw(Array(bytes[start..<end]))
        start = end
      }
      try writer.flush()
    }
  }
}
