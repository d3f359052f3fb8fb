#if canImport(Glibc)
  import Glibc
#endif

/// The bytes this process has read and written so far, by any means that goes through the
/// kernel's read and write calls (`read`, `pread`, `write`, `pwrite`…): Linux's
/// `/proc/self/io`, its `rchar` and `wchar`.
///
/// The CLI does not own the descriptors a store's reader and writer use, and the formats read
/// differently (the XML reader in chunks, SQLite page by page with `pread`), so the progress
/// line takes its bytes from the process as a whole, relative to where a phase began. What else
/// the process reads or writes meanwhile (a model file, the progress line itself) is a few
/// kilobytes beside a store of megabytes.
struct ProcessIO: Equatable {
  /// Bytes read (`rchar`).
  var read: Int64
  /// Bytes written (`wchar`).
  var written: Int64

  /// The counts now; `nil` where `/proc/self/io` cannot be read (another system, a sandbox).
  static func current() -> ProcessIO? {
    #if os(Linux)
      let descriptor = open("/proc/self/io", O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else { return nil }
      defer { close(descriptor) }
      var buffer = [UInt8](repeating: 0, count: 512)
      var filled = 0
      while filled < buffer.count {
        let count = buffer.withUnsafeMutableBytes { raw in
          Glibc.read(descriptor, raw.baseAddress.map { $0 + filled }, raw.count - filled)
        }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        filled += count
      }
      return parse(buffer[..<filled])
    #else
      return nil
    #endif
  }

  /// The counts in the text of `/proc/self/io` (`rchar: 123` lines).
  static func parse(_ text: ArraySlice<UInt8>) -> ProcessIO? {
    var read: Int64?
    var written: Int64?
    for line in text.split(separator: UInt8(ascii: "\n")) {
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
      let name = line[..<colon]
      var value: Int64 = 0
      for byte in line[(colon + 1)...] where byte >= 48 && byte <= 57 {
        value = value &* 10 &+ Int64(byte - 48)
      }
      if name.elementsEqual("rchar".utf8) { read = value }
      if name.elementsEqual("wchar".utf8) { written = value }
    }
    guard let read, let written else { return nil }
    return ProcessIO(read: read, written: written)
  }
}
