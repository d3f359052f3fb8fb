import FolioSoak
import Foundation
import Testing

@Suite("Differential soak against the oracle")
struct SoakTests {
  @Test("20,000 random operations agree with the oracle after every step")
  func soak() throws {
    let environment = ProcessInfo.processInfo.environment
    let operations = environment["FOLIO_SOAK_OPS"].flatMap { Int($0) } ?? 20_000
    let seed = environment["FOLIO_SOAK_SEED"].flatMap { UInt64($0) } ?? 20_261_122
    let report = try SoakRunner().run(operations: operations, seed: seed)
    #expect(report.divergence == nil, "\(report)")
    #expect(report.operations == operations)
  }
}
