/// A `%` conversion in a predicate format string, as `printf` and `NSString(format:)` spell
/// them: `%@`, `%K`, and the numeric ones with their length modifiers (`%d`, `%ld`, `%lld`,
/// `%lu`, `%hd`, `%qd`, `%x`, `%f`, `%lf`, `%e`, `%g`…), flags, width and precision included.
///
/// Arguments come from Swift values, not from C's variable arguments, so a length modifier
/// cannot truncate: it states the range the argument must be in instead (`%d` and `%u` 32
/// bits, `%hd` 16, `%hhd` 8, `%ld`, `%lld`, `%qd`, `%zd`, `%jd` and `%td` 64), and an argument
/// out of it is refused, where C would silently keep only its low bits.
struct FormatSpecifier: Equatable {
  enum Kind: Equatable {
    /// `%@`: a constant, an object, or a collection of them.
    case object
    /// `%K`: a key path.
    case keyPath
    /// `%d`, `%i`, `%u`, `%o`, `%x`, `%X` and their long forms: an integer of `bits` bits.
    case integer(bits: Int, isUnsigned: Bool)
    /// `%f`, `%e`, `%g`, `%a` and their upper-case and long forms: a number.
    case double
  }

  var kind: Kind
  /// The specifier as written: `%lld`.
  var text: String

  /// The specifier spelled by `text` (which starts with `%`), or `nil` when it is none Folio
  /// takes (`%s`, `%p`, `%n` and `%c` take C pointers and characters; `*` widths take an
  /// argument of their own).
  init?(_ text: String) {
    var rest = Substring(text.dropFirst())
    rest = rest.drop { "-+ #0'".contains($0) }
    rest = rest.drop { $0.isASCII && $0.isNumber }
    if rest.first == "." {
      rest = rest.dropFirst().drop { $0.isASCII && $0.isNumber }
    }
    let lengths = ["hh", "h", "ll", "l", "q", "L", "z", "t", "j"]
    let length = lengths.first { rest.hasPrefix($0) } ?? ""
    rest = rest.dropFirst(length.count)
    guard let conversion = rest.first, rest.count == 1 else { return nil }
    let isPlain = text.count == 2
    switch conversion {
    case "@" where isPlain: kind = .object
    case "K" where isPlain: kind = .keyPath
    case "d", "i", "D", "u", "U", "o", "O", "x", "X":
      guard length != "L" else { return nil }
      let bits: Int
      switch length {
      case "hh": bits = 8
      case "h": bits = 16
      case "": bits = "DUO".contains(conversion) ? 64 : 32
      default: bits = 64
      }
      kind = .integer(bits: bits, isUnsigned: "uUoOxX".contains(conversion))
    case "f", "F", "e", "E", "g", "G", "a", "A":
      guard ["", "l", "L"].contains(length) else { return nil }
      kind = .double
    default:
      return nil
    }
    self.text = text
  }

  /// The characters a specifier may hold after its `%`, before the conversion letter.
  static func isInside(_ character: Character) -> Bool {
    character.isASCII && (character.isNumber || "-+ #'.hlqLztj".contains(character))
  }
}
