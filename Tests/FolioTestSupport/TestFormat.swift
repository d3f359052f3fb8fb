import FolioModel
import FolioStores
import Foundation

/// A store format for tests: records as JSON behind a magic line, written atomically.
public struct TestFormat: StoreFormat {
  public var typeName: String { "Test" }
  public var fileExtension: String { "test" }
  public static let magic = Data("FOLIO-TEST\n".utf8)
  /// When set, writes fail after writing a few bytes (like a full disk).
  public var failsWrites = false

  /// A format whose writes succeed, or fail midway when `failsWrites`.
  public init(failsWrites: Bool = false) { self.failsWrites = failsWrites }

  struct File: Codable {
    var identifier: String
    var next: Int64
    var records: [Record]
  }

  struct Record: Codable {
    var entity: String
    var id: Int64
    var strings: [String: String]
    var numbers: [String: Int64]
    var links: [String: [Int64]]
  }

  public func recognizes(_ prefix: Data) -> Bool { prefix.starts(with: Self.magic) }

  func decode(_ url: URL) throws(StoreError) -> File {
    guard let data = try? Data(contentsOf: url), data.starts(with: Self.magic),
      let file = try? JSONDecoder().decode(File.self, from: data.dropFirst(Self.magic.count))
    else { throw StoreError(.malformedStore, "not a test store", at: .init(file: url.path)) }
    return file
  }

  public func readMetadata(from url: URL) throws(StoreError) -> StoreMetadata {
    StoreMetadata(storeType: typeName, identifier: try decode(url).identifier)
  }

  public func read(from url: URL, model: ManagedObjectModel) throws(StoreError) -> StoreContents {
    let file = try decode(url)
    let records = file.records.map { record in
      var attributes: [String: AttributeValue] = record.strings.mapValues { .string($0) }
      for (key, number) in record.numbers { attributes[key] = .integer(number) }
      return StoreRecord(
        entityName: record.entity, id: record.id, attributes: attributes,
        relationships: record.links)
    }
    return StoreContents(
      metadata: StoreMetadata(storeType: typeName, identifier: file.identifier), records: records,
      nextObjectID: file.next)
  }

  public func write(_ contents: StoreContents, model: ManagedObjectModel, to url: URL)
    throws(StoreError)
  {
    let file = File(
      identifier: contents.metadata.identifier, next: contents.nextObjectID,
      records: contents.records.map { record in
        var strings: [String: String] = [:]
        var numbers: [String: Int64] = [:]
        for (key, value) in record.attributes {
          if case .string(let text) = value { strings[key] = text }
          if case .integer(let number) = value { numbers[key] = number }
        }
        return Record(
          entity: record.entityName, id: record.id, strings: strings, numbers: numbers,
          links: record.relationships)
      })
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    guard let body = try? encoder.encode(file) else {
      throw StoreError(.writeFailed, "cannot encode")
    }
    let failing = failsWrites
    try AtomicFile.write(to: url) { output throws(StoreError) in
      try output.write(Self.magic)
      if failing { throw StoreError(.writeFailed, "no space left on device") }
      try output.write(body)
    }
  }
}
