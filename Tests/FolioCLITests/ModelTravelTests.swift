import FolioTestSupport
import Foundation
import Testing

/// Models travel with the data: a SQLite store Folio writes carries its model, so it opens
/// whole where no model is at hand.
@Suite("Models travel with the data")
struct ModelTravelTests {
  @Test(
    "a SQLite store converted without a model keeps every relationship through another conversion")
  func sqliteToSQLiteToXML() throws {
    let recipes = SQLiteCorpus.root.appendingPathComponent(
      "alhoqbani__AppleSample-iPhoneCoreDataRecipes__Recipes/Recipes.sqlite")
    guard SQLiteCorpus.isPresent else { return }
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let copy = folder.appendingPathComponent("r.sqlite").path
    let xml = folder.appendingPathComponent("r.xml").path
    #expect(try run(folio, ["convert", recipes.path, copy]).status == 0)
    let converted = try run(folio, ["convert", copy, xml])
    #expect(converted.status == 0, "\(converted.standardError)")
    // Each recipe lists its ingredients, as the original's model says.
    for store in [recipes.path, copy, xml] {
      let counts = try run(
        folio, ["query", store, "Recipe", "--keys", "ingredients.@count", "--format", "csv"])
      #expect(
        counts.standardOutput.split(separator: "\r\n").dropFirst().prefix(3) == ["7", "4", "8"],
        "\(store)")
    }
  }

  @Test("a SQLite store written with a model opens without it, to-many sides and all")
  func withoutModel() throws {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("e.sqlite").path
    let written = try run(
      folio,
      [
        "convert", "Samples/Expenses/Expenses.xml", store, "--model",
        "Samples/Expenses/Expenses.xcdatamodeld",
      ])
    #expect(written.status == 0, "\(written.standardError)")
    let query = try run(
      folio, ["query", store, "Person", "--keys", "name,spendings.@count", "--format", "csv"])
    #expect(query.status == 0, "\(query.standardError)")
    #expect(query.standardOutput.contains("Ada Lovelace,2"))
    // The model it carries is the one it was written with: it opens with that model too.
    let info = try run(folio, ["info", store, "--model", "Samples/Expenses/Expenses.xcdatamodeld"])
    #expect(info.status == 0, "\(info.standardError)")
  }
}
