/// Lines laid out as `swift format` lays them out (its default configuration: two-space
/// indents, 100 columns), for the few shapes generated code has, so that formatting the
/// output changes nothing.
enum Layout {
  static let width = 100

  /// `head { body }` at `indent`, on one line when it fits, else with `body` on a line of its
  /// own; `body` is one statement, already laid out for `indent + 2`.
  static func block(_ indent: Int, _ head: String, _ body: String) -> String {
    let pad = String(repeating: " ", count: indent)
    let line = "\(pad)\(head) { \(body) }"
    if line.count <= width, !body.contains("\n") { return line + "\n" }
    return "\(pad)\(head) {\n\(pad)  \(body)\n\(pad)}\n"
  }

  /// A call of `name` with `arguments`, for a line at `indent`: on one line when it fits,
  /// else with the arguments on continuation lines, filled up to the width.
  static func call(_ indent: Int, _ name: String, _ arguments: [String]) -> String {
    let line = "\(name)(\(arguments.joined(separator: ", ")))"
    if indent + line.count <= width { return line }
    let pad = String(repeating: " ", count: indent + 2)
    var lines: [String] = []
    var current = ""
    for (index, argument) in arguments.enumerated() {
      let piece = argument + (index == arguments.count - 1 ? ")" : ",")
      if current.isEmpty {
        current = piece
      } else if pad.count + current.count + 1 + piece.count <= width {
        current += " " + piece
      } else {
        lines.append(current)
        current = piece
      }
    }
    lines.append(current)
    return "\(name)(\n" + lines.map { pad + $0 }.joined(separator: "\n")
  }

  /// A public method at two spaces' indent: the signature on one line when it fits (the
  /// brace moving to a line of its own when only it does not), else the parameters on a line
  /// of their own; then `body`, laid out for four spaces' indent.
  static func function(_ name: String, _ parameters: String, body: String) -> String {
    let signature = "  public func \(name)(\(parameters))"
    let opening: String
    if signature.count + 2 <= width {
      opening = signature + " {"
    } else if signature.count <= width {
      opening = signature + "\n  {"
    } else {
      opening = "  public func \(name)(\n    \(parameters)\n  ) {"
    }
    return "\(opening)\n    \(body)\n  }\n"
  }
}
