import FolioFuzzing

// The fuzz target for the binary store's body decoder; `FuzzDriver` explains the two builds.
@main
enum FuzzBinaryBody {
  static func main() { FuzzDriver.main("FuzzBinaryBody", BinaryBodyFuzzing.self) }
}
