import FolioFuzzing

// The fuzz target for kept undo histories; `FuzzDriver` explains the two builds.
@main
enum FuzzUndoHistory {
  static func main() { FuzzDriver.main("FuzzUndoHistory", UndoHistoryFuzzing.self) }
}
