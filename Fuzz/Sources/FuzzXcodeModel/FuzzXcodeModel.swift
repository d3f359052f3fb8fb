import FolioFuzzing

// The fuzz target for the Xcode model reader; `FuzzDriver` explains the two builds.
@main
enum FuzzXcodeModel {
  static func main() { FuzzDriver.main("FuzzXcodeModel", XcodeModelFuzzing.self) }
}
