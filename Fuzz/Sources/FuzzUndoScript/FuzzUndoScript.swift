import FolioFuzzing

// The fuzz target for the undo-script parser; `FuzzDriver` explains the two builds.

#if FOLIO_FUZZING
  @_cdecl("LLVMFuzzerTestOneInput")
  func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    UndoScriptFuzzing.run(FuzzDriver.data(bytes, count))
    return 0
  }
#endif

@main
enum FuzzUndoScript {
  static func main() {
    FuzzDriver.main("FuzzUndoScript", prepare: UndoScriptFuzzing.prepare) { bytes, count in
      UndoScriptFuzzing.run(FuzzDriver.data(bytes, count))
      return 0
    }
  }
}
