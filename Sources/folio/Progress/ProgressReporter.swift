import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

// How long work shows how far it has come. The work itself only stores a count of objects now and
// then (a relaxed atomic store, a plain move on x86), or nothing at all; a timer thread samples
// that count and the process's I/O counters (`ProcessIO`) ten times a second, works out the
// fraction done, the rate over the last few seconds and the time left, and redraws one line on
// standard error in place (`\r`, the line, erase to its end). The line is drawn only where
// someone can watch it: standard error a terminal that is not `TERM=dumb`, and input (or
// output) of at least `threshold` bytes. It is erased when the work ends, before any error is
// printed. Bold only where colour is allowed (`NO_COLOR` unset or empty, no-color.org).

/// A progress line on standard error for work on a large file: phases, each counting bytes read
/// or written, objects, or both.
///
/// ```swift
/// let size = ProgressReporter.size(of: url)
/// let progress = ProgressReporter(workSize: size)
/// defer { progress.finish() }
/// progress.begin(.init(name: "reading", bytes: .read, totalBytes: size, countsObjects: true))
/// for record in records { done += 1; progress.count(objects: done) }
/// ```
final class ProgressReporter: Sendable {
  /// The smallest input or output, in bytes, whose work shows progress: 8 MB, a second or so
  /// of reading. `FOLIO_PROGRESS_THRESHOLD` (bytes) replaces it, for tests.
  static let threshold: Int64 = 8_000_000

  /// One stretch of the work, with what it counts.
  struct Phase: Sendable {
    /// The process's bytes a phase counts.
    enum Bytes: Sendable { case read, written }
    /// What is being done: "reading", "writing 1,000 objects", "step 1 of 2: validating".
    var name: String
    /// The bytes counted, from the phase's start; `nil` for none.
    var bytes: Bytes?
    /// The bytes the phase reads or writes in all, when known.
    var totalBytes: Int64?
    /// Whether the work reports objects (`count(objects:)`).
    var countsObjects = false
    /// The objects the phase handles in all, when known.
    var totalObjects: Int?
    /// How much of the phase its bytes stand for, from 0 to 1, when it counts both bytes and
    /// objects; its objects stand for the rest (and count nothing while their total is
    /// unknown).
    var bytesShare = 1.0
    /// How many passes read the file at once (a model inferred as the store is read): the
    /// bytes counted are shared out among them.
    var passes: Int64 = 1
  }

  /// Whether the line is drawn at all; when it is not, every method returns at once.
  let isShown: Bool
  /// Whether the phase may be bold.
  private let isStyled: Bool
  /// Microseconds between redraws: a tenth of a second, or the milliseconds
  /// `FOLIO_PROGRESS_INTERVAL` gives (for tests, which need a frame drawn mid-work).
  private let interval: UInt32
  /// Objects done in the current phase.
  private let objectCount = Atomic<Int>(0)
  /// Objects the current phase handles in all; -1 while unknown.
  private let objectTotal = Atomic<Int>(-1)
  private let state = Mutex(State())

  /// A reporter for work that reads or writes `workSize` bytes, shown when `environment` and
  /// the standard streams allow (see `isWanted`); `standardOutputBusy` when the work writes
  /// standard output as it goes, which a progress line on the same terminal would garble.
  init(
    workSize: Int64?, standardOutputBusy: Bool = false,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    let terminal = isatty(STDERR_FILENO) == 1
    isShown =
      Self.isWanted(workSize: workSize, isTerminal: terminal, environment: environment)
      && !(standardOutputBusy && isatty(STDOUT_FILENO) == 1)
    isStyled = (environment["NO_COLOR"] ?? "").isEmpty
    let milliseconds = environment["FOLIO_PROGRESS_INTERVAL"].flatMap { UInt32($0) } ?? 100
    interval = min(max(milliseconds, 1), 10_000) * 1_000
  }

  /// Whether work of `workSize` bytes shows progress: on a terminal that is not `TERM=dumb`,
  /// for at least `threshold` bytes.
  static func isWanted(workSize: Int64?, isTerminal: Bool, environment: [String: String])
    -> Bool
  {
    guard isTerminal, environment["TERM"] != "dumb", let workSize else { return false }
    let threshold = environment["FOLIO_PROGRESS_THRESHOLD"].flatMap { Int64($0) } ?? threshold
    return workSize >= threshold
  }

  /// The size of the file at `url`, or `nil` when it has none (missing, not a regular file, a
  /// document on a server).
  static func size(of url: URL) -> Int64? {
    var status = stat()
    guard url.isFileURL, stat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      return nil
    }
    return Int64(status.st_size)
  }

  /// Starts `phase`: its counts start from zero, and the line shows it at once.
  func begin(_ phase: Phase) {
    guard isShown else { return }
    objectCount.store(0, ordering: .relaxed)
    objectTotal.store(phase.totalObjects ?? -1, ordering: .relaxed)
    let startsTimer = state.withLock { state -> Bool in
      guard !state.isFinished else { return false }
      state.phase = phase
      state.started = .now
      state.baseline = ProcessIO.current()
      state.drawnAtBaseline = state.drawn
      state.samples = []
      draw(&state)
      defer { state.isTicking = true }
      return !state.isTicking
    }
    if startsTimer {
      Thread.detachNewThread { [self] in
        while tick() { usleep(interval) }
      }
    }
  }

  /// The objects done so far in this phase: one relaxed store, cheap enough for every record.
  @inline(__always)
  func count(objects: Int) {
    objectCount.store(objects, ordering: .relaxed)
  }

  /// The objects done so far in this phase, of `total` in all when the work knows it.
  @inline(__always)
  func count(objects: Int, of total: Int?) {
    if objects == 0, let total { setTotal(objects: total) }
    objectCount.store(objects, ordering: .relaxed)
  }

  /// The objects the phase handles in all, once the work knows it.
  func setTotal(objects: Int) {
    objectTotal.store(objects, ordering: .relaxed)
  }

  /// Erases the line, for good: the work is over, or an error is about to be printed. Later
  /// calls do nothing.
  func finish() {
    guard isShown else { return }
    state.withLock { state in
      guard !state.isFinished else { return }
      state.isFinished = true
      if state.isDrawn { _ = Self.write("\r\u{1B}[K") }
    }
  }

  private struct State {
    var phase: Phase?
    var started = ContinuousClock.now
    var baseline: ProcessIO?
    /// The bytes the line itself has written to standard error, in all and when the phase
    /// began: the process's written bytes count them, and a phase counting bytes written
    /// must not.
    var drawn: Int64 = 0
    var drawnAtBaseline: Int64 = 0
    /// The last few seconds' counts, oldest first, for rates and the time left.
    var samples: [Sample] = []
    var line = ""
    var isDrawn = false
    var isFinished = false
    var isTicking = false
  }

  private struct Sample {
    var time: Double
    var bytes: Int64
    var objects: Int
    var fraction: Double
  }

  /// Redraws the line; `false` once the reporter has finished, which ends the timer thread.
  private func tick() -> Bool {
    state.withLock { state in
      guard !state.isFinished else { return false }
      if state.phase != nil { draw(&state) }
      return true
    }
  }

  /// How long rates and the time left look back.
  private static let window = 3.0

  private func draw(_ state: inout State) {
    guard let phase = state.phase else { return }
    let elapsed = Self.seconds(ContinuousClock.now - state.started)
    var line = ProgressLine(phase: phase.name, elapsed: elapsed)
    var bytes: Int64 = 0
    if let counted = phase.bytes, let baseline = state.baseline, let now = ProcessIO.current() {
      bytes =
        counted == .read
        ? now.read - baseline.read
        : now.written - baseline.written - (state.drawn - state.drawnAtBaseline)
      bytes = max(bytes, 0)
      bytes /= max(phase.passes, 1)
      if let total = phase.totalBytes { bytes = min(bytes, total) }
      line.bytes = bytes
      line.totalBytes = phase.totalBytes
    }
    let objects = objectCount.load(ordering: .relaxed)
    let total = objectTotal.load(ordering: .relaxed)
    if phase.countsObjects {
      line.objects = objects
      line.totalObjects = total >= 0 ? total : nil
    }
    var byBytes: Double?
    if line.bytes != nil, let totalBytes = phase.totalBytes, totalBytes > 0 {
      byBytes = Double(bytes) / Double(totalBytes)
    }
    var byObjects: Double?
    if phase.countsObjects, total >= 0 {
      byObjects = total == 0 ? 1 : min(Double(objects) / Double(total), 1)
    }
    if let byBytes, phase.countsObjects {
      line.fraction = phase.bytesShare * byBytes + (1 - phase.bytesShare) * (byObjects ?? 0)
    } else {
      line.fraction = byBytes ?? byObjects
    }

    let sample = Sample(time: elapsed, bytes: bytes, objects: objects, fraction: line.fraction ?? 0)
    state.samples.removeAll { $0.time < elapsed - Self.window }
    if let oldest = state.samples.first, sample.time - oldest.time >= 0.5 {
      let span = sample.time - oldest.time
      if line.bytes != nil { line.bytesPerSecond = Double(sample.bytes - oldest.bytes) / span }
      if phase.countsObjects {
        line.objectsPerSecond = Double(sample.objects - oldest.objects) / span
      }
      let speed = (sample.fraction - oldest.fraction) / span
      if let fraction = line.fraction, elapsed >= 1, fraction > 0, fraction < 1, speed > 0 {
        line.secondsLeft = (1 - fraction) / speed
      }
    }
    state.samples.append(sample)

    let text = line.rendered(width: Self.columns(), styled: isStyled)
    guard text != state.line || !state.isDrawn else { return }
    state.line = text
    state.isDrawn = true
    state.drawn += Self.write("\r" + text + "\u{1B}[K")
  }

  private static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  /// Standard error's width in columns; 80 when it cannot be told.
  private static func columns() -> Int {
    var size = winsize()
    guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }

  /// Writes `text` to standard error; the bytes written.
  private static func write(_ text: String) -> Int64 {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let count = bytes.withUnsafeMutableBytes { raw in
        Glibc.write(STDERR_FILENO, raw.baseAddress.map { $0 + offset }, raw.count - offset)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      offset += count
    }
    return Int64(offset)
  }
}
