import Foundation

/// An `.xcdatamodeld` bundle: every version of a model, and which one is current.
///
/// Xcode keeps each version in a `NAME.xcdatamodel` folder inside the bundle and names the
/// current one in the bundle's `.xccurrentversion` property list. A bundle with a single
/// version needs no `.xccurrentversion`.
public struct ModelBundle: Sendable {
  /// One version of the model.
  public struct Version: Sendable {
    /// The version's folder name without `.xcdatamodel` (`"Expenses 2"`).
    public var name: String
    /// The model.
    public var model: ManagedObjectModel

    /// A version called `name`, of `model`.
    public init(name: String, model: ManagedObjectModel) {
      self.name = name
      self.model = model
    }
  }

  /// A bundle of versions built in code, in the order a migration steps through them, whose
  /// current version is the last.
  ///
  /// - Throws: `ModelError.noCurrentVersion` when there is no version;
  ///   `.duplicateName` when two versions have one name.
  public init(versions: [Version]) throws(ModelError) {
    guard let last = versions.last else {
      throw ModelError.noCurrentVersion("the bundle holds no version", at: nil)
    }
    var names: Set<String> = []
    for version in versions where !names.insert(version.name).inserted {
      throw ModelError.duplicateName("version", version.name, at: nil)
    }
    self.versions = versions
    currentVersionName = last.name
    currentModel = last.model
  }

  /// Every version, sorted by name, numbers in names by their value (`Model 9` before
  /// `Model 10`): the order a migration steps through them.
  public let versions: [Version]
  /// The name of the current version.
  public let currentVersionName: String

  /// The current version's model.
  public let currentModel: ManagedObjectModel

  /// Loads every version of the bundle at `url`.
  ///
  /// - Throws: `ModelError` — `.fileNotFound`, `.noCurrentVersion` (no version, or
  ///   `.xccurrentversion` names one that is not there), or any error of a version's file.
  public init(contentsOf url: URL, options: ModelLoadingOptions = ModelLoadingOptions()) throws {
    let names = try Self.versionFolders(in: url)
    let current = try Self.currentVersionFolder(in: url, among: names)
    var versions: [Version] = []
    for name in names {
      let model = try ManagedObjectModel(
        contentsOf: url.appendingPathComponent(name, isDirectory: true), options: options)
      versions.append(Version(name: String(name.dropLast(".xcdatamodel".count)), model: model))
    }
    let index = names.firstIndex(of: current) ?? 0
    self.versions = versions
    self.currentVersionName = versions[index].name
    self.currentModel = versions[index].model
  }

  /// The URL of the current version's folder in the bundle at `url`, found without loading any
  /// version.
  ///
  /// - Throws: `ModelError` — `.fileNotFound`, `.noCurrentVersion`.
  static func currentVersionURL(in url: URL) throws -> URL {
    let names = try versionFolders(in: url)
    let current = try currentVersionFolder(in: url, among: names)
    return url.appendingPathComponent(current, isDirectory: true)
  }

  /// The bundle's `NAME.xcdatamodel` folders, sorted by version name.
  ///
  /// Runs of digits compare by their value, so `Moody 9` comes before `Moody 10` and
  /// `OEDatabase 0.5` before `OEDatabase 1.0`; names equal that way compare as text.
  private static func versionFolders(in url: URL) throws -> [String] {
    let path = url.relativePath
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue
    else {
      throw ModelError.fileNotFound(path)
    }
    let names: [String]
    do {
      names = try manager.contentsOfDirectory(atPath: url.path)
        .filter { $0.hasSuffix(".xcdatamodel") }
        .sorted { versionOrder(String($0.dropLast(12)), String($1.dropLast(12))) }
    } catch {
      throw ModelError.unreadable(path, reason: error.localizedDescription)
    }
    guard !names.isEmpty else {
      throw ModelError.noCurrentVersion(
        "the bundle holds no .xcdatamodel version", at: InputLocation(file: path))
    }
    return names
  }

  /// The folder `.xccurrentversion` names, checked against `names`; the only version when
  /// there is no `.xccurrentversion` and just one version.
  private static func currentVersionFolder(in url: URL, among names: [String]) throws -> String {
    guard let current = try currentVersionEntry(in: url, versionCount: names.count) else {
      return names[0]
    }
    guard names.contains(current) else {
      throw ModelError.noCurrentVersion(
        ".xccurrentversion names \"\(current)\", which is not in the bundle\(nameSuggestion(for: current, among: names))",
        at: InputLocation(file: url.appendingPathComponent(".xccurrentversion").relativePath))
    }
    return current
  }

  /// The folder `.xccurrentversion` names, or `nil` when there is no such file and the bundle
  /// has one version.
  private static func currentVersionEntry(in url: URL, versionCount: Int) throws -> String? {
    let plistURL = url.appendingPathComponent(".xccurrentversion")
    let path = plistURL.relativePath
    guard FileManager.default.fileExists(atPath: plistURL.path) else {
      guard versionCount == 1 else {
        throw ModelError.noCurrentVersion(
          "the bundle has \(versionCount) versions and no .xccurrentversion to choose one",
          at: InputLocation(file: url.relativePath))
      }
      return nil
    }
    let data = try readFile(plistURL)
    let tree = try XMLTree(data: data, path: path)
    guard let root = tree.root, root.name == "plist" else {
      throw ModelError.unexpectedRoot(
        tree.root?.name ?? "nothing", expected: "plist", at: InputLocation(file: path, line: 1))
    }
    guard let dictionary = root.children.first, dictionary.name == "dict" else {
      throw ModelError(
        .unexpectedContent, "the property list holds no <dict>", at: root.location)
    }
    let items = dictionary.children
    for (index, item) in items.enumerated()
    where item.name == "key" && item.text == "_XCCurrentVersionName" {
      guard index + 1 < items.count, items[index + 1].name == "string" else {
        throw ModelError(
          .unexpectedContent, "_XCCurrentVersionName has no <string> value", at: item.location)
      }
      let name = items[index + 1].text.trimmingCharacters(in: .whitespacesAndNewlines)
      return name.hasSuffix(".xcdatamodel") ? name : name + ".xcdatamodel"
    }
    throw ModelError.noCurrentVersion(
      "the property list has no _XCCurrentVersionName", at: dictionary.location)
  }
}

extension ManagedObjectModel {
  /// Loads a model from Xcode's files.
  ///
  /// `url` may be an `.xcdatamodeld` bundle (only its current version is read, so an old
  /// version that no longer loads does not stand in the way), an
  /// `.xcdatamodel` folder, or a bare `contents` file.
  ///
  /// - Throws: `ModelError` naming the file, line, entity and property of the first problem.
  public init(contentsOf url: URL, options: ModelLoadingOptions = ModelLoadingOptions()) throws {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw ModelError.fileNotFound(url.relativePath)
    }
    if isDirectory.boolValue {
      if url.pathExtension == "xcdatamodeld" {
        self = try ManagedObjectModel(
          contentsOf: ModelBundle.currentVersionURL(in: url), options: options)
        return
      }
      let contents = url.appendingPathComponent("contents")
      guard FileManager.default.fileExists(atPath: contents.path) else {
        throw ModelError.fileNotFound(contents.relativePath)
      }
      self = try ManagedObjectModel(contentsOf: contents, options: options)
      return
    }
    let data = try readFile(url)
    self = try XcodeModelReader.read(data, path: url.relativePath, options: options)
  }

  /// Reads a model from the text of an Xcode `contents` file; `path` names it in errors.
  ///
  /// - Throws: `ModelError`, as ``init(contentsOf:options:)``.
  public init(
    xcodeModelData data: Data, path: String = "contents",
    options: ModelLoadingOptions = ModelLoadingOptions()
  ) throws {
    self = try XcodeModelReader.read(data, path: path, options: options)
  }
}

private func readFile(_ url: URL) throws -> Data {
  do {
    return try Data(contentsOfFile: url)
  } catch {
    throw ModelError.unreadable(url.relativePath, reason: error.localizedDescription)
  }
}

extension ModelBundle {
  /// The version that wrote a store whose metadata records entity version hashes `hashes`
  /// (`NSStoreModelVersionHashes`) and version identifiers `identifiers`
  /// (`NSStoreModelVersionIdentifiers`), found as Core Data finds it: the version whose
  /// entity hashes are exactly those. Hashes Folio computed before they were Core Data's
  /// match too. Of several matching versions (two versions with the same schema), the one the
  /// identifiers name, then the current one, then the first by name; `nil` when none matches.
  ///
  /// - Complexity: O(*v* · *e*) in the versions and their entities.
  public func version(matchingVersionHashes hashes: [String: Data], identifiers: [String] = [])
    -> Version?
  {
    guard !hashes.isEmpty else { return nil }
    let matching = versions.filter {
      $0.model.entityVersionHashesByName == hashes || $0.model.legacyEntityVersionHashes == hashes
    }
    let named = matching.first { version in
      version.model.versionIdentifier.map { identifiers.contains($0) } ?? false
    }
    return named ?? matching.first { $0.name == currentVersionName } ?? matching.first
  }
}

extension ModelBundle {
  /// The position in ``versions`` of the version named `name`: its folder's name without
  /// `.xcdatamodel` (`"Moody 3"`), with it, or its version identifier.
  public func versionIndex(named name: String) -> Int? {
    let bare = name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
    if let index = versions.firstIndex(where: { $0.name == bare }) { return index }
    return versions.firstIndex { $0.model.versionIdentifier == name }
  }
}

/// Whether version name `a` comes before `b`: runs of digits compared by value, the rest by
/// character, then the whole names as text.
func versionOrder(_ a: String, _ b: String) -> Bool {
  var left = Array(a.unicodeScalars)[...]
  var right = Array(b.unicodeScalars)[...]
  func number(_ scalars: inout ArraySlice<Unicode.Scalar>) -> [Unicode.Scalar] {
    let digits = scalars.prefix { ("0"..."9").contains($0) }
    scalars = scalars.dropFirst(digits.count)
    return Array(digits.drop { $0 == "0" })
  }
  while let x = left.first, let y = right.first {
    if ("0"..."9").contains(x), ("0"..."9").contains(y) {
      let m = number(&left)
      let n = number(&right)
      if m.count != n.count { return m.count < n.count }
      if m != n { return m.lexicographicallyPrecedes(n, by: { $0.value < $1.value }) }
      continue
    }
    if x != y { return x.value < y.value }
    left = left.dropFirst()
    right = right.dropFirst()
  }
  if left.isEmpty != right.isEmpty { return left.isEmpty }
  return a < b
}
