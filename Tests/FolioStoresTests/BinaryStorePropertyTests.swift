import FolioModel
import FolioTestSupport
import Foundation
import Testing

@testable import FolioBinaryStore
@testable import FolioStores

@Suite("Binary store: random record sets")
struct BinaryStorePropertyTests {
  /// A random value of `type`, edges included often.
  static func value(
    of type: AttributeType, _ random: inout SeededGenerator
  ) -> AttributeValue? {
    let pick = Int.random(in: 0..<8, using: &random)
    switch type {
    case .integer16, .integer32, .integer64:
      guard let range = type.integerRange else { return nil }
      let edges = [range.lowerBound, range.upperBound, 0, -1]
      return .integer(pick < 4 ? edges[pick] : Int64.random(in: range, using: &random))
    case .decimal:
      let digits = Int64.random(in: -999_999_999...999_999_999, using: &random)
      return .decimal(
        Decimal(
          sign: .plus, exponent: Int.random(in: -20...20, using: &random),
          significand: Decimal(digits)))
    case .double:
      let edges: [Double] = [
        .nan, .infinity, -.infinity, -0.0, .ulpOfOne, .greatestFiniteMagnitude,
      ]
      return .double(
        pick < edges.count ? edges[pick] : Double.random(in: -1e9...1e9, using: &random))
    case .float:
      return .float(pick == 0 ? .nan : Float.random(in: -1e6...1e6, using: &random))
    case .string:
      let alphabet = Array("aZ é✓👩‍💻\n\u{0}\"<&")
      let length = pick == 0 ? 0 : Int.random(in: 1...20, using: &random)
      return .string(
        String(
          (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }))
    case .boolean: return .boolean(pick % 2 == 0)
    case .date:
      return .date(
        Date(timeIntervalSinceReferenceDate: Double.random(in: -1e10...1e10, using: &random)))
    case .binaryData, .transformable:
      let data = Data(
        (0..<Int.random(in: 0...300, using: &random)).map { _ in
          UInt8.random(in: 0...255, using: &random)
        })
      return type == .binaryData ? .binaryData(data) : .transformable(data)
    case .uuid:
      var generator = random
      defer { random = generator }
      return .uuid(
        UUID(
          uuid: (
            UInt8.random(in: 0...255, using: &generator), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
            14, UInt8.random(in: 0...255, using: &generator)
          )))
    case .uri:
      return .uri(
        URL(string: "https://example.com/\(pick)/x?y=\(pick)") ?? URL(fileURLWithPath: "/"))
    case .objectID: return .objectID("x-coredata://S/Person/p\(pick)")
    case .composite:
      var members: [String: AttributeValue] = [:]
      if pick % 2 == 0 { members["label"] = value(of: .string, &random) }
      if pick % 3 == 0 { members["latitude"] = value(of: .double, &random) }
      if pick % 4 == 0 { members["floor"] = value(of: .integer16, &random) }
      return .composite(members)
    case .undefined: return nil
    }
  }

  /// A random record set over the fixture model: every entity, random values and targets.
  static func randomContents(seed: UInt64, model: ManagedObjectModel) -> StoreContents {
    var random = SeededGenerator(seed: seed)
    var records: [StoreRecord] = []
    var nextID: Int64 = Int64.random(in: 1...1000, using: &random)
    for entity in model.entities {
      for _ in 0..<Int.random(in: 0...12, using: &random) {
        nextID += Int64.random(in: 1...5, using: &random)
        var record = StoreRecord(entityName: entity.name, id: nextID)
        for attribute in entity.allAttributes where !attribute.isTransient {
          guard Bool.random(using: &random) else { continue }
          record.attributes[attribute.name] = value(of: attribute.attributeType, &random)
        }
        records.append(record)
      }
    }
    for index in records.indices {
      guard let entity = model.entity(named: records[index].entityName) else { continue }
      for relationship in entity.allRelationships {
        guard let destination = model.destination(of: relationship) else { continue }
        let candidates = records.filter { record in
          model.entity(named: record.entityName).map { model.entity($0, isKindOf: destination) }
            ?? false
        }.map(\.id).shuffled(using: &random)
        let count = min(
          candidates.count,
          relationship.isToMany
            ? Int.random(in: 0...4, using: &random) : Int.random(in: 0...1, using: &random))
        if count > 0 {
          records[index].relationships[relationship.name] = Array(candidates.prefix(count))
        }
      }
    }
    var metadata = StoreMetadata(storeType: "Binary", identifier: "seed-\(seed)")
    metadata.userInfo = ["seed": .integer(Int64(bitPattern: seed))]
    return StoreContents(metadata: metadata, records: records.shuffled(using: &random))
  }

  @Test("random record sets round-trip", arguments: 0..<40)
  func randomRoundTrip(index: Int) throws {
    let seed = UInt64(index) &* 0x2545_F491_4F6C_DD1D &+ 17
    let model = try BinaryFixtures.model()
    let contents = Self.randomContents(seed: seed, model: model)
    let store = BinaryStore()
    do {
      let bytes = try store.encode(contents, model: model)
      let loaded = try store.decode(Data(bytes), model: model, file: "random.folio")
      BinaryFixtures.expectSame(loaded, contents, seed: seed)
    } catch {
      Issue.record("seed \(seed): \(error)")
    }
  }
}
