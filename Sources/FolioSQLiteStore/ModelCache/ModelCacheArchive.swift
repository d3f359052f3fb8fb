import FolioModel
import FolioStores
import Foundation

/// The keyed archive a model cache is, counting what its reader takes from it.
///
/// ``ModelCacheReader`` walks the archived model a level or two deep (the entities, each
/// one's properties, a constraint's names) and never follows a reference past the object it
/// needs, so chains and cycles of references cost it nothing. But an archive names each
/// object once and refers to it by number, and the reader reads an object again at each
/// reference to it: an entity listed a thousand times, whose constraints list one list a
/// thousand times, which lists a name a thousand times, is a billion names from 28 KB, and a
/// long name that every property refers to is read, checked and kept once per property.
///
/// So every value the reader takes counts one, and every byte of text it takes one more; an
/// archive that expands past ``SQLiteModelCache/maximumValuesPerByte`` values per byte of it
/// is refused with `.limitExceeded`, naming the object at which it passed. The corpus's
/// caches read at 0.06 to 0.45 values per byte. The limit leaves room for what a real cache
/// may read more than once: a subentity lists each inherited property again, under its name,
/// so a long name inherited by many subentities counts once for each.
final class ModelCacheArchive {
  typealias Instance = KeyedArchive<StoreError>.Instance

  private let archive: KeyedArchive<StoreError>
  private let file: String?
  /// How many values the archive may expand to.
  let maximumValues: Int
  /// How many values the reader has taken so far, a value taken again counting again.
  private(set) var valuesRead = 0

  /// The archive `node`, a decoded property list of `byteCount` bytes, holds.
  ///
  /// - Throws: `StoreError.malformedStore` when `node` is not a keyed archive.
  init(_ node: PropertyListNode, byteCount: Int, file: String?) throws(StoreError) {
    archive = try KeyedArchive(node) { SQLiteModelCache.malformed($0, file: file) }
    self.file = file
    maximumValues = SQLiteModelCache.maximumValuesPerByte * max(byteCount, 1)
  }

  /// A reference to the root object.
  var rootReference: PropertyListNode { archive.rootReference }

  /// Adds `values` to what the reader has taken, refusing the archive past ``maximumValues``.
  private func counting(_ values: Int, at value: PropertyListNode?) throws(StoreError) {
    valuesRead += values
    guard valuesRead <= maximumValues else {
      let place =
        value.flatMap(KeyedArchive<StoreError>.referenceNumber).map { "object \($0)" }
        ?? "a value held inline"
      throw StoreError(
        .limitExceeded,
        "the model cache expands to more than \(maximumValues) values (a value read or a byte"
          + " of its text each) at \(place): it refers to the same objects from too many places",
        at: InputLocation(file: file))
    }
  }

  // MARK: The archive's reads, counted

  /// ``KeyedArchive/resolve(_:)``.
  func resolve(_ value: PropertyListNode?) throws(StoreError) -> PropertyListNode? {
    let node = try archive.resolve(value)
    switch node {
    case .string(let text)?: try counting(1 + text.utf8.count, at: value)
    case .data(let bytes)?: try counting(1 + bytes.count, at: value)
    default: try counting(1, at: value)
    }
    return node
  }

  /// ``KeyedArchive/instance(_:for:)``.
  func instance(_ value: PropertyListNode?, for what: String? = nil) throws(StoreError)
    -> Instance?
  {
    try counting(1, at: value)
    return try archive.instance(value, for: what)
  }

  /// ``KeyedArchive/instance(_:of:for:)``.
  func instance(_ value: PropertyListNode?, of className: String, for what: String)
    throws(StoreError) -> Instance?
  {
    try counting(1, at: value)
    return try archive.instance(value, of: className, for: what)
  }

  /// ``KeyedArchive/string(_:for:)``.
  func string(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(StoreError) -> String?
  {
    let text = try archive.string(value, for: what())
    try counting(1 + (text?.utf8.count ?? 0), at: value)
    return text
  }

  /// ``KeyedArchive/integer(_:for:)``.
  func integer(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(StoreError) -> Int64?
  {
    try counting(1, at: value)
    return try archive.integer(value, for: what())
  }

  /// ``KeyedArchive/flag(_:for:)``.
  func flag(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(StoreError) -> Bool
  {
    try counting(1, at: value)
    return try archive.flag(value, for: what())
  }

  /// ``KeyedArchive/elements(_:for:)``: each element listed counts.
  func elements(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(StoreError) -> [PropertyListNode]
  {
    let elements = try archive.elements(value, for: what())
    try counting(1 + elements.count, at: value)
    return elements
  }

  /// ``KeyedArchive/entries(_:for:)``: each entry listed counts.
  func entries(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(StoreError) -> [(key: PropertyListNode, value: PropertyListNode)]
  {
    let entries = try archive.entries(value, for: what())
    try counting(1 + entries.count, at: value)
    return entries
  }
}
