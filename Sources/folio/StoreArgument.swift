import ArgumentParser
import Folio
import Foundation

/// A store as the command line names it: the URL of a document on a server
/// (`postgresql://USER@HOST:PORT/DATABASE?schema=NAME`, or `postgres://…`: a scheme of a
/// server's format in ``FormatRegistry``), or else a file's path. Every command turns its store
/// arguments into URLs here, and nowhere else.
///
/// A server's URL is checked by its format before anything connects, so a URL that carries a
/// password is refused as bad usage, and the message does not repeat it.
enum StoreArgument {
  /// Whether `argument` is the URL of a document on a server, by its scheme.
  static func isServerURL(_ argument: String) -> Bool {
    guard let separator = argument.range(of: "://") else { return false }
    return FormatRegistry.urlSchemes.contains(argument[..<separator.lowerBound].lowercased())
  }

  /// The URL of the store `argument` names: a server's URL as it is given, or a file URL of
  /// the path.
  ///
  /// - Throws: `ValidationError` (bad usage) for a server's URL that does not parse or that
  ///   its format refuses (a password in it, no database).
  static func url(_ argument: String) throws -> URL {
    guard isServerURL(argument) else { return URL(fileURLWithPath: argument) }
    // The text may hold a password: the message names the form, not the text.
    guard let url = URL(string: argument), url.scheme != nil else {
      throw ValidationError(
        "the store's URL does not parse: write it as "
          + "postgresql://USER@HOST:PORT/DATABASE?schema=NAME, special characters %-encoded")
    }
    do {
      try FormatRegistry.checkServerURL(url)
    } catch {
      throw ValidationError(error.description)
    }
    return url
  }

  /// Checks `argument` as ``url(_:)`` does, for a command's `validate()`: a bad URL is refused
  /// before anything is read.
  static func check(_ argument: String) throws {
    _ = try url(argument)
  }

  /// `url` in messages and for `open` and `save` lines: a file's path, or the server's URL as
  /// it was given.
  static func name(of url: URL) -> String {
    url.isFileURL ? url.path : url.absoluteString
  }
}
