import FolioFuzzing

// The fuzz target for the XML store reader; `FuzzDriver` explains the two builds.

#if FOLIO_FUZZING
  @_cdecl("LLVMFuzzerTestOneInput")
  func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    XMLStoreFuzzing.run(FuzzDriver.data(bytes, count))
    return 0
  }
#endif

@main
enum FuzzXMLStore {
  static func main() {
    FuzzDriver.main("FuzzXMLStore", prepare: XMLStoreFuzzing.prepare) { bytes, count in
      XMLStoreFuzzing.run(FuzzDriver.data(bytes, count))
      return 0
    }
  }
}
