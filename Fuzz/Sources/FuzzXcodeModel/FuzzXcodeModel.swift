import FolioFuzzing

// The fuzz target for the Xcode model reader; `FuzzDriver` explains the two builds.

#if FOLIO_FUZZING
  @_cdecl("LLVMFuzzerTestOneInput")
  func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    XcodeModelFuzzing.run(FuzzDriver.data(bytes, count))
    return 0
  }
#endif

@main
enum FuzzXcodeModel {
  static func main() {
    FuzzDriver.main("FuzzXcodeModel", prepare: XcodeModelFuzzing.prepare) { bytes, count in
      XcodeModelFuzzing.run(FuzzDriver.data(bytes, count))
      return 0
    }
  }
}
