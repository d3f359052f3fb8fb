import FolioFuzzing

// The fuzz target for the binary store's body decoder; `FuzzDriver` explains the two builds.

#if FOLIO_FUZZING
  @_cdecl("LLVMFuzzerTestOneInput")
  func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    BinaryBodyFuzzing.run(FuzzDriver.data(bytes, count))
    return 0
  }
#endif

@main
enum FuzzBinaryBody {
  static func main() {
    FuzzDriver.main("FuzzBinaryBody", prepare: BinaryBodyFuzzing.prepare) { bytes, count in
      BinaryBodyFuzzing.run(FuzzDriver.data(bytes, count))
      return 0
    }
  }
}
