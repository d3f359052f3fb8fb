import FolioFuzzing

// The fuzz target for the binary store reader; `FuzzDriver` explains the two builds.
@main
enum FuzzBinaryStore {
  static func main() { FuzzDriver.main("FuzzBinaryStore", BinaryStoreFuzzing.self) }
}
