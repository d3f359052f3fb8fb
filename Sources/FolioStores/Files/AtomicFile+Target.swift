import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension AtomicFile {
  /// The most symbolic links followed from one path, as Linux's own limit (`MAXSYMLINKS`).
  package static let maximumLinks = 40

  /// The file an atomic write replaces: the file at the end of the path's symbolic links.
  ///
  /// A rename replaces what the name it is given names, so renaming a new file over a link
  /// would replace the link and leave the file it names as it was. The write therefore follows
  /// the links first, as the system does when it opens a path: a link's content is a path
  /// of its own, read from the link's folder when relative, and may be another link. Only the
  /// last component needs following: links among the folders above it are crossed by the
  /// system in every step, and a rename within one folder is the same rename whatever path
  /// reaches the folder.
  package struct Target {
    /// The folder of the file, where its temporary files go and whose `fsync` makes its
    /// rename durable; made canonical (`realpath`) once a link has been followed.
    var folder: String
    /// The file's name in ``folder``.
    var name: String

    /// The file's path.
    var path: String { Self.path(name, in: folder) }

    /// Follows the symbolic links of `path` to the file at their end, which need not exist.
    ///
    /// - Throws: `StoreError.writeFailed` at `path` if a link cannot be read, or if the links
    ///   go round or run longer than ``AtomicFile/maximumLinks``.
    init(resolving path: String) throws(StoreError) {
      var current = path
      var linksFollowed = 0
      var status = stat()
      while lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
        guard linksFollowed < AtomicFile.maximumLinks else {
          throw AtomicFile.failure("follow the file's symbolic links", ELOOP, at: path)
        }
        guard let destination = Self.destination(ofLink: current) else {
          throw AtomicFile.failure("read the symbolic link \"\(current)\"", errno, at: path)
        }
        linksFollowed += 1
        current =
          destination.hasPrefix("/")
          ? destination : Self.path(destination, in: Self.split(current).folder)
      }
      (folder, name) = Self.split(current)
      if linksFollowed > 0, let canonical = realpath(folder, nil) {
        folder = String(cString: canonical)
        free(canonical)
      }
    }

    /// The path of a new temporary file for this file.
    func temporaryPath(_ identifier: UUID) -> String {
      Self.path(".\(name).folio-\(identifier.uuidString).tmp", in: folder)
    }

    /// Whether `entry`, a name in ``folder``, is one a temporary file of this file gets:
    /// `.NAME.folio-UUID.tmp` with this NAME and a UUID as ``temporaryPath(_:)`` writes it.
    func isTemporaryName(_ entry: [UInt8]) -> Bool {
      let prefix = Array(".\(name).folio-".utf8)
      let suffix = Array(".tmp".utf8)
      let identifierLength = 36
      guard entry.count == prefix.count + identifierLength + suffix.count,
        entry.starts(with: prefix), entry.suffix(suffix.count).elementsEqual(suffix)
      else { return false }
      let identifier = String(
        decoding: entry[prefix.count..<prefix.count + identifierLength], as: UTF8.self)
      return UUID(uuidString: identifier)?.uuidString == identifier
    }

    /// The path of `name` in the file's folder.
    func siblingPath(_ name: String) -> String { Self.path(name, in: folder) }

    private static func path(_ name: String, in folder: String) -> String {
      folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The folder and name of `path`; a name without a folder is in the current folder.
    private static func split(_ path: String) -> (folder: String, name: String) {
      guard let slash = path.lastIndex(of: "/") else { return (".", path) }
      let folder = path[..<slash]
      return (folder.isEmpty ? "/" : String(folder), String(path[path.index(after: slash)...]))
    }

    /// What the symbolic link at `path` holds, or `nil` with `errno` set.
    private static func destination(ofLink path: String) -> String? {
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(path, &buffer, buffer.count)
      guard count >= 0 else { return nil }
      return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
  }
}
