import FolioModel
import Foundation

/// A batch on a store written whole (XML, binary): under the store's lock (``StoreLock``), the
/// file as other writers left it is read, the batch applied to its records, and the result
/// written anew atomically (``AtomicFile``), as a save of another writer would
/// (`Formats/shared-writers.md` §3). A process killed midway leaves the old file or the new.
package enum AtomicStoreBatch {
  /// Executes `batch` on the store at `url`, of `format`, whose objects fit `model`. A batch
  /// that changes nothing, or is refused, writes nothing.
  ///
  /// New objects get keys past the file's next key and every key other writers reserved
  /// (``StoreKeyReservation``); the file keeps the entity version hashes it records.
  ///
  /// - Throws: `StoreError.busy` when another writer held the lock too long; read and write
  ///   errors. The file is then as it was.
  package static func execute(
    _ batch: StoreBatch, format: any StoreFormat, at url: URL, model: ManagedObjectModel
  ) throws(StoreError) -> StoreBatchOutcome {
    let lock = try StoreLock.acquire(for: url)
    defer { lock.release() }
    var contents = try format.read(from: url, model: model)
    if let reserved = try StoreKeyReservation.nextKey(for: url) {
      contents.nextObjectID = max(contents.nextObjectID, reserved)
    }
    let outcome = batch.apply(to: &contents, model: model)
    guard outcome.refusal == nil, !outcome.objects.isEmpty else { return outcome }
    contents.keepsVersionHashes = !contents.metadata.modelVersionHashes.isEmpty
    try format.write(contents, model: model, to: url)
    StoreKeyReservation.release(below: contents.nextObjectID, for: url)
    return outcome
  }
}
