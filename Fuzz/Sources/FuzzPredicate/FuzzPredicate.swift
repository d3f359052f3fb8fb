import FolioFuzzing

// The fuzz target for the predicate parser; `FuzzDriver` explains the two builds.
@main
enum FuzzPredicate {
  static func main() { FuzzDriver.main("FuzzPredicate", PredicateFuzzing.self) }
}
