import ArgumentParser
import Folio
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What the shells complete for each kind of value `folio` takes.
///
/// Paths complete by extension. The shells always offer directories beside the files that match
/// (bash's `-o plusdirs`, zsh's `_files -g`, fish's directory completion), so a path can be
/// walked folder by folder, and the bundles — `.xcdatamodeld`, `.xcdatamodel` and
/// `.xcmappingmodel` are folders — complete as folders whose names end in their extension.
///
/// Names that live inside a file (a store's entities, a bundle's versions, a store's metadata
/// keys) complete by running `folio` again: the completion script calls it with the words typed
/// so far, and the closure here parses those words with the command's own parser, opens the file
/// they name and prints the names. It prints nothing at all when it cannot: a completion must
/// never write an error over the user's command line.
enum Completions {
  /// The extensions stores go by: Core Data's SQLite stores (apps name them `.sqlite`, `.store`
  /// or `.db`), XML stores and Folio's binary stores. Stores are recognised by their content, so
  /// this only chooses what the shell offers.
  static let storeExtensions = ["sqlite", "store", "db", "xml", "folio"]

  /// A store file.
  static let store = CompletionKind.file(extensions: storeExtensions)

  /// A store `convert` writes: the extension chooses the format.
  static let writableStore = CompletionKind.file(
    extensions: FormatRegistry.fileFormats().map(\.fileExtension))

  /// A store `metadata` reads and writes.
  static let metadataStore = CompletionKind.file(extensions: ["xml", "folio"])

  /// A model: an `.xcdatamodeld` bundle or one `.xcdatamodel` version folder.
  static let model = CompletionKind.file(extensions: ["xcdatamodeld", "xcdatamodel"])

  /// An `.xcdatamodeld` bundle, with every version of a model.
  static let modelBundle = CompletionKind.file(extensions: ["xcdatamodeld"])

  /// An Xcode mapping model.
  static let mappingModel = CompletionKind.file(extensions: ["xcmappingmodel"])

  /// An undo script.
  static let undoScript = CompletionKind.file(extensions: ["undo"])

  /// A report `replay` writes.
  static let xmlReport = CompletionKind.file(extensions: ["xml"])

  /// A value the user writes (a predicate, a number, KEY=VALUE): nothing to offer, rather than
  /// the file names a shell falls back to.
  static let typed = CompletionKind.list([])

  /// The entities of the store the `query` command line names, or of its `--model`.
  static let queryEntity = CompletionKind.custom { words, index, _ in
    quietly {
      let command = try parsed(QueryCommand.self, words: words, before: index, adding: ["_"])
      let url = try storeURL(command.store.file)
      let format = try PersistentStoreCoordinator.format(of: url, among: command.store.formats)
      return try command.store.loadModelAndVersion(for: url, format: format).model.entities.map(
        \.name
      )
      .sorted()
    }
  }

  /// The entities of the store the `delete` or `update` command line names, or of its
  /// `--model`.
  static let batchEntity = CompletionKind.custom { words, index, _ in
    quietly {
      guard let start = words.firstIndex(where: { $0 == "delete" || $0 == "update" }),
        start < index
      else { return [] }
      let own = words[(start + 1)..<min(index, words.count)].map(unquoted)
      let takesValue: Set<String> = ["--entity", "--where", "--set", "--model", "--format"]
      var file: String?
      var model: String?
      var position = 0
      while position < own.count {
        let word = own[position]
        if takesValue.contains(word) {
          if word == "--model", position + 1 < own.count { model = own[position + 1] }
          position += 2
          continue
        }
        if !word.hasPrefix("-"), file == nil { file = word }
        position += 1
      }
      guard let file else { return [] }
      let options = try StoreOptions.parse([file] + (model.map { ["--model", $0] } ?? []))
      let url = try storeURL(file)
      let format = try PersistentStoreCoordinator.format(of: url, among: options.formats)
      return try options.loadModelAndVersion(for: url, format: format).model.entities.map(\.name)
        .sorted()
    }
  }

  /// The entities of the model the `codegen` command line names.
  static let codegenEntity = CompletionKind.custom { words, index, _ in
    quietly {
      let command = try parsed(
        CodegenCommand.self, words: words, before: index - 1, adding: ["--output", "_"])
      return try command.model.load().entities.map(\.name).sorted()
    }
  }

  /// The versions of the bundle the `migrate` command line names with `--model`.
  static let migrationVersion = CompletionKind.custom { words, index, _ in
    quietly {
      let command = try parsed(MigrateCommand.self, words: words, before: index - 1, adding: [])
      return try ModelBundle(contentsOf: URL(fileURLWithPath: command.model)).versions.map(\.name)
    }
  }

  /// The user metadata keys of the store the `metadata` command line names.
  static let metadataKey = CompletionKind.custom { words, index, _ in
    quietly {
      let command = try parsed(MetadataCommand.self, words: words, before: index - 1, adding: [])
      let url = try storeURL(command.file)
      let format = try PersistentStoreCoordinator.format(of: url, among: storeFormats)
      return try format.readMetadata(from: url).userInfo.keys
        .filter { !MetadataCommand.isReserved($0) }.sorted()
    }
  }

  /// The URL of the store `argument` names, for a completion to read: a server's URL asks
  /// libpq to give up connecting after two seconds unless it names its own `connect_timeout`,
  /// so a TAB on a server that does not answer comes back with nothing rather than hanging
  /// the shell.
  static func storeURL(_ argument: String) throws -> URL {
    let url = try StoreArgument.url(argument)
    guard StoreArgument.isServerURL(argument),
      var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
      !(components.queryItems ?? []).contains(where: { $0.name == "connect_timeout" })
    else { return url }
    components.queryItems =
      (components.queryItems ?? []) + [URLQueryItem(name: "connect_timeout", value: "2")]
    return components.url ?? url
  }

  /// The command `words[..<end]` type, parsed by the command's own parser, with `extra` words
  /// after them to stand in for what is still to be typed.
  ///
  /// `words` are the shell's words as typed — `folio`, the subcommand names, then the
  /// command's own — so they are unquoted first, and the subcommand names are skipped.
  static func parsed<Command: ParsableCommand>(
    _ command: Command.Type, words: [String], before end: Int, adding extra: [String]
  ) throws -> Command {
    guard let name = command.configuration.commandName,
      let start = words.firstIndex(of: name), start < end, end <= words.count
    else { throw ValidationError("the command is not on the line") }
    return try command.parse(words[(start + 1)..<end].map(unquoted) + extra)
  }

  /// A shell word as the shell passes it on: quotes and backslash escapes removed, and a
  /// leading `~/` replaced by the home folder.
  static func unquoted(_ word: String) -> String {
    var result = ""
    var quote: Character?
    var isEscaped = false
    for character in word {
      if isEscaped {
        result.append(character)
        isEscaped = false
      } else if character == "\\" && quote != "'" {
        isEscaped = true
      } else if let open = quote {
        if character == open { quote = nil } else { result.append(character) }
      } else if character == "'" || character == "\"" {
        quote = character
      } else {
        result.append(character)
      }
    }
    if result == "~" || result.hasPrefix("~/"),
      let home = ProcessInfo.processInfo.environment["HOME"]
    {
      result = home + result.dropFirst()
    }
    return result
  }

  /// `body`'s names, or none if it throws, with standard error closed so that nothing the
  /// libraries might print reaches the terminal during a completion.
  static func quietly(_ body: () throws -> [String]) -> [String] {
    let null = open("/dev/null", O_WRONLY)
    if null >= 0 {
      dup2(null, STDERR_FILENO)
      close(null)
    }
    return (try? body()) ?? []
  }
}
