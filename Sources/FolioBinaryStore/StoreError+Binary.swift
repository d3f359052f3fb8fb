import FolioModel
import FolioStores
import Foundation

// The binary store's error messages, one factory each, asserted word for word in the tests.

extension StoreError {
  /// The file does not start with the binary store's magic.
  static func badMagic(found: [UInt8], file: String) -> StoreError {
    let hex = found.map { String(format: "%02X", $0) }.joined(separator: " ")
    return StoreError(
      .badMagic,
      "the file does not start with the binary store's magic 89 46 4F 4C 49 4F 0D 0A 1A 0A"
        + " (found \(hex.isEmpty ? "nothing" : hex)); a text-mode transfer may have changed it",
      at: InputLocation(file: file, byteOffset: 0))
  }

  /// The file's major version is not the one this build reads.
  static func unsupportedVersion(major: UInt16, minor: UInt16, file: String) -> StoreError {
    let advice =
      major > BinaryFormat.majorVersion
      ? "it was written by a newer Folio; open it with that version"
      : "no Folio writes that version"
    return StoreError(
      .unsupportedVersion,
      "binary store version \(major).\(minor) cannot be read by this Folio, which reads"
        + " version \(BinaryFormat.majorVersion).x; \(advice)",
      at: InputLocation(file: file, byteOffset: BinaryFormat.magic.count))
  }

  /// A checksum in the file does not match its bytes.
  static func badChecksum(
    of what: String, stored: UInt32, computed: UInt32, file: String, offset: Int
  ) -> StoreError {
    StoreError(
      .badChecksum,
      "the CRC-32 of \(what) is \(hex(computed)) but the file says \(hex(stored)); the file is"
        + " corrupted", at: InputLocation(file: file, byteOffset: offset))
  }

  /// A section this build does not know is marked required.
  static func unknownRequiredSection(_ name: String, file: String, offset: Int) -> StoreError {
    StoreError(
      .unsupportedVersion,
      "the file has a required section \"\(name)\" this Folio does not know; open it with a"
        + " newer Folio", at: InputLocation(file: file, byteOffset: offset))
  }

  /// A section every version-1 file has is missing, or appears twice.
  static func sectionCount(
    _ name: String, count: Int, file: String, limit: String = "exactly one"
  ) -> StoreError {
    StoreError(
      .malformedStore,
      "the file has \(count) \"\(name)\" sections where it must have \(limit)",
      at: InputLocation(file: file, byteOffset: BinaryFormat.headerLength))
  }

  /// The store was written with a model whose entities differ from `model`'s.
  static func modelMismatch(
    stored: [String: Data], model: ManagedObjectModel, file: String
  ) -> StoreError {
    var metadata = StoreMetadata(storeType: "")
    metadata.modelVersionHashes = stored
    return StoreError(
      .modelMismatch,
      versionHashMismatchMessage(metadata.entitiesWithChangedVersionHashes(comparedWith: model)),
      at: InputLocation(file: file, byteOffset: BinaryFormat.modelHashOffset))
  }

  /// A record holds a value that does not fit its attribute, or names no property of its
  /// entity, when writing.
  static func recordMismatch(_ message: String, entity: String, key: String?) -> StoreError {
    StoreError(.typeMismatch, message, at: InputLocation(entity: entity, property: key))
  }

  private static func hex(_ value: UInt32) -> String {
    String(format: "%08X", value)
  }
}
