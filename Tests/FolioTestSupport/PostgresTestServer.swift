import Foundation

/// The PostgreSQL server the tests may use: `FOLIO_TEST_POSTGRES_URL`, which `make test` sets
/// to a throwaway cluster it starts (`scripts/postgres-cluster.sh`). Without it the
/// PostgreSQL tests are skipped, and `make test` says so.
public enum PostgresTestServer {
  /// The server's database URL, without a schema.
  public static let url: String? = {
    guard let value = ProcessInfo.processInfo.environment["FOLIO_TEST_POSTGRES_URL"],
      !value.isEmpty
    else { return nil }
    return value
  }()

  public static var isAvailable: Bool { url != nil }

  /// A URL naming a schema no other test uses: `…?schema=t_<name>_<random>`.
  public static func document(_ name: String) -> URL {
    let base = url ?? "postgresql://localhost/folio_test"
    let schema = "t_\(name)_\(UInt32.random(in: 0...UInt32.max))"
    let separator = base.contains("?") ? "&" : "?"
    // A URL the tests build from a valid base; a failure here is the environment's.
    return URL(string: base + separator + "schema=" + schema)
      ?? URL(fileURLWithPath: "/nonexistent")
  }
}
