import FolioFuzzing

// The fuzz target for NSSecureUnarchiveFromData archives; `FuzzDriver` explains the two builds.
@main
enum FuzzTransformer {
  static func main() { FuzzDriver.main("FuzzTransformer", TransformerFuzzing.self) }
}
