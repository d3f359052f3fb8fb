import Foundation
import Testing

@testable import FolioGraph
@testable import FolioModel
@testable import FolioStores

@Suite("Records for stores")
struct RecordTests {
  @Test("records hold persistent values and relationships by ID, never transient ones")
  func records() throws {
    let context = try makeContext()
    let acme = try context.insertNewObject(forEntityName: "Company")
    try acme.setValue("Acme", forKey: "name")
    let ada = try context.insertNewObject(forEntityName: "Employee")
    try ada.setValue(acme, forKey: "company")
    try ada.setValue("kept in memory only", forKey: "scratch")
    let mix = try context.insertNewObject(forEntityName: "Playlist")
    let tracks = try (0..<3).map { _ in try context.insertNewObject(forEntityName: "Track") }
    try mix.setValue([tracks[2], tracks[0], tracks[1]], forKey: "tracks")
    let gone = try context.insertNewObject(forEntityName: "Note")
    try context.delete(gone)
    try context.save()
    let records = context.persistentRecords()
    #expect(records.count == 6)
    let byID = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
    let adaRecord = try #require(records.first { $0.entityName == "Employee" })
    #expect(adaRecord.attributes["scratch"] == nil)
    #expect(adaRecord.attributes["lastName"] == .string("Doe"))
    #expect(adaRecord.attributes["nickname"] == nil)
    let companyID = try #require(adaRecord.relationships["company"]?.first)
    #expect(byID[companyID]?.attributes["name"] == .string("Acme"))
    #expect(byID[companyID]?.relationships["employees"] == [adaRecord.id])
    let mixRecord = try #require(records.first { $0.entityName == "Playlist" })
    let ids = tracks.map { Int64($0.row) + 1 }
    #expect(mixRecord.relationships["tracks"] == [ids[2], ids[0], ids[1]])
    #expect(tracks[0].objectID.uriRepresentation.lastPathComponent == "p\(ids[0])")
    #expect(!records.contains { $0.entityName == "Note" })
  }
}
