import FolioFuzzing

// The fuzz target for pasteboards read and pasted; `FuzzDriver` explains the two builds.
@main
enum FuzzPasteboard {
  static func main() { FuzzDriver.main("FuzzPasteboard", PasteboardFuzzing.self) }
}
