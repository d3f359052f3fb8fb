import FolioPostgresStore
import FolioStores
import Foundation
import Testing

extension PostgresLocationTests {
  @Test("a password given as libpq's password= parameter is refused too, without repeating it")
  func passwordParameter() throws {
    let url = try #require(
      URL(string: "postgres://app@host/books?sslmode=require&password=hunter2"))
    let error = try #require(throws: StoreError.self) { try PostgresLocation(url) }
    #expect(error.code == .unreadable)
    #expect(
      error.description
        == "postgresql://…: the URL carries a password; give it in PGPASSWORD or ~/.pgpass, never on a command line"
    )
  }
}
