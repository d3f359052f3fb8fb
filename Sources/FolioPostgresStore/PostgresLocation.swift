import FolioModel
import FolioStores
import Foundation

/// Where a PostgreSQL document is: a server, a database on it, and the schema in that database
/// that holds the document's tables, named by a URL.
///
/// `postgresql://USER@HOST:PORT/DATABASE?schema=NAME` (`postgres://` alike); without `schema`
/// the document is in `public`, PostgreSQL's default schema. Every other query parameter is
/// libpq's (`sslmode=require`, `connect_timeout=5`) and goes to it unchanged. A password never
/// comes in the URL (`USER:PASSWORD@` or `password=`), where a shell's history and a process
/// listing would show it: libpq reads it from `PGPASSWORD` or `~/.pgpass`.
package struct PostgresLocation: Sendable, Equatable {
  /// The URL as given, which names the document in messages.
  package let url: URL
  /// The schema holding the document's tables.
  package let schema: String
  /// What libpq connects with: the URL without `schema`.
  package let connectionString: String

  /// The URL schemes of a PostgreSQL document.
  package static let schemes: Set<String> = ["postgresql", "postgres"]

  /// Whether `url` names a PostgreSQL document rather than a file.
  package static func names(_ url: URL) -> Bool {
    url.scheme.map { schemes.contains($0.lowercased()) } ?? false
  }

  /// - Throws: `StoreError.unreadable` for a URL that is not a PostgreSQL one, names no
  ///   database, carries a password, or names an empty schema.
  package init(_ url: URL) throws(StoreError) {
    let place = InputLocation(file: url.absoluteString)
    guard Self.names(url), var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    else {
      throw StoreError(
        .unreadable, "not a PostgreSQL URL (postgresql://USER@HOST:PORT/DATABASE?schema=NAME)",
        at: place)
    }
    // libpq takes a password from `password=` as from `USER:PASSWORD@`.
    guard components.password == nil,
      !(components.queryItems ?? []).contains(where: { $0.name == "password" })
    else {
      // The message must not repeat the URL, which holds the password.
      throw StoreError(
        .unreadable,
        "the URL carries a password; give it in PGPASSWORD or ~/.pgpass, never on a command line",
        at: InputLocation(file: "postgresql://…"))
    }
    let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : ""
    guard !database.isEmpty else {
      throw StoreError(
        .unreadable, "the URL names no database (postgresql://USER@HOST:PORT/DATABASE)", at: place)
    }
    var schema = "public"
    var kept: [URLQueryItem] = []
    for item in components.queryItems ?? [] {
      if item.name == "schema" {
        guard let value = item.value, !value.isEmpty else {
          throw StoreError(.unreadable, "the URL's schema= names no schema", at: place)
        }
        schema = value
      } else {
        kept.append(item)
      }
    }
    guard !schema.contains("\0") else {
      throw StoreError(.unreadable, "a schema name cannot hold a NUL character", at: place)
    }
    components.queryItems = kept.isEmpty ? nil : kept
    self.url = url
    self.schema = schema
    connectionString = components.string ?? url.absoluteString
  }

  /// The document in error locations: its URL.
  package var inputLocation: InputLocation { InputLocation(file: url.absoluteString) }
}
