import FolioFuzzing

// The fuzz target for the change journal of atomic stores; `FuzzDriver` explains the two builds.
@main
enum FuzzChangeJournal {
  static func main() { FuzzDriver.main("FuzzChangeJournal", JournalFuzzing.self) }
}
