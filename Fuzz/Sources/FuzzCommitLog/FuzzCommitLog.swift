import FolioFuzzing

// The fuzz target for the commit log of SQLite stores; `FuzzDriver` explains the two builds.
@main
enum FuzzCommitLog {
  static func main() { FuzzDriver.main("FuzzCommitLog", CommitLogFuzzing.self) }
}
