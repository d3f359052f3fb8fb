import FolioFuzzing

// The fuzz target for the SQLite store's own decoding and mapping; `FuzzDriver` explains the
// two builds.
@main
enum FuzzSQLiteStore {
  static func main() { FuzzDriver.main("FuzzSQLiteStore", SQLiteFuzzing.self) }
}
