import FolioModel
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What each save of an atomic store (XML, binary) changed, kept beside the store so that
/// another writer with the file open takes the save in by reading those objects alone, rather
/// than the whole file: the atomic stores' counterpart of a SQLite store's persistent history.
///
/// The journal is the file `.NAME.folio-journal` beside the store's file (the file at the end
/// of its symbolic links, as for ``StoreLock``). Each entry says that a save replaced the file
/// of one stamp (``FileStamp``) by the file of another, and holds the records of the objects
/// the save inserted or changed, as the new file holds them, and the IDs of those it deleted.
/// Entries are appended under the store's lock, after the rename. A reader that knows the file
/// of one stamp and finds another on disk follows the entries from the one to the other; when
/// they do not lead there (a writer that keeps no journal, such as Core Data or a whole write
/// by `convert`, a writer killed before its entry, a torn entry) it reads the whole file, as
/// before. The journal is never needed: losing it costs a whole read, never a change.
/// `Formats/shared-writers.md` §2e describes the file for other implementations.
package enum ChangeJournal {
  /// The journal's first bytes: a name and the version of its layout.
  package static let header: [UInt8] = Array("FOLIOJNL".utf8) + [1, 0, 0, 0]
  /// The least size the journal may grow to before a save starts it anew; the limit is an
  /// eighth of the store's file when that is more.
  package static let minimumLimit = 1 << 20

  /// The path of the journal of the store at `url`.
  ///
  /// - Throws: `StoreError.writeFailed` when the path's symbolic links cannot be followed.
  package static func path(for url: URL) throws(StoreError) -> String {
    let target = try AtomicFile.Target(resolving: url.path)
    return target.siblingPath(".\(target.name).folio-journal")
  }

  /// Appends the entry of a save that replaced the store's file of stamp `base` by the file
  /// of stamp `written`, whose metadata is `metadata`: `changes`' inserted and updated objects
  /// as the save left them, and its deleted objects' IDs. Called under the store's lock.
  ///
  /// A save that changed more than an eighth of the store's `objectCount` objects leaves no
  /// entry: a reader reads the whole file as fast. A journal that cannot be written is left
  /// as it is, its entries leading to an older file; the save stands either way.
  package static func record(
    _ changes: StoreChanges, metadata: StoreMetadata, objectCount: Int,
    from base: FileStamp, to written: FileStamp, for url: URL
  ) {
    let changed = changes.inserted.count + changes.updated.count + changes.deleted.count
    guard recordsSave(changing: changed, of: objectCount), let path = try? path(for: url) else {
      return
    }
    var entry = JournalEntry(from: base, to: written, metadata: metadata)
    entry.nextObjectID = changes.nextObjectID
    entry.records = changes.inserted + changes.updated.map(\.new)
    entry.deleted = changes.deleted.map(\.id)
    let frame = frame(of: entry.encoded())
    let limit = max(minimumLimit, Int(written.size / 8))
    guard frame.count <= limit else { return }
    let descriptor = open(path, O_RDWR | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    append(frame, to: descriptor, limit: limit)
  }

  /// Whether a save that changed `changed` objects of a store of `objectCount` gets an entry:
  /// not past an eighth of the objects (and 64), where a reader reads the whole file as fast.
  /// A caller asks first, to spare building the changes of a save that gets none.
  package static func recordsSave(changing changed: Int, of objectCount: Int) -> Bool {
    changed <= max(objectCount / 8, 64)
  }

  /// Notes in the journal at `path`, when there is one, that the store's file of stamp
  /// `replaced` was replaced whole by the file of stamp `written` (``AtomicFile`` does, at
  /// every rename): an entry naming no store, which a reader cannot follow. Any whole write
  /// therefore ends the ways through the files before it; a save's own entry, appended after,
  /// is the one a reader takes.
  package static func noteReplaced(
    journal path: String, from replaced: FileStamp, to written: FileStamp
  ) {
    let descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    var barrier = JournalEncoder()
    barrier.stamp(replaced)
    barrier.stamp(written)
    barrier.string("")
    append(
      frame(of: barrier.bytes), to: descriptor, limit: max(minimumLimit, Int(written.size / 8)))
  }

  /// Appends `frame` to the journal open at `descriptor` when it ends with a whole entry and
  /// stays within `limit`; otherwise starts it anew with `frame`. A reader that sees it half
  /// written finds no way to its file, and reads the file whole.
  private static func append(_ frame: [UInt8], to descriptor: Int32, limit: Int) {
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
    let size = Int(info.st_size)
    if size + frame.count <= limit, endsWithWholeEntry(descriptor, size: size) {
      _ = writeAll(descriptor, frame, at: size)
    } else if ftruncate(descriptor, 0) == 0 {
      _ = writeAll(descriptor, header + frame, at: 0)
    }
  }

  /// What the saves that replaced the store's file of stamp `base`, one after another, until
  /// the file of stamp `current`, changed: the objects they inserted and changed, as the last
  /// left them, and the IDs of those they deleted; `nil` when the journal does not lead from
  /// the one file to the other, names another store than `identifier`, or holds an object
  /// `model` cannot (the whole read then says what is wrong with the file).
  package static func changes(
    for url: URL, from base: FileStamp, to current: FileStamp, identifier: String,
    model: ManagedObjectModel
  ) -> StoreChangesSince? {
    guard let path = try? path(for: url), let bytes = readAll(path) else { return nil }
    return changes(in: bytes, from: base, to: current, identifier: identifier, model: model)
  }

  /// ``changes(for:from:to:identifier:model:)`` from a journal's bytes.
  package static func changes(
    in bytes: [UInt8], from base: FileStamp, to current: FileStamp, identifier: String,
    model: ManagedObjectModel
  ) -> StoreChangesSince? {
    guard bytes.starts(with: header) else { return nil }
    let frames = wholeFrames(in: bytes)
    // The last entry leaving the known file: the reader holds that file open, so no file
    // after it took its stamp, and an earlier entry of that stamp was another file's.
    func leaving(_ index: Int) -> FileStamp {
      JournalEntry.stamps(in: bytes, at: frames[index]).from
    }
    guard var at = frames.indices.last(where: { leaving($0) == base }) else { return nil }
    var entries: [JournalEntry] = []
    while true {
      guard let entry = JournalEntry(bytes, frame: frames[at]), entry.identifier == identifier
      else { return nil }
      entries.append(entry)
      if entry.to == current { break }
      // The replacement of the file it wrote comes next: a whole write's barrier, then the
      // save's entry (or the entry alone).
      at += 1
      if at < frames.count, JournalEntry.isBarrier(in: bytes, at: frames[at]) { at += 1 }
      guard at < frames.count, leaving(at) == entry.to else { return nil }
    }
    // An entry leaving the file on disk after the way ends says another file had its stamp
    // then (its inode freed and taken again in one clock tick, at the same size).
    guard !frames.indices.dropFirst(at + 1).contains(where: { leaving($0) == current }) else {
      return nil
    }
    for entry in entries {
      guard entry.records.allSatisfy({ holds($0, model) }) else { return nil }
    }
    return merged(entries, model: model)
  }

  /// The entries' changes as one: each object's last record, the IDs deleted on the way (an
  /// object inserted and deleted on the way among them, which the reader does not know and
  /// passes over), targets that left on the way dropped.
  private static func merged(_ entries: [JournalEntry], model: ManagedObjectModel)
    -> StoreChangesSince
  {
    var records: [Int64: StoreRecord] = [:]
    var order: [Int64] = []
    var deleted: Set<Int64> = []
    for entry in entries {
      for record in entry.records {
        if records.updateValue(record, forKey: record.id) == nil { order.append(record.id) }
        deleted.remove(record.id)
      }
      for id in entry.deleted {
        records[id] = nil
        deleted.insert(id)
      }
    }
    var result = StoreChangesSince()
    result.records = order.compactMap { records[$0] }
    if entries.count > 1, !deleted.isEmpty {
      for index in result.records.indices {
        result.records[index].relationships = result.records[index].relationships
          .compactMapValues { targets in
            let kept = targets.filter { !deleted.contains($0) }
            return kept.isEmpty ? nil : kept
          }
      }
    }
    result.deleted = deleted.sorted()
    for name in Set(result.records.map(\.entityName)) {
      let relationships = model.entity(named: name)?.allRelationships ?? []
      result.givenRelationships[name] = Set(relationships.filter { !$0.isTransient }.map(\.name))
    }
    result.nextObjectID = entries.last?.nextObjectID ?? 1
    result.metadata = entries.last?.metadata
    return result
  }

  /// Whether `model` can hold `record`: an entity it has and can instantiate, persistent
  /// attributes of that entity (inherited ones too) with values of their types, its
  /// relationships, a to-one with one target at most.
  private static func holds(_ record: StoreRecord, _ model: ManagedObjectModel) -> Bool {
    guard record.id > 0, let entity = model.entity(named: record.entityName), !entity.isAbstract
    else { return false }
    var fits = true
    record.forEachAttribute { name, value in
      guard let attribute = entity.attribute(named: name), !attribute.isTransient,
        value.fits(attribute.attributeType)
      else { return fits = false }
    }
    return fits
      && record.relationships.allSatisfy { name, targets in
        guard let relationship = entity.relationship(named: name), !relationship.isTransient
        else { return false }
        return relationship.isToMany || targets.count <= 1
      }
  }

  // MARK: Frames

  /// The frame of an entry from the file of stamp `from` to the file of stamp `to` under the
  /// store `identifier`, whose payload goes on with `rest` (the next object ID, the metadata,
  /// the records and the deletions, as encoded): for tools that make entries of their own.
  package static func frame(
    from: FileStamp, to: FileStamp, identifier: String, rest: some Sequence<UInt8>
  ) -> [UInt8] {
    var encoder = JournalEncoder()
    encoder.stamp(from)
    encoder.stamp(to)
    encoder.string(identifier)
    return frame(of: encoder.bytes + rest)
  }

  /// An entry's bytes as the journal holds them: the payload's length, the payload, its
  /// FNV-1a 64 checksum and the length again, all little-endian.
  static func frame(of payload: [UInt8]) -> [UInt8] {
    var frame: [UInt8] = []
    frame.reserveCapacity(payload.count + 16)
    JournalEncoder.append(UInt32(payload.count), to: &frame)
    frame += payload
    JournalEncoder.append(checksum(payload[...]), to: &frame)
    JournalEncoder.append(UInt32(payload.count), to: &frame)
    return frame
  }

  /// The FNV-1a 64 hash of `bytes`.
  static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return value
  }

  /// The payloads of the whole frames from the header on, up to the first that is cut short
  /// or whose two lengths differ; checksums are checked as each payload is read.
  static func wholeFrames(in bytes: [UInt8]) -> [Range<Int>] {
    var frames: [Range<Int>] = []
    var offset = header.count
    while offset + 4 <= bytes.count {
      let length = Int(JournalDecoder.uint32(bytes, at: offset))
      let end = offset + 4 + length + 12
      guard length >= JournalEntry.stampBytes * 2, end <= bytes.count,
        JournalDecoder.uint32(bytes, at: end - 4) == UInt32(length)
      else { break }
      frames.append(offset + 4..<offset + 4 + length)
      offset = end
    }
    return frames
  }

  /// Whether the journal of `size` bytes open at `descriptor` ends with a whole entry (or is
  /// its header alone), so that one appended after it can be found.
  private static func endsWithWholeEntry(_ descriptor: Int32, size: Int) -> Bool {
    guard size >= header.count, let opening = read(descriptor, count: header.count, at: 0),
      opening == header
    else { return false }
    if size == header.count { return true }
    guard size >= header.count + 16, let tail = read(descriptor, count: 4, at: size - 4) else {
      return false
    }
    let length = Int(JournalDecoder.uint32(tail, at: 0))
    let start = size - length - 16
    guard start >= header.count, let frame = read(descriptor, count: length + 16, at: start),
      JournalDecoder.uint32(frame, at: 0) == UInt32(length)
    else { return false }
    return JournalDecoder.uint64(frame, at: 4 + length) == checksum(frame[4..<4 + length])
  }

  private static func read(_ descriptor: Int32, count: Int, at offset: Int) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: count)
    let got = bytes.withUnsafeMutableBytes {
      pread(descriptor, $0.baseAddress, count, off_t(offset))
    }
    return got == count ? bytes : nil
  }

  private static func readAll(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var done = 0
    while done < bytes.count {
      let got = bytes.withUnsafeMutableBytes { buffer in
        buffer.baseAddress.map { pread(descriptor, $0 + done, buffer.count - done, off_t(done)) }
          ?? -1
      }
      guard got > 0 else { break }
      done += got
    }
    return Array(bytes[..<done])
  }

  private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int) -> Bool {
    var done = 0
    while done < bytes.count {
      let wrote = bytes.withUnsafeBytes { buffer in
        buffer.baseAddress.map {
          pwrite(descriptor, $0 + done, buffer.count - done, off_t(offset + done))
        } ?? -1
      }
      guard wrote > 0 else { return false }
      done += wrote
    }
    return true
  }
}
