import FolioScript
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A line typed on a terminal, edited as readline and libedit edit one: the cursor moves,
/// text is inserted and deleted anywhere, earlier lines come back with the arrow keys and Tab
/// completes the word under the cursor.
///
/// Keys: Left/Right (Control-B/F), Alt-B/F by word, Home/End (Control-A/E), Backspace,
/// Delete (Control-D on text), Control-K/U/W to kill to the end, to the start, the word
/// before; Up/Down (Control-P/N) through the history; Control-R searches it backwards; Tab
/// completes (twice lists the choices); Control-L clears the screen; Control-C drops the line;
/// Control-D on an empty line ends input. Lines wider than the terminal scroll sideways.
///
/// The terminal is in raw mode only while a line is read, so what commands print between
/// lines goes through the terminal's ordinary output processing.
final class LineEditor {
  /// Completes the text before the cursor: the word it ends with and what that word can
  /// become.
  typealias Completer = (String) -> (word: String, candidates: [String])

  private let input: Int32
  private let output: Int32
  var history: ShellHistory
  private let complete: Completer

  private var buffer: [Character] = []
  private var cursor = 0
  private var prompt = ""
  /// The first character shown when the line is wider than the terminal.
  private var scroll = 0
  private var lastKeyWasTab = false
  /// While browsing the history: the entry shown, and the line being typed before browsing.
  private var historyIndex: Int?
  private var typedLine: [Character] = []

  init(input: Int32, output: Int32, history: ShellHistory, complete: @escaping Completer) {
    self.input = input
    self.output = output
    self.history = history
    self.complete = complete
  }

  /// Reads a line after `prompt`; `nil` at the end of input (Control-D on an empty line, or
  /// the terminal closed).
  func readLine(prompt: String) -> String? {
    self.prompt = prompt
    buffer = []
    cursor = 0
    scroll = 0
    historyIndex = nil
    lastKeyWasTab = false
    guard let saved = enterRawMode() else { return Swift.readLine() }
    defer {
      var restored = saved
      tcsetattr(input, TCSADRAIN, &restored)
    }
    refresh()
    func accept() -> String {
      cursor = buffer.count
      refresh()
      write("\n")
      return String(buffer)
    }
    while let key = readKey() {
      let wasTab = lastKeyWasTab
      lastKeyWasTab = false
      switch key {
      case .enter: return accept()
      case .endOfInput:
        if buffer.isEmpty {
          write("\n")
          return nil
        }
        deleteForward()
      case .interrupt:
        write("^C\n")
        buffer = []
        cursor = 0
        historyIndex = nil
      case .tab:
        completeWord(listing: wasTab)
        lastKeyWasTab = true
      case .search:
        if searchHistory() { return accept() }
      default:
        edit(key)
      }
      refresh()
    }
    write("\n")
    return nil
  }

  // MARK: Keys

  enum Key: Equatable {
    case character(Character)
    case enter, tab, backspace, delete, endOfInput, interrupt, search, clearScreen
    case left, right, wordLeft, wordRight, home, end, up, down
    case killToEnd, killToStart, killWord
    case ignored
  }

  private func edit(_ key: Key) {
    switch key {
    case .character(let character):
      buffer.insert(character, at: cursor)
      cursor += 1
    case .backspace:
      if cursor > 0 {
        buffer.remove(at: cursor - 1)
        cursor -= 1
      }
    case .delete: deleteForward()
    case .left: cursor = max(0, cursor - 1)
    case .right: cursor = min(buffer.count, cursor + 1)
    case .wordLeft: cursor = wordStart(before: cursor)
    case .wordRight:
      while cursor < buffer.count, buffer[cursor].isWhitespace { cursor += 1 }
      while cursor < buffer.count, !buffer[cursor].isWhitespace { cursor += 1 }
    case .home: cursor = 0
    case .end: cursor = buffer.count
    case .up: showHistory(step: -1)
    case .down: showHistory(step: 1)
    case .killToEnd: buffer.removeSubrange(cursor...)
    case .killToStart:
      buffer.removeSubrange(..<cursor)
      cursor = 0
    case .killWord:
      let start = wordStart(before: cursor)
      buffer.removeSubrange(start..<cursor)
      cursor = start
    case .clearScreen: write("\u{1B}[H\u{1B}[2J")
    default: break
    }
  }

  private func deleteForward() {
    if cursor < buffer.count { buffer.remove(at: cursor) }
  }

  private func wordStart(before index: Int) -> Int {
    var start = index
    while start > 0, buffer[start - 1].isWhitespace { start -= 1 }
    while start > 0, !buffer[start - 1].isWhitespace { start -= 1 }
    return start
  }

  /// The next key typed; `nil` when input ends.
  private func readKey() -> Key? {
    guard let byte = readByte() else { return nil }
    switch byte {
    case 0x0D, 0x0A: return .enter
    case 0x09: return .tab
    case 0x7F, 0x08: return .backspace
    case 0x04: return .endOfInput
    case 0x03: return .interrupt
    case 0x12: return .search
    case 0x0C: return .clearScreen
    case 0x01: return .home
    case 0x05: return .end
    case 0x02: return .left
    case 0x06: return .right
    case 0x10: return .up
    case 0x0E: return .down
    case 0x0B: return .killToEnd
    case 0x15: return .killToStart
    case 0x17: return .killWord
    case 0x1B: return readEscape()
    case 0x00..<0x20: return .ignored
    default: return readCharacter(startingWith: byte)
    }
  }

  /// The key an escape sequence (`ESC [ …`, `ESC O …`, or Alt with a letter) stands for.
  private func readEscape() -> Key {
    guard waitForByte(milliseconds: 50), let next = readByte() else { return .ignored }
    switch next {
    case UInt8(ascii: "b"): return .wordLeft
    case UInt8(ascii: "f"): return .wordRight
    case UInt8(ascii: "["), UInt8(ascii: "O"):
      var parameters: [UInt8] = []
      while let byte = readByte() {
        guard (0x40...0x7E).contains(byte) else {
          parameters.append(byte)
          continue
        }
        switch (byte, parameters) {
        case (UInt8(ascii: "A"), _): return .up
        case (UInt8(ascii: "B"), _): return .down
        case (UInt8(ascii: "C"), []): return .right
        case (UInt8(ascii: "D"), []): return .left
        // Control with an arrow (`ESC [ 1 ; 5 C`) moves by word.
        case (UInt8(ascii: "C"), _): return .wordRight
        case (UInt8(ascii: "D"), _): return .wordLeft
        case (UInt8(ascii: "H"), _): return .home
        case (UInt8(ascii: "F"), _): return .end
        case (UInt8(ascii: "~"), [UInt8(ascii: "1")]), (UInt8(ascii: "~"), [UInt8(ascii: "7")]):
          return .home
        case (UInt8(ascii: "~"), [UInt8(ascii: "4")]), (UInt8(ascii: "~"), [UInt8(ascii: "8")]):
          return .end
        case (UInt8(ascii: "~"), [UInt8(ascii: "3")]): return .delete
        default: return .ignored
        }
      }
      return .ignored
    default: return .ignored
    }
  }

  /// The character whose UTF-8 encoding starts with `first`; invalid bytes are dropped.
  private func readCharacter(startingWith first: UInt8) -> Key {
    let length =
      first < 0x80
      ? 1 : first >> 5 == 0b110 ? 2 : first >> 4 == 0b1110 ? 3 : first >> 3 == 0b11110 ? 4 : 0
    guard length > 0 else { return .ignored }
    var bytes = [first]
    while bytes.count < length, let byte = readByte() { bytes.append(byte) }
    guard let text = String(validating: bytes, as: UTF8.self), let character = text.first else {
      return .ignored
    }
    return .character(character)
  }

  private func readByte() -> UInt8? {
    var byte: UInt8 = 0
    while true {
      let count = read(input, &byte, 1)
      if count == 1 { return byte }
      if count < 0, errno == EINTR { continue }
      return nil
    }
  }

  private func waitForByte(milliseconds: Int32) -> Bool {
    var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
    return poll(&descriptor, 1, milliseconds) > 0
  }

  // MARK: History

  /// Shows the entry `step` away from the one shown (the line being typed is past the last).
  private func showHistory(step: Int) {
    let entries = history.entries
    guard !entries.isEmpty else { return }
    let current = historyIndex ?? entries.count
    let next = min(max(0, current + step), entries.count)
    guard next != current else { return }
    if historyIndex == nil { typedLine = buffer }
    historyIndex = next == entries.count ? nil : next
    buffer = historyIndex.map { Array(entries[$0]) } ?? typedLine
    cursor = buffer.count
  }

  /// Control-R: shows the newest entry holding what is typed after `(search)`; Control-R again
  /// goes to older ones, any editing key takes the entry to edit, Enter takes it and enters
  /// it, Control-C or Control-G gives up. Whether the line is entered.
  private func searchHistory() -> Bool {
    var query: [Character] = []
    var found: Int?
    let entries = history.entries
    func show() {
      let line = found.map { entries[$0] } ?? ""
      write("\r(search)'\(String(query))': \(line)\u{1B}[0K")
    }
    /// The newest entry at `index` or before it that holds the query.
    func find(from index: Int) {
      let text = String(query)
      guard index >= 0 else { return }
      found = entries[...min(index, entries.count - 1)].lastIndex { $0.contains(text) } ?? found
    }
    show()
    while let key = readKey() {
      switch key {
      case .character(let character):
        query.append(character)
        find(from: found ?? entries.count - 1)
      case .backspace:
        if !query.isEmpty { query.removeLast() }
        find(from: entries.count - 1)
      case .search: find(from: (found ?? entries.count) - 1)
      case .interrupt, .ignored:
        write("\r\u{1B}[0K")
        return false
      default:
        if let found {
          buffer = Array(entries[found])
          cursor = buffer.count
        }
        write("\r\u{1B}[0K")
        if key == .enter { return true }
        edit(key)
        return false
      }
      show()
    }
    return false
  }

  // MARK: Completion

  private func completeWord(listing: Bool) {
    let (word, candidates) = complete(String(buffer[..<cursor]))
    guard !candidates.isEmpty else {
      write("\u{07}")
      return
    }
    if candidates.count == 1, let only = candidates.first {
      replaceWord(word, with: only + (ScriptCompletion.isComplete(only) ? " " : ""))
      return
    }
    let common = ScriptCompletion(word: word, candidates: candidates).commonPrefix
    if common.count > word.count {
      replaceWord(word, with: common)
    } else if listing {
      write("\n" + Self.columns(candidates, width: terminalWidth()) + "\n")
    } else {
      write("\u{07}")
    }
  }

  private func replaceWord(_ word: String, with replacement: String) {
    let start = cursor - word.count
    buffer.replaceSubrange(start..<cursor, with: Array(replacement))
    cursor = start + replacement.count
  }

  /// `words` in columns across `width`, in order down each column as `ls` lists them.
  static func columns(_ words: [String], width: Int) -> String {
    let cell = (words.map(\.count).max() ?? 0) + 2
    let columnCount = max(1, width / cell)
    let rows = (words.count + columnCount - 1) / columnCount
    return (0..<rows).map { row in
      stride(from: row, to: words.count, by: rows).map { index in
        words[index].padding(toLength: cell, withPad: " ", startingAt: 0)
      }.joined().replacingOccurrences(of: " +$", with: "", options: .regularExpression)
    }.joined(separator: "\n")
  }

  // MARK: Terminal

  /// Draws the prompt and the part of the line that fits, and puts the cursor in place.
  private func refresh() {
    let room = max(1, terminalWidth() - prompt.count - 1)
    if cursor < scroll { scroll = cursor }
    if cursor - scroll >= room { scroll = cursor - room + 1 }
    let shown = String(buffer[scroll..<min(buffer.count, scroll + room)])
    var text = "\r" + prompt + shown + "\u{1B}[0K\r"
    let column = prompt.count + cursor - scroll
    if column > 0 { text += "\u{1B}[\(column)C" }
    write(text)
  }

  private func terminalWidth() -> Int {
    var size = winsize()
    guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }

  /// Puts the terminal in raw mode — keys arrive one at a time, unechoed, Control-C and
  /// Control-Z as bytes — keeping output processing; the settings before, or `nil` when
  /// input is not a terminal.
  private func enterRawMode() -> termios? {
    var saved = termios()
    guard isatty(input) == 1, tcgetattr(input, &saved) == 0 else { return nil }
    var raw = saved
    raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
    raw.c_cflag |= tcflag_t(CS8)
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
    withUnsafeMutableBytes(of: &raw.c_cc) { controls in
      controls[Int(VMIN)] = 1
      controls[Int(VTIME)] = 0
    }
    // TCSADRAIN, not TCSAFLUSH: keys typed ahead of the prompt are kept.
    guard tcsetattr(input, TCSADRAIN, &raw) == 0 else { return nil }
    return saved
  }

  private func write(_ text: String) {
    let bytes = Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)
    var offset = 0
    while offset < bytes.count {
      let count = bytes.withUnsafeBytes { buffer in
        buffer.baseAddress.map { Glibc.write(output, $0 + offset, buffer.count - offset) } ?? 0
      }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return }
      offset += count
    }
  }
}
