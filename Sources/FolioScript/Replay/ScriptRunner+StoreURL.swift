import Folio
import Foundation

/// The stores `open` and `save` name: a file's path, or the URL of a document on a server.
///
/// An argument that starts `SCHEME://` (`postgresql://me@db/app?schema=doc`) is a URL, used as
/// it is, never resolved against the script's folder; which format reads it is the runner's
/// formats' choice, by the scheme (``PersistentStoreCoordinator/format(of:among:)``), so the
/// language names no server's format. Anything else is a path, relative to the script's
/// folder.
extension ScriptRunner {
  /// The URL of the store `argument` names.
  ///
  /// - Throws: `ScriptError.Code.store` for an argument that starts as a URL and does not
  ///   parse as one.
  func storeURL(_ argument: String, at here: InputLocation) throws(ScriptError) -> URL {
    guard Self.looksLikeURL(argument) else {
      return URL(fileURLWithPath: script?.resolve(argument) ?? argument)
    }
    guard let url = URL(string: argument), url.scheme != nil else {
      throw ScriptError.unparsableURL(at: here)
    }
    return url
  }

  /// Whether `argument` starts with a URL's scheme and `://`; `file://` is a path's.
  static func looksLikeURL(_ argument: String) -> Bool {
    guard let separator = argument.range(of: "://") else { return false }
    let scheme = argument[..<separator.lowerBound]
    return scheme.wholeMatch(of: /[A-Za-z][A-Za-z0-9+.\-]*/) != nil
      && scheme.lowercased() != "file"
  }
}
