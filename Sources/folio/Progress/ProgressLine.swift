/// What the progress line says at one moment, and how it reads on a terminal of some width.
///
/// The line is phase, bar, percentage, bytes, objects, rate and time left, each shown when it is
/// known: `reading  [######----------]   41%  146.2 of 355.0 MB  412,330 objects  24.1 MB/s
/// 9 s left`. On a narrow terminal the rate, the objects, the bytes and the bar go in turn, so
/// the line never wraps (a wrapped line cannot be redrawn in place).
struct ProgressLine: Equatable {
  /// What is being done: "reading", "writing", "step 1 of 2: creating objects".
  var phase: String
  /// How much of the phase is done, from 0 to 1; `nil` when it cannot be told.
  var fraction: Double?
  /// Bytes read or written in the phase; `nil` when the phase counts none.
  var bytes: Int64?
  var totalBytes: Int64?
  /// Objects done in the phase; `nil` when the phase counts none.
  var objects: Int?
  var totalObjects: Int?
  var bytesPerSecond: Double?
  var objectsPerSecond: Double?
  /// The time the phase still needs, once it can be estimated.
  var secondsLeft: Double?
  /// The time the phase has taken so far.
  var elapsed: Double = 0

  /// The line, at most `width - 1` columns (the last column would make some terminals wrap),
  /// its phase in bold when `styled`.
  func rendered(width: Int, styled: Bool) -> String {
    let room = max(width - 1, 10)
    // What goes when the line is too long, a step at a time: the least telling first.
    var shown = Shown()
    for step in 0... {
      switch step {
      case 0: break
      case 1: shown.rate = false
      case 2: shown.objectTotal = false
      case 3: shown.objects = false
      case 4: shown.bytes = false
      case 5: shown.bar = false
      case 6: shown.time = false
      default:
        // Even the phase and its percentage do not fit: the phase alone, cut.
        return String(phase.prefix(room))
      }
      let fields = self.fields(shown)
      let length = phase.count + fields.reduce(0) { $0 + 2 + $1.count }
      guard length <= room else { continue }
      var line = styled ? "\u{1B}[1m\(phase)\u{1B}[0m" : phase
      for field in fields { line += "  " + field }
      return line
    }
    return phase
  }

  /// The fields a line shows.
  private struct Shown {
    var bar = true
    var bytes = true
    var objects = true
    var objectTotal = true
    var rate = true
    var time = true
  }

  /// Width of the bar's inside.
  private static let barWidth = 16

  private func fields(_ shown: Shown) -> [String] {
    var fields: [String] = []
    if let fraction {
      let clamped = min(max(fraction, 0), 1)
      if shown.bar {
        let filled = Int((clamped * Double(Self.barWidth)).rounded(.down))
        fields.append(
          "[" + String(repeating: "#", count: filled)
            + String(repeating: "-", count: Self.barWidth - filled) + "]")
      }
      fields.append(Self.percent(clamped))
    }
    if shown.bytes, let bytes { fields.append(Self.bytes(bytes, of: totalBytes)) }
    if shown.objects, let objects {
      fields.append(Self.objects(objects, of: shown.objectTotal ? totalObjects : nil))
    }
    if shown.rate, let rate { fields.append(rate) }
    if shown.time {
      if let secondsLeft {
        fields.append(Self.duration(secondsLeft) + " left")
      } else if fraction == nil, elapsed >= 1 {
        fields.append(Self.duration(elapsed))
      }
    }
    return fields
  }

  /// Bytes a second while bytes move, else objects a second.
  private var rate: String? {
    if let bytesPerSecond, bytesPerSecond >= 1 {
      return Self.bytes(Int64(bytesPerSecond), of: nil) + "/s"
    }
    if let objectsPerSecond, objectsPerSecond >= 1 {
      return Self.grouped(Int(objectsPerSecond)) + " objects/s"
    }
    return nil
  }

  /// `0.4137` as ` 41%`, padded so that the fields after it stay put.
  static func percent(_ fraction: Double) -> String {
    let value = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
    let text = "\(value)%"
    return String(repeating: " ", count: max(4 - text.count, 0)) + text
  }

  /// `bytes` in decimal units (B, kB, MB, GB), with `total` in the same unit when given:
  /// `146.2 of 355.0 MB`.
  static func bytes(_ bytes: Int64, of total: Int64?) -> String {
    let scale = max(total ?? bytes, bytes)
    let units: [(String, Double)] = [("GB", 1e9), ("MB", 1e6), ("kB", 1e3)]
    guard let (unit, size) = units.first(where: { Double(scale) >= $0.1 }) else {
      return total.map { "\(bytes) of \($0) B" } ?? "\(bytes) B"
    }
    let value = decimal(Double(bytes) / size)
    guard let total else { return "\(value) \(unit)" }
    return "\(value) of \(decimal(Double(total) / size)) \(unit)"
  }

  /// `412330` as `412,330 objects`, or `412,330 of 1,000,000 objects`.
  static func objects(_ count: Int, of total: Int?) -> String {
    let word = (total ?? count) == 1 ? "object" : "objects"
    guard let total else { return "\(grouped(count)) \(word)" }
    return "\(grouped(count)) of \(grouped(total)) \(word)"
  }

  /// Seconds as `9 s`, `2 min 05 s`, `1 h 03 min`.
  static func duration(_ seconds: Double) -> String {
    let whole = Int(seconds.rounded(.up))
    if whole < 60 { return "\(whole) s" }
    if whole < 3600 { return "\(whole / 60) min \(twoDigits(whole % 60)) s" }
    return "\(whole / 3600) h \(twoDigits(whole / 60 % 60)) min"
  }

  /// A number with one decimal, the same in every locale.
  static func decimal(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
  }

  /// `1234567` as `1,234,567`.
  static func grouped(_ number: Int) -> String {
    let digits = String(number.magnitude)
    var out = number < 0 ? "-" : ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
      out.append(digit)
    }
    return out
  }

  private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
