import ArgumentParser

/// What a command that prints data prints: `--format text|json|jsonl`, as far as the command
/// can (one document is never JSON Lines), with `--json` and `--jsonl` kept as its aliases.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
  case text, json, jsonl

  /// The format `--format` and the alias flags ask for together, or a usage error when they
  /// disagree or name a format `allowed` does not hold.
  static func chosen(
    _ format: OutputFormat?, json: Bool, jsonl: Bool = false, allowed: [OutputFormat]
  ) throws -> OutputFormat {
    if json && jsonl { throw ValidationError("--json and --jsonl exclude each other") }
    let alias: OutputFormat? = json ? .json : jsonl ? .jsonl : nil
    if let format, let alias, format != alias {
      throw ValidationError(
        "--\(alias.rawValue) and --format \(format.rawValue) exclude each other")
    }
    let result = format ?? alias ?? .text
    guard allowed.contains(result) else {
      throw ValidationError(
        "--format \(result.rawValue): this command prints "
          + allowed.map(\.rawValue).joined(separator: " or "))
    }
    return result
  }
}

/// `--format text|json` and `--json`, for the commands that print one document.
struct TextOrJSON: ParsableArguments {
  /// The formats of one document.
  enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

  @Option(
    help: "The output: text, or json (described by the schema the command names).",
    completion: .list(Format.allCases.map(\.rawValue)))
  var format: Format?

  @Flag(name: .customLong("json"), help: "The same as --format json.")
  var jsonFlag = false

  /// Whether to print JSON.
  var json: Bool { jsonFlag || format == .json }

  func validate() throws {
    if jsonFlag, format == .text {
      throw ValidationError("--json and --format text exclude each other")
    }
  }
}
