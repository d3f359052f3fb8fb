import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
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
      #expect(halves.elementsEqual(whole) { $0.isIdentical(to: $1) })
    }
    #expect(Set(whole) == Set(records))
  }

  /// A context's loader takes records one by one: their targets then sit in blocks that
  /// many records share, built on both threads, instead of dictionaries.
  @Test(
    "records taken one by one, in halves, are those a whole read keeps",
    arguments: [5, 6] as [UInt64])
  func takenOneByOne(seed: UInt64) throws {
    let model = try RecordShapeTests.model()
    let records = RecordShapeTests.records(seed: seed)
    let body = try BinaryBodyWriter.encode(records, model: model)
    let whole = try Self.read(body, model: model, parallelRows: .max).get()
    for parallelRows in [2, 17, Int.max] {
      let taken = try body.withUnsafeBytes { raw throws(StoreError) in
        try BinaryStore.records(
          ofBody: raw, model: model, parallelRows: parallelRows, streamed: true
        ).records
      }
      #expect(taken.elementsEqual(whole) { $0.isIdentical(to: $1) }, "\(parallelRows)")
      #expect(taken.contains { if case .shared = $0.links { true } else { false } })
    }
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
        // To the bit: a corrupted Double may be a NaN, which `==` finds unequal to itself.
        #expect(left.elementsEqual(right) { $0.isIdentical(to: $1) })
      case (.failure(let left), .failure(let right)):
        failures += 1
        #expect(left.description == right.description)
      default:
        Issue.record("one way read \(whole), the other \(halves)")
      }
    }
    #expect(failures > 100)
  }

  /// NaNs (with payloads, of both signs) and signed zeros keep their bits through a read in
  /// halves, and the records compare identical, though `==` finds a NaN unequal to itself
  /// (a fuzzing harness once compared them with `==`).
  @Test("NaNs and signed zeros read in halves are identical to the one-run read")
  func nansAcrossHalves() throws {
    let model = try ManagedObjectModel {
      EntityDescription("Reading") {
        AttributeDescription("double", .double)
        AttributeDescription("float", .float)
        AttributeDescription("decimal", .decimal)
      }
    }
    let doubles: [Double] = [
      .nan, -.nan, Double(bitPattern: 0xFFF3_FFFF_FFFF_FF00), .signalingNaN, 0.0, -0.0, 1.5,
    ]
    let records = (0..<70).map { index in
      StoreRecord(
        entityName: "Reading", id: Int64(index + 1),
        attributes: [
          "double": .double(doubles[index % doubles.count]),
          "float": .float(index % 3 == 0 ? .nan : index % 3 == 1 ? -0.0 : 2),
          "decimal": .decimal(index % 2 == 0 ? .nan : 1),
        ])
    }
    let body = try BinaryBodyWriter.encode(records, model: model)
    let whole = try Self.read(body, model: model, parallelRows: .max).get()
    let halves = try Self.read(body, model: model, parallelRows: 2).get()
    #expect(whole.count == records.count)
    #expect(halves.elementsEqual(whole) { $0.isIdentical(to: $1) })
    let byID = Dictionary(uniqueKeysWithValues: halves.map { ($0.id, $0) })
    #expect(records.allSatisfy { record in byID[record.id]?.isIdentical(to: record) == true })
    // What `==` says, and why the comparison is to the bit.
    #expect(halves[0] != whole[0])
    #expect(!halves[4].isIdentical(to: halves[5]))  // 0.0 and -0.0
  }
}
