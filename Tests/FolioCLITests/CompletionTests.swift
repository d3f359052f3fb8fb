import FolioTestSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The first of `paths` that can be run, if any.
func executable(among paths: [String]) -> URL? {
  paths.first { FileManager.default.isExecutableFile(atPath: $0) }.map(URL.init(fileURLWithPath:))
}

let bash = executable(among: ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"])
let fish = executable(among: ["/usr/bin/fish", "/usr/local/bin/fish", "/bin/fish"])
let zsh = executable(among: ["/usr/bin/zsh", "/bin/zsh", "/usr/local/bin/zsh"])

/// A folder to complete in: stores of each format, a model bundle, undo scripts, and files
/// that no `folio` argument takes.
struct CompletionFolder {
  let url: URL

  init() throws {
    url = try makeTemporaryFolder()
    let manager = FileManager.default
    let samples = packageRoot.appendingPathComponent("Samples")
    try manager.copyItem(
      at: samples.appendingPathComponent("Expenses/Expenses.xml"),
      to: url.appendingPathComponent("Expenses.xml"))
    try manager.copyItem(
      at: samples.appendingPathComponent("Expenses/Expenses.xml"),
      to: url.appendingPathComponent("My Expenses.xml"))
    try manager.copyItem(
      at: samples.appendingPathComponent("Expenses/Expenses.xcdatamodeld"),
      to: url.appendingPathComponent("Expenses.xcdatamodeld"))
    try manager.copyItem(
      at: samples.appendingPathComponent("Library/Library.xcdatamodeld"),
      to: url.appendingPathComponent("Library.xcdatamodeld"))
    for name in ["Expenses.sqlite", "Expenses.folio", "Expenses.txt", "Expenses.undo", "a.undo"] {
      try Data("x".utf8).write(to: url.appendingPathComponent(name))
    }
    try manager.createDirectory(
      at: url.appendingPathComponent("Exports"), withIntermediateDirectories: false)
  }

  func remove() { try? FileManager.default.removeItem(at: url) }
}

/// bash's completion of `folio` command lines: the script `folio --generate-completion-script
/// bash` writes, sourced in a bash without start-up files, its function called as bash calls
/// it on TAB — COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT set, the cursor at the end.
@Suite("bash completion", .enabled(if: bash != nil, "bash is not installed"))
struct BashCompletionTests {
  /// Sources the script in `$1` and completes the words after it, the last being the one
  /// under the cursor; prints the candidates one a line.
  static let driver = """
    source "$1" || exit 1
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    COMP_LINE="${COMP_WORDS[*]}"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _folio folio "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    (( ${#COMPREPLY[@]} == 0 )) || printf '%s\\n' "${COMPREPLY[@]}"
    """

  /// The candidates bash offers for `words` in `folder` (sorted, without repeats), and what the
  /// completion printed on standard error.
  func complete(_ words: [String], in folder: CompletionFolder, within seconds: Int = 120) throws
    -> (candidates: [String], standardError: String)
  {
    let script = folder.url.appendingPathComponent(".folio.bash")
    if !FileManager.default.fileExists(atPath: script.path) {
      let generated = try run(folio, ["--generate-completion-script", "bash"])
      try #require(generated.status == 0)
      try Data(generated.standardOutput.utf8).write(to: script)
      try Data(Self.driver.utf8).write(to: folder.url.appendingPathComponent(".driver.bash"))
    }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    // coreutils' timeout kills a completion that hangs, with everything it started (it runs
    // them as a process group of their own), and the status shows it. SIGKILL, because a
    // child of the test runner inherits its blocked SIGTERM.
    let result = try run(
      URL(fileURLWithPath: "/usr/bin/timeout"),
      [
        "-s", "KILL", "\(seconds)", try #require(bash).path, "--norc", "--noprofile",
        ".driver.bash", script.path,
      ]
        + ["folio"] + words, in: folder.url,
      // The script runs `folio` by the name typed, as a shell finds it.
      environment: ["PATH": "\(productsDirectory.path):\(path)"])
    #expect(result.status == 0, "\(result.standardError)")
    let candidates = result.standardOutput.split(separator: "\n").map(String.init)
    return (Array(Set(candidates)).sorted(), result.standardError)
  }

  @Test("folio info offers stores by extension, and folders")
  func storeFiles() throws {
    let folder = try CompletionFolder()
    defer { folder.remove() }
    let offered = try complete(["info", "Exp"], in: folder)
    #expect(
      offered.candidates == [
        "Expenses.folio", "Expenses.sqlite", "Expenses.xcdatamodeld", "Expenses.xml", "Exports",
      ])
    #expect(offered.standardError == "")
  }

  @Test("folio model info offers model bundles")
  func modelBundles() throws {
    let folder = try CompletionFolder()
    defer { folder.remove() }
    #expect(
      try complete(["model", "info", "Exp"], in: folder).candidates == [
        "Expenses.xcdatamodeld", "Exports",
      ])
    #expect(
      try complete(["model", "info", "Expenses.xcdatamodeld/"], in: folder).candidates == [
        "Expenses.xcdatamodeld/Expenses.xcdatamodel"
      ])
  }

  @Test("folio replay offers undo scripts, and --model of a store command offers models")
  func scriptsAndModels() throws {
    let folder = try CompletionFolder()
    defer { folder.remove() }
    #expect(
      try complete(["replay", "a.undo", ""], in: folder).candidates == [
        "Expenses.undo", "Expenses.xcdatamodeld", "Exports", "Library.xcdatamodeld", "a.undo",
      ])
    #expect(
      try complete(["dump", "Expenses.xml", "--model", "L"], in: folder).candidates == [
        "Library.xcdatamodeld"
      ])
  }

  @Test("folio query STORE offers the store's entities")
  func queryEntities() throws {
    let folder = try CompletionFolder()
    defer { folder.remove() }
    let offered = try complete(["query", "Expenses.xml", ""], in: folder)
    #expect(offered.candidates == ["Person", "Spending"])
    #expect(offered.standardError == "")
    #expect(try complete(["query", "Expenses.xml", "Sp"], in: folder).candidates == ["Spending"])
    #expect(
      try complete(["query", "--format", "csv", "Expenses.xml", ""], in: folder).candidates == [
        "Person", "Spending",
      ])
    #expect(
      try complete(["query", "My\\ Expenses.xml", ""], in: folder).candidates == [
        "Person", "Spending",
      ])
    #expect(
      try complete(["query", "'My Expenses.xml'", "P"], in: folder).candidates == ["Person"])
    #expect(
      try complete(
        ["query", "Expenses.xml", "--model", "Expenses.xcdatamodeld/", ""], in: folder
      ).candidates == ["Person", "Spending"])
  }

  @Test("folio delete and update offer the store's entities after --entity")
  func batchEntities() throws {
    let folder = try CompletionFolder()
    defer { folder.remove() }
    #expect(
      try complete(["delete", "Expenses.xml", "--entity", ""], in: folder).candidates == [
        "Person", "Spending",
      ])
    #expect(
      try complete(
        ["update", "--where", "amount > 1", "Expenses.xml", "--entity", "S"], in: folder
      ).candidates == ["Spending"])
  }

  @Test("a document on a server that never answers completes nothing, in seconds")
  func silentServer() throws {
    let folder = try CompletionFolder()
    defer { folder.remove() }
    // A socket that listens and never accepts: the kernel takes the connection, and libpq then
    // waits for an answer that never comes.
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(listener >= 0)
    defer { close(listener) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        bind(listener, address, length) == 0 && listen(listener, 16) == 0
          && getsockname(listener, address, &length) == 0
      }
    }
    try #require(bound)
    let url = "postgresql://folio@127.0.0.1:\(UInt16(bigEndian: address.sin_port))/folio"
    for words in [["query", url, ""], ["delete", url, "--entity", ""]] {
      let offered = try complete(words, in: folder, within: 30)
      #expect(offered.candidates == [], "\(words)")
      #expect(offered.standardError == "", "\(words)")
    }
  }

  @Test("a store that cannot be read completes nothing, silently")
  func unreadableStore() throws {
    let folder = try CompletionFolder()
    defer { folder.remove() }
    for store in ["Missing.xml", "Expenses.sqlite", "Expenses.txt"] {
      let offered = try complete(["query", store, ""], in: folder)
      #expect(offered.candidates == [], "\(store)")
      #expect(offered.standardError == "", "\(store)")
    }
  }

  @Test("option values complete: formats, entities, versions, metadata keys, folders")
  func optionValues() throws {
    let folder = try CompletionFolder()
    defer { folder.remove() }
    #expect(
      try complete(["query", "Expenses.xml", "Person", "--format", ""], in: folder)
        .candidates == ["csv", "json", "jsonl", "table", "text", "tsv"])
    #expect(
      try complete(["codegen", "Expenses.xcdatamodeld", "--entity", ""], in: folder)
        .candidates == ["Person", "Spending"])
    #expect(
      try complete(["codegen", "Expenses.xcdatamodeld", "--output", "E"], in: folder)
        .candidates == ["Expenses.xcdatamodeld", "Exports"])
    #expect(
      try complete(
        ["migrate", "Expenses.xml", "--model", "Library.xcdatamodeld/", "--to", ""], in: folder
      ).candidates == ["Library 1", "Library 2", "Library 3"])
    let set = try run(
      folio, ["metadata", "Expenses.xml", "--set", "author=Ada", "--set", "draft=yes"],
      in: folder.url)
    #expect(set.status == 0)
    #expect(
      try complete(["metadata", "Expenses.xml", "--remove", ""], in: folder).candidates == [
        "author", "draft",
      ])
  }
}

/// Every value `folio` takes says what completes it, so that no argument falls back to
/// completing nothing (bash) or whatever the shell guesses.
@Suite("completion kinds")
struct CompletionKindTests {
  @Test("every argument and option names its completion")
  func everyValueHasACompletion() throws {
    let dump = try run(folio, ["--experimental-dump-help"])
    #expect(dump.status == 0)
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
    var missing: [String] = []
    func visit(_ command: [String: Any], path: String) {
      for argument in command["arguments"] as? [[String: Any]] ?? [] {
        let kind = argument["kind"] as? String
        guard kind == "positional" || kind == "option" else { continue }
        // `folio help SUBCOMMAND`, argument-parser's own.
        guard path != "folio help" else { continue }
        if argument["completionKind"] == nil {
          missing.append("\(path) \(argument["valueName"] as? String ?? "?")")
        }
      }
      for subcommand in command["subcommands"] as? [[String: Any]] ?? [] {
        visit(subcommand, path: "\(path) \(subcommand["commandName"] as? String ?? "?")")
      }
    }
    visit(try #require(json["command"] as? [String: Any]), path: "folio")
    #expect(missing == [])
  }
}

/// fish and zsh, where installed: the scripts load, and fish completes as bash does.
@Suite("fish and zsh completion")
struct OtherShellCompletionTests {
  @Test("fish completes stores and entities", .enabled(if: fish != nil, "fish is not installed"))
  func fishCompletes() throws {
    let folder = try CompletionFolder()
    defer { folder.remove() }
    let generated = try run(folio, ["--generate-completion-script", "fish"])
    let script = folder.url.appendingPathComponent("folio.fish")
    try Data(generated.standardOutput.utf8).write(to: script)
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let result = try run(
      try #require(fish),
      [
        "--no-config", "-c",
        "source \(script.path); complete -C 'folio info Exp'; echo --; "
          + "complete -C 'folio query Expenses.xml '",
      ], in: folder.url, environment: ["PATH": "\(productsDirectory.path):\(path)"])
    #expect(result.status == 0, "\(result.standardError)")
    let parts = result.standardOutput.components(separatedBy: "--\n")
    try #require(parts.count == 2)
    // fish prints a candidate, then a tab and its description.
    let names = parts.map { part in
      Set(part.split(separator: "\n").map { String($0.split(separator: "\t")[0]) })
    }
    #expect(names[0].isSuperset(of: ["Expenses.xml", "Expenses.sqlite", "Expenses.folio"]))
    #expect(!names[0].contains("Expenses.txt"))
    #expect(names[1] == ["Person", "Spending"])
  }

  @Test("zsh reads its script", .enabled(if: zsh != nil, "zsh is not installed"))
  func zshParses() throws {
    let folder = try CompletionFolder()
    defer { folder.remove() }
    let generated = try run(folio, ["--generate-completion-script", "zsh"])
    let script = folder.url.appendingPathComponent("_folio")
    try Data(generated.standardOutput.utf8).write(to: script)
    let result = try run(try #require(zsh), ["-f", "-n", script.path])
    #expect(result.status == 0, "\(result.standardError)")
  }
}
