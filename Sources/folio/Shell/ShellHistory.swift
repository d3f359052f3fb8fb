import Folio
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The lines typed in `folio shell` sessions, kept in a file so that a session can bring back
/// what an earlier one typed.
///
/// The file holds one line per entry, oldest first, in UTF-8. A session reads it when it
/// starts and appends each line as it is entered (so two sessions at once both keep theirs);
/// a line equal to the one before it, or blank, is not kept. When the file grows past twice
/// ``limit`` entries, the next session rewrites it with the newest ``limit`` (a new file
/// renamed over the old one).
///
/// The file is `$FOLIO_SHELL_HISTORY` when that is set (empty: no history is kept), else
/// `$XDG_STATE_HOME/folio/shell_history`, else `~/.local/state/folio/shell_history`.
struct ShellHistory {
  /// How many entries a session loads and the file keeps.
  static let limit = 1000

  private(set) var entries: [String] = []
  let file: URL?
  /// Why the file could not be read or written, reported once.
  private(set) var problem: String?

  /// The history in `file`; none kept when `file` is `nil`.
  init(file: URL?) {
    self.file = file
    guard let file, let data = FileManager.default.contents(atPath: file.path) else { return }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    entries = Array(lines.suffix(Self.limit))
    if lines.count > 2 * Self.limit { rewrite() }
  }

  /// The history file the environment names.
  static func defaultFile(environment: [String: String] = ProcessInfo.processInfo.environment)
    -> URL?
  {
    if let path = environment["FOLIO_SHELL_HISTORY"] {
      return path.isEmpty ? nil : URL(fileURLWithPath: path)
    }
    let state =
      environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
      ?? environment["HOME"].map {
        URL(fileURLWithPath: $0).appendingPathComponent(".local/state")
      }
    return state?.appendingPathComponent("folio/shell_history")
  }

  /// Keeps `line`, in memory and at the end of the file.
  mutating func add(_ line: String) {
    let line = line.replacingOccurrences(of: "\n", with: " ")
    guard !line.allSatisfy(\.isWhitespace), line != entries.last else { return }
    entries.append(line)
    if entries.count > Self.limit { entries.removeFirst(entries.count - Self.limit) }
    guard let file, problem == nil else { return }
    do {
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      let descriptor = open(file.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
      guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
      defer { close(descriptor) }
      let bytes = Array((line + "\n").utf8)
      // One write: appends from two sessions do not interleave within a line.
      guard Glibc.write(descriptor, bytes, bytes.count) == bytes.count else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
      }
    } catch {
      problem = "history not kept in \(file.path): \(error.localizedDescription)"
    }
  }

  /// Writes the entries kept to a new file that replaces the old one (``AtomicFile``).
  private mutating func rewrite() {
    guard let file else { return }
    do throws(StoreError) {
      try AtomicFile.write(Data(entries.map { $0 + "\n" }.joined().utf8), to: file)
    } catch {
      problem = "history not kept in \(file.path): \(error.message)"
    }
  }
}
