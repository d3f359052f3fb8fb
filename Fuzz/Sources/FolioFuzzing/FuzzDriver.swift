import Foundation

#if canImport(Glibc)
  import Glibc
#endif

#if FOLIO_FUZZING
  import CLibFuzzer
#endif

// Each fuzz executable is one `@main` that hands its target (a ``FuzzTarget``) to
// `FuzzDriver.main`.
//
// In the fuzz build (`-sanitize=fuzzer,address -D FOLIO_FUZZING`, see `make fuzz`) the driver
// is libFuzzer's: `LLVMFuzzerRunDriver` parses libFuzzer's flags and calls the function with
// each input it generates. SwiftPM links an executable with its own `main` (it renames the
// module's entry point and points `main` at it), so the executable also exports
// `LLVMFuzzerTestOneInput`, which libFuzzer's archive needs to link: this library defines it
// once for every executable, and both names lead to the executable's target. In the normal build the same executable is a reproducer: it runs the files and
// folders named on its command line through the function, so a crash that libFuzzer found can
// be replayed, debugged and turned into a test without the fuzz build.

/// What each fuzz executable's input goes through.
package typealias FuzzInputFunction = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// A fuzz target: the state it keeps across inputs, and one input's run.
package protocol FuzzTarget {
  /// Builds the state that lives across inputs (models, scratch files).
  static func prepare()
  /// Runs one input; any outcome but a crash is fine.
  static func run(_ input: Data)
  /// Seeds the target makes itself, by file name: `TARGET --write-seeds FOLDER` (normal build)
  /// writes them. None by default: most targets' seeds are files made by other tools.
  static func seeds() -> [(name: String, data: Data)]
}

extension FuzzTarget {
  package static func seeds() -> [(name: String, data: Data)] { [] }
}

/// The input function of the executable's target, set by ``FuzzDriver/main(_:_:)`` before the
/// first input, and read only by the one thread that runs inputs.
nonisolated(unsafe) private var runTarget: (Data) -> Void = { _ in }

#if FOLIO_FUZZING
  /// libFuzzer's input function, which its archive needs to link.
  @_cdecl("LLVMFuzzerTestOneInput")
  func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    runTarget(FuzzDriver.data(bytes, count))
    return 0
  }
#endif

/// The shared entry point of the fuzz executables.
package enum FuzzDriver {
  /// Fuzzes `target` (fuzz build) or replays the inputs named on the command line through it
  /// (normal build), then exits; `name` is the executable's, for messages.
  package static func main<Target: FuzzTarget>(_ name: String, _ target: Target.Type) -> Never {
    runTarget = Target.run
    #if !FOLIO_FUZZING
      let arguments = CommandLine.arguments
      if arguments.count == 3, arguments[1] == "--write-seeds" {
        exit(writeSeeds(Target.seeds(), to: arguments[2]))
      }
    #endif
    main(name, prepare: Target.prepare) { bytes, count in
      runTarget(FuzzDriver.data(bytes, count))
      return 0
    }
  }

  /// Runs libFuzzer (fuzz build) or replays the inputs named on the command line (normal
  /// build), then exits.
  ///
  /// - Parameters:
  ///   - prepare: Builds the state that lives across inputs (models, scratch files), before
  ///     the first input and out of leak detection's sight.
  ///   - function: Runs one input.
  package static func main(
    _ name: String, prepare: () -> Void, _ function: FuzzInputFunction
  ) -> Never {
    atexit { ScratchFile.removeAll() }
    var status: Int32 = 0
    onSmallStack {
      #if FOLIO_FUZZING
        __lsan_disable()
        prepare()
        __lsan_enable()
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        status = LLVMFuzzerRunDriver(&argc, &argv, function)
      #else
        prepare()
        status = replay(name, CommandLine.arguments.dropFirst(), function)
      #endif
    }
    exit(status)
  }

  /// The bytes libFuzzer passes, as `Data`.
  package static func data(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Data {
    guard let bytes, count > 0 else { return Data() }
    return Data(bytes: bytes, count: count)
  }

  /// Writes `seeds` into `folder` (made if missing) and returns the exit status.
  private static func writeSeeds(_ seeds: [(name: String, data: Data)], to folder: String) -> Int32
  {
    let url = URL(fileURLWithPath: folder)
    do {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      for seed in seeds { try seed.data.write(to: url.appendingPathComponent(seed.name)) }
    } catch {
      FileHandle.standardError.write(Data("cannot write seeds in \(folder): \(error)\n".utf8))
      return 1
    }
    print("\(seeds.count) seeds written in \(folder)")
    return 0
  }

  /// Runs every input and returns the exit status: 0, 1 for an unreadable file, 64 for usage.
  private static func replay(
    _ name: String, _ paths: ArraySlice<String>, _ function: FuzzInputFunction
  ) -> Int32 {
    guard !paths.isEmpty else {
      FileHandle.standardError.write(
        Data("usage: \(name) FILE-OR-FOLDER...  (replays inputs; `make fuzz` fuzzes)\n".utf8))
      return 64
    }
    var count = 0
    for path in paths {
      for file in files(at: path) {
        guard let input = FileManager.default.contents(atPath: file) else {
          FileHandle.standardError.write(Data("\(name): cannot read \(file)\n".utf8))
          return 1
        }
        input.withUnsafeBytes { raw in
          _ = function(raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        count += 1
      }
    }
    print("\(name): \(count) inputs ran without a crash")
    return 0
  }

  /// The file at `path`, or the files in the folder at `path` (not recursive), sorted.
  private static func files(at path: String) -> [String] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      isDirectory.boolValue
    else { return [path] }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return names.sorted().map { path + "/" + $0 }.filter { file in
      var isFolder: ObjCBool = false
      return FileManager.default.fileExists(atPath: file, isDirectory: &isFolder)
        && !isFolder.boolValue
    }
  }
}

/// The result of `body`, or `nil` when it throws; with `FOLIO_FUZZ_VERBOSE=1` in the
/// environment the error is printed, to see how far a replayed input gets.
@discardableResult
package func attempt<Result>(_ what: String, _ body: () throws -> Result) -> Result? {
  do {
    return try body()
  } catch {
    if isVerbose { print("\(what): \(error)") }
    return nil
  }
}

private let isVerbose = ProcessInfo.processInfo.environment["FOLIO_FUZZ_VERBOSE"] == "1"

extension FuzzDriver {
  /// The stack libFuzzer and the reproducer run on, inputs included: 1 MiB, an eighth of the
  /// main thread's, so that recursion without a depth limit overflows within libFuzzer's input
  /// sizes (a few thousand bytes) rather than only on inputs eight times longer. The readers'
  /// documented limits (XML nesting 64, predicates 100, script lists 32) fit in it. One thread
  /// runs every input: a thread per input would cost about 230 µs each under ASan.
  ///
  /// That holds for optimised code. Unoptimised frames are several times larger (a predicate
  /// nested 100 levels deep, braces and parentheses, overflows 1 MiB in a debug build), so the
  /// debug reproducer gets the main thread's 8 MiB.
  #if DEBUG
    static let stackSize = 8 << 20
  #else
    static let stackSize = 1 << 20
  #endif

  /// Runs `body` on a thread with a ``stackSize`` stack and waits for it.
  static func onSmallStack(_ body: () -> Void) {
    withoutActuallyEscaping(body) { body in
      var context = body
      withUnsafeMutablePointer(to: &context) { pointer in
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        var thread = pthread_t()
        let status = pthread_create(
          &thread, &attributes,
          { raw in
            raw?.assumingMemoryBound(to: (() -> Void).self).pointee()
            return nil
          }, pointer)
        guard status == 0 else { preconditionFailure("pthread_create failed with \(status)") }
        pthread_join(thread, nil)
      }
    }
  }
}
