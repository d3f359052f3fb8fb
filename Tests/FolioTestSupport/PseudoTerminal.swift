import CFolioSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A program running on a pseudo-terminal that a test types into, key by key, as a user
/// would: each ``type(_:)`` waits for what the program shows first, so keys arrive once it
/// reads them, in the mode it reads them in.
///
/// ```swift
/// let terminal = try PseudoTerminal(folio, ["shell", "Expenses.xml"], in: folder)
/// try terminal.waitFor("> ")
/// try terminal.type("ins\t")
/// try terminal.waitFor("insert ")
/// ```
public final class PseudoTerminal {
  private let master: Int32
  private let process = Process()
  /// Everything the program wrote to the terminal so far, escape sequences included.
  public private(set) var transcript = ""
  /// Where the next ``waitFor(_:timeout:)`` starts looking in ``transcript``, in UTF-8 bytes.
  private var mark = 0

  /// What the program wrote that no wait has passed yet.
  private var unread: String { String(decoding: transcript.utf8.dropFirst(mark), as: UTF8.self) }

  /// Starts `executable` with `arguments` on a new terminal of `columns` columns, in
  /// `directory`, with `environment` added to the test's own.
  public init(
    _ executable: URL, _ arguments: [String], in directory: URL,
    environment: [String: String] = [:], columns: UInt16 = 80
  ) throws {
    var name = [CChar](repeating: 0, count: 128)
    master = folio_open_pseudo_terminal(&name, UInt(name.count))
    guard master >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    let slave = FileHandle(
      forUpdatingAtPath: String(
        decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    guard let slave else { throw POSIXError(.ENOENT) }
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    process.environment = ProcessInfo.processInfo.environment.merging(
      ["TERM": "xterm"].merging(environment) { $1 }
    ) { $1 }
    process.standardInput = slave
    process.standardOutput = slave
    process.standardError = slave
    try process.run()
    try slave.close()
  }

  deinit {
    if process.isRunning { process.terminate() }
    close(master)
  }

  /// Types `keys`: their UTF-8 bytes, as a terminal sends them (`\r` for Enter, `\t` for
  /// Tab, `\u{04}` for Control-D, `\u{1B}[A` for Up).
  public func type(_ keys: String) throws {
    let bytes = Array(keys.utf8)
    guard write(master, bytes, bytes.count) == bytes.count else {
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
  }

  /// Reads what the program writes until `text` appears after what earlier waits found;
  /// what it found is then passed. Throws, with the transcript, after `timeout` seconds.
  @discardableResult
  public func waitFor(_ text: String, timeout: Double = 20) throws -> String {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let unread = unread
      if let found = unread.range(of: text) {
        let seen = String(unread[..<found.upperBound])
        mark += seen.utf8.count
        return seen
      }
      let left = deadline.timeIntervalSinceNow
      guard left > 0, readSome(waiting: left) else {
        throw TerminalTimeout(expected: text, transcript: unread)
      }
    }
  }

  /// Reads what is there within `seconds`; `false` when nothing came or the terminal closed.
  private func readSome(waiting seconds: Double) -> Bool {
    var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, Int32(min(seconds, 1) * 1000)) > 0 else { return seconds > 1 }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = read(master, &buffer, buffer.count)
    guard count > 0 else { return false }
    transcript += String(decoding: buffer[..<count], as: UTF8.self)
    return true
  }

  /// Waits for the program to end, reading what it writes meanwhile; its exit status.
  public func waitForExit(timeout: Double = 20) throws -> Int32 {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning {
      guard deadline.timeIntervalSinceNow > 0 else {
        throw TerminalTimeout(expected: "the end", transcript: unread)
      }
      _ = readSome(waiting: 0.1)
    }
    while readSome(waiting: 0.05) {}
    return process.terminationStatus
  }
}

/// What a program on a ``PseudoTerminal`` did not show in time, and what it showed instead.
public struct TerminalTimeout: Error, CustomStringConvertible {
  public var expected: String
  public var transcript: String
  public var description: String {
    "waited for \(expected.debugDescription); the terminal showed \(transcript.debugDescription)"
  }
}
