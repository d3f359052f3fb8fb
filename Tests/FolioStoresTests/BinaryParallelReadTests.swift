import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioStores

/// When a whole binary store is read, a block of many rows is built in two halves at once.
/// Built either way, a body must give the same records in the same order, or the same error:
/// the first in row order.
@Suite("Binary store: a block built in two halves reads as one built in one run")
struct BinaryParallelReadTests {
  /// The records of `body`, and how many tables of shared relationships the reader built,
  /// building blocks of at least `parallelRows` rows in halves.
  static func readCountingTables(
    _ body: [UInt8], model: ManagedObjectModel, parallelRows: Int
  ) throws(StoreError) -> (records: [StoreRecord], tableBuilds: Int) {
    let result = body.withUnsafeBytes { raw -> Result<([StoreRecord], Int), StoreError> in
      do throws(StoreError) {
        let read = try BinaryStore.records(ofBody: raw, model: model, parallelRows: parallelRows)
        return .success((read.records, read.sharedTableBuilds))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  /// The records of `body`, or its error, built in halves from blocks of `parallelRows` rows.
  static func read(_ body: [UInt8], model: ManagedObjectModel, parallelRows: Int)
    -> Result<[StoreRecord], StoreError>
  {
    do throws(StoreError) {
      return .success(
        try readCountingTables(body, model: model, parallelRows: parallelRows).records)
    } catch {
      return .failure(error)
    }
  }

  @Test("random records of every shape", arguments: [1, 2, 3, 4] as [UInt64])
  func randomRecords(seed: UInt64) throws {
    let model = try RecordShapeTests.model()
    let records = RecordShapeTests.records(seed: seed)
    let body = try BinaryBodyWriter.encode(records, model: model)
    let whole = try Self.read(body, model: model, parallelRows: .max).get()
    for parallelRows in [2, 3, 17] {
      let halves = try Self.read(body, model: model, parallelRows: parallelRows).get()
      #expect(halves == whole)
    }
    #expect(Set(whole) == Set(records))
  }

  @Test("a lone to-one reference in both halves shares one table")
  func loneToOne() throws {
    let model = try ManagedObjectModel {
      EntityDescription("Item") {
        AttributeDescription("label", .string)
        RelationshipDescription("owner", to: "Owner")
      }
      EntityDescription("Owner") { AttributeDescription("name", .string) }
    }
    var records = (Int64(1)...5).map {
      StoreRecord(entityName: "Owner", id: $0, attributes: ["name": .string("o\($0)")])
    }
    for id in Int64(6)...1_005 {
      records.append(
        StoreRecord(
          entityName: "Item", id: id, attributes: ["label": .string("item \(id)")],
          relationships: id % 7 == 0 ? [:] : ["owner": [id % 5 + 1]]))
    }
    let body = try BinaryBodyWriter.encode(records, model: model)
    let (read, builds) = try Self.readCountingTables(body, model: model, parallelRows: 2)
    #expect(read.count == records.count)
    #expect(Set(read) == Set(records))
    #expect(builds == 1)
  }

  /// Bytes of the body changed at random (past its checksums, which the reader's caller
  /// checks): built in halves or in one run, the outcome is the same, records or error.
  @Test("a corrupted body gives the same records or the same error")
  func corruptedBodies() throws {
    let model = try RecordShapeTests.model()
    let body = try BinaryBodyWriter.encode(RecordShapeTests.records(seed: 9), model: model)
    var generator = SeededGenerator(seed: 21)
    var failures = 0
    for _ in 0..<400 {
      var corrupt = body
      for _ in 0..<Int.random(in: 1...3, using: &generator) {
        let offset = Int.random(in: 0..<corrupt.count, using: &generator)
        corrupt[offset] ^= UInt8.random(in: 1...255, using: &generator)
      }
      let whole = Self.read(corrupt, model: model, parallelRows: .max)
      let halves = Self.read(corrupt, model: model, parallelRows: 2)
      switch (whole, halves) {
      case (.success(let left), .success(let right)):
        #expect(left == right)
      case (.failure(let left), .failure(let right)):
        failures += 1
        #expect(left.description == right.description)
      default:
        Issue.record("one way read \(whole), the other \(halves)")
      }
    }
    #expect(failures > 100)
  }
}
