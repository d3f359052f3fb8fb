import FolioFuzzing

// The fuzz target for Xcode mapping models and value expression text; `FuzzDriver` explains
// the two builds.
@main
enum FuzzMappingModel {
  static func main() { FuzzDriver.main("FuzzMappingModel", MappingModelFuzzing.self) }
}
