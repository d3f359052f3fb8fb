import FolioFuzzing

// The fuzz target for the binary store reader; `FuzzDriver` explains the two builds.

#if FOLIO_FUZZING
  @_cdecl("LLVMFuzzerTestOneInput")
  func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    BinaryStoreFuzzing.run(FuzzDriver.data(bytes, count))
    return 0
  }
#endif

@main
enum FuzzBinaryStore {
  static func main() {
    FuzzDriver.main("FuzzBinaryStore", prepare: BinaryStoreFuzzing.prepare) { bytes, count in
      BinaryStoreFuzzing.run(FuzzDriver.data(bytes, count))
      return 0
    }
  }
}
