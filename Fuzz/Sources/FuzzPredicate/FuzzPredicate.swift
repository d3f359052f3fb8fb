import FolioFuzzing

// The fuzz target for the predicate parser; `FuzzDriver` explains the two builds.

#if FOLIO_FUZZING
  @_cdecl("LLVMFuzzerTestOneInput")
  func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    PredicateFuzzing.run(FuzzDriver.data(bytes, count))
    return 0
  }
#endif

@main
enum FuzzPredicate {
  static func main() {
    FuzzDriver.main("FuzzPredicate", prepare: PredicateFuzzing.prepare) { bytes, count in
      PredicateFuzzing.run(FuzzDriver.data(bytes, count))
      return 0
    }
  }
}
