import FolioFuzzing

// The fuzz target for the XML store reader; `FuzzDriver` explains the two builds.
@main
enum FuzzXMLStore {
  static func main() { FuzzDriver.main("FuzzXMLStore", XMLStoreFuzzing.self) }
}
