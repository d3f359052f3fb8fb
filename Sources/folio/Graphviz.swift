internal import FolioSupport
import Foundation

/// Graphviz's `dot`, found on `PATH` and run as a subprocess to draw DOT as SVG.
struct Graphviz {
  /// The `dot` executable.
  let executable: URL

  /// `dot` from the first folder of `PATH` that has it.
  ///
  /// - Throws: `GraphvizError.notInstalled` when no folder of `PATH` has it.
  static func locate(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(GraphvizError) -> Graphviz {
    // An empty entry of PATH is the current folder, as the shell reads it.
    for folder in (environment["PATH"] ?? "").split(
      separator: ":", omittingEmptySubsequences: false)
    {
      let url = URL(fileURLWithPath: folder.isEmpty ? "." : String(folder))
        .appendingPathComponent("dot")
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder),
        !isFolder.boolValue, FileManager.default.isExecutableFile(atPath: url.path)
      {
        return Graphviz(executable: url)
      }
    }
    throw .notInstalled()
  }

  /// `source` drawn as an SVG document by `dot -Tsvg`.
  ///
  /// - Throws: `GraphvizError.failed` when the source cannot be handed to `dot`, or `dot`
  ///   cannot be started or does not exit 0.
  func svg(from source: String) throws(GraphvizError) -> String {
    // dot reads the source from a file rather than a pipe: should it stop reading early, a
    // write to the pipe would raise SIGPIPE and end folio without a message.
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("folio-graph-\(UUID().uuidString).dot")
    do {
      try Data(source.utf8).write(to: file)
    } catch {
      throw .failed("cannot write the graph to \(file.path): \(error.localizedDescription)")
    }
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = executable
    process.arguments = ["-Tsvg", file.path]
    let output = Pipe()
    let errors = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = errors
    do {
      try process.run()
    } catch {
      throw .failed("cannot run \(executable.path): \(error.localizedDescription)")
    }
    // The errors are read on another thread while the drawing is read here: a full pipe would
    // block dot, and this process with it.
    var errorData = Data()
    var svg = Data()
    runAtOnce(
      { svg = output.fileHandleForReading.readDataToEndOfFile() },
      beside: { errorData = errors.fileHandleForReading.readDataToEndOfFile() })
    process.waitUntilExit()
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
      let reason = String(decoding: errorData, as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      throw .failed(
        "\(executable.path) -Tsvg exited with status \(process.terminationStatus)"
          + (reason.isEmpty ? "" : ": \(reason)"))
    }
    return String(decoding: svg, as: UTF8.self)
  }
}

/// Why Graphviz could not draw a graph.
struct GraphvizError: Error, CustomStringConvertible {
  enum Code: Sendable, Hashable {
    /// No `dot` on `PATH`.
    case notInstalled
    /// `dot` could not be started, or failed.
    case failed
  }

  var code: Code
  var message: String
  var description: String { message }

  static func notInstalled() -> GraphvizError {
    GraphvizError(
      code: .notInstalled,
      message:
        "--format svg needs Graphviz's dot, which is not on PATH: install Graphviz "
        + "(apt-get install graphviz) or use --format dot")
  }

  static func failed(_ message: String) -> GraphvizError {
    GraphvizError(code: .failed, message: message)
  }
}
