import Dispatch
import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension XMLModelInference {
  /// The smallest file whose tags are scanned in two halves at once.
  static let halvesMinimum = 8 << 20

  /// What a scan of the whole file at `url` shows, as ``scan(_:)``; a file of `minimum` bytes
  /// or more is scanned in two halves at once, on two threads.
  ///
  /// The second half starts at the first `<object` at or after the middle of the file (or at
  /// `split`), scanned on another thread as if `<database>` had just opened, while this thread
  /// scans up to it. When the first scan stops there between two of `<database>`'s children,
  /// the second scan read the rest as one scan would have, and its sightings are taken in
  /// after the first's (``absorb(_:file:)``); otherwise (the split fell inside a comment, a
  /// CDATA section or an object) the first scan reads on to the end and the second's work is
  /// dropped.
  static func scanInHalves(
    _ url: URL, splitAt split: Int? = nil, minimum: Int = halvesMinimum
  ) -> XMLModelInference? {
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    guard
      let split = split ?? (size >= minimum ? objectStart(in: url.path, from: size / 2) : nil)
    else { return scan(url) }
    let path = url.path
    var first = FirstHalf.gaveUp
    var later: XMLModelInference?
    runAtOnce(
      { first = scanFirst(of: path, upTo: split) },
      beside: { later = scanRest(of: path, from: split) })
    guard case .split(var inference) = first else {
      if case .whole(let inference) = first { return inference }
      return nil
    }
    guard let later else { return nil }
    do {
      try inference.absorb(later, file: path)
    } catch {
      return nil
    }
    return inference
  }

  /// How a scan of a file's first half ended.
  private enum FirstHalf {
    /// It stopped at the split, between two objects: the second half's scan reads on.
    case split(XMLModelInference)
    /// It read the whole file itself.
    case whole(XMLModelInference)
    /// It gave up.
    case gaveUp
  }

  /// A scan of the file at `path` up to byte `split`, and on to the end when it does not stop
  /// there between two objects.
  private static func scanFirst(of path: String, upTo split: Int) -> FirstHalf {
    guard var scan = XMLTagScan(path: path) else { return .gaveUp }
    defer { scan.close() }
    var inference = XMLModelInference()
    do {
      let isWholeFile = try scan.scan(upTo: split) { inference.take($0, file: path) }
      if !isWholeFile, scan.isBetweenObjects(at: split) { return .split(inference) }
      if !isWholeFile { try scan.scan { inference.take($0, file: path) } }
      return .whole(inference)
    } catch {
      return .gaveUp
    }
  }

  /// What a scan from byte `offset` of the file at `path` to its end shows, starting inside
  /// `<database>`; `nil` when it gives up.
  private static func scanRest(of path: String, from offset: Int) -> XMLModelInference? {
    guard var scan = XMLTagScan(path: path, at: offset) else { return nil }
    defer { scan.close() }
    var inference = XMLModelInference()
    do {
      try scan.scan { inference.take($0, file: path) }
    } catch {
      return nil
    }
    return inference
  }

  /// The offset of the first `<object` in the megabyte of the file at `path` from `offset`.
  private static func objectStart(in path: String, from offset: Int) -> Int? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
      let data = try? handle.read(upToCount: 1 << 20)
    else { return nil }
    return data.withUnsafeBytes { bytes -> Int? in
      let pattern = Array("<object".utf8)
      guard bytes.count >= pattern.count else { return nil }
      for index in 0...(bytes.count - pattern.count)
      where bytes[index] == pattern[0] && Array(bytes[index..<index + pattern.count]) == pattern {
        return offset + index
      }
      return nil
    }
  }

  /// Takes in `later`, a scan of the rest of the file from where this one stopped, as if this
  /// scan had read on: entities, attributes and relationships this scan has not seen come
  /// after its own, in the order `later` saw them; types widen; links and objects follow this
  /// scan's; IDs that are not Core Data's get this scan's numbers.
  ///
  /// - Throws: `.malformedStore` when an attribute's two types do not widen to one.
  mutating func absorb(_ later: XMLModelInference, file: String) throws(StoreError) {
    var entityNumbers: [Int] = []
    for key in later.order { entityNumbers.append(entity(key)) }
    var otherNumbers: [Int64] = []
    for index in 0..<later.otherIDs.count {
      var text = later.otherIDs.string(index)
      otherNumbers.append(text.withUTF8 { -1 - Int64(otherIDs.number(of: $0)) })
    }
    func number(_ number: Int64) -> Int64 {
      number >= 0 ? number : otherNumbers[Int(-1 - number)]
    }
    for key in later.order {
      guard let theirs = later.entities[key] else { continue }
      for (name, type) in theirs.attributes {
        try addAttribute(
          name, type, word: XMLValueCoding.typeWord(for: type), to: key,
          location: { InputLocation(file: file) })
      }
      for relationship in theirs.relationships {
        var list = entities[key]?.relationships ?? []
        let index: Int
        if let found = list.firstIndex(where: {
          $0.name.lowercased() == relationship.name.lowercased()
        }) {
          index = found
          if relationship.isToMany { list[index].isToMany = true }
        } else {
          list.append(relationship)
          index = list.count - 1
        }
        entities[key]?.relationships = list
        guard let theirLinks = later.linkKeys.firstIndex(of: key + "." + relationship.name)
        else { continue }
        let linkKey = key + "." + list[index].name
        let ours = linkKeys.firstIndex(of: linkKey) ?? linkKeys.count
        if ours == linkKeys.count {
          linkKeys.append(linkKey)
          links.append([])
        }
        links[ours] += later.links[theirLinks].map {
          Link(source: number($0.source), target: number($0.target))
        }
      }
    }
    later.objects.forEach { object, entity in
      objects.add(number(object), entity: entityNumbers[entity])
    }
  }
}

extension XMLStore {
  /// The model a scan of the tags of the file at `url` shows (spelled as its disk names), read
  /// in one scan, or in two halves split at byte `split`; `nil` when the scan gives up. For
  /// checking that the two agree.
  package static func scannedModel(of url: URL, splitAt split: Int?) -> ManagedObjectModel? {
    let scanned =
      split.map { XMLModelInference.scanInHalves(url, splitAt: $0) }
      ?? XMLModelInference.scan(url)
    guard var inference = scanned else { return nil }
    return try? inference.model(spellings: [], path: url.path)
  }
}
