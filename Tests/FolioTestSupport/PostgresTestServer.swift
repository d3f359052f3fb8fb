import Foundation

#if canImport(Glibc)
  import Glibc
#endif

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

  /// Restarts the throwaway cluster (`scripts/postgres-cluster.sh restart`) and returns the
  /// script's exit status, waiting for it with `waitpid`: the server it starts again outlives
  /// it, which Foundation's `Process` does not always see the end of.
  public static func restart() -> Int32 {
    let path = packageRoot.appendingPathComponent("scripts/postgres-cluster.sh").path
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup(path), strdup("restart"), nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, path, nil, nil, argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
  }
}
