import FolioFuzzing

// The fuzz target for the undo-script parser; `FuzzDriver` explains the two builds.
@main
enum FuzzUndoScript {
  static func main() { FuzzDriver.main("FuzzUndoScript", UndoScriptFuzzing.self) }
}
