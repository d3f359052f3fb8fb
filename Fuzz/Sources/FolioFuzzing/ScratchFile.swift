import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A file that holds the current input, for readers that only read from a URL.
///
/// The stores read through a file descriptor (the XML store streams it in chunks, the binary
/// store reads the header before the rest), so the harness gives them a real file rather than
/// a second, bytes-only code path that production never takes. The file lives in `/dev/shm`
/// (memory) when it exists, is named after the process, so parallel fuzzers do not share it,
/// and is removed at exit.
package struct ScratchFile: Sendable {
  package let url: URL

  /// A scratch file named `name` for this process.
  package init(_ name: String) {
    url = URL(fileURLWithPath: Self.folder).appendingPathComponent(
      "folio-fuzz-\(getpid())-\(name)")
  }

  /// Replaces the file's contents with `bytes` and returns its URL.
  @discardableResult
  package func write(_ bytes: Data) -> URL {
    let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      preconditionFailure("cannot create the scratch file \(url.path): errno \(errno)")
    }
    defer { close(descriptor) }
    bytes.withUnsafeBytes { raw in
      var written = 0
      while written < raw.count {
        let count = Glibc.write(
          descriptor, raw.baseAddress.map { $0 + written }, raw.count - written)
        if count < 0, errno == EINTR { continue }
        guard count > 0 else {
          preconditionFailure("cannot write the scratch file \(url.path): errno \(errno)")
        }
        written += count
      }
    }
    return url
  }

  /// The folder scratch files go in.
  private static var folder: String {
    FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
  }

  /// Removes every scratch file of this process.
  package static func removeAll() {
    let prefix = "folio-fuzz-\(getpid())-"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    for name in names where name.hasPrefix(prefix) {
      unlink(URL(fileURLWithPath: folder).appendingPathComponent(name).path)
    }
  }
}
