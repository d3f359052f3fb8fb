import FolioModel
import FolioStores
import Foundation

/// An NSKeyedArchiver archive, read from a decoded binary property list.
///
/// The archive is a dictionary: `$archiver` (`NSKeyedArchiver`), `$version`, `$top` (whose
/// `root` refers to the archived root object) and `$objects`, the flat list of every object.
/// Object 0 is the string `$null` and a reference to it means nil. An archived instance is a
/// dictionary of its keys plus `$class`, which refers to a dictionary naming the class in
/// `$classname`. Keys hold small values (integers, booleans, reals) inline and everything else
/// as references: UIDs, or from some archivers dictionaries `{"CF$UID": n}`.
///
/// The archive only ever resolves one reference at a time — it never follows references
/// recursively — so the references between entities, properties and the model, which form
/// cycles, cost nothing and cannot loop.
struct KeyedArchive {
  /// An archived instance: its class and its keys.
  struct Instance {
    var className: String
    var fields: [String: PropertyListNode]

    subscript(key: String) -> PropertyListNode? { fields[key] }
  }

  let objects: [PropertyListNode]
  /// The number of the root object in `$objects`.
  let root: Int
  private let file: String?

  /// The archive that `node`, a decoded property list, holds.
  ///
  /// - Throws: `StoreError.malformedStore` when `node` is not an NSKeyedArchiver archive.
  init(_ node: PropertyListNode, file: String?) throws(StoreError) {
    self.file = file
    guard case .dictionary(let top) = node else {
      throw SQLiteModelCache.malformed(
        "is not a keyed archive: its top object is no dictionary", file: file)
    }
    guard case .string(let archiver) = top["$archiver"], archiver == "NSKeyedArchiver" else {
      throw SQLiteModelCache.malformed(
        "is not a keyed archive: it has no \"$archiver\" of \"NSKeyedArchiver\"", file: file)
    }
    guard case .array(let objects) = top["$objects"] else {
      throw SQLiteModelCache.malformed(
        "is not a keyed archive: it has no \"$objects\" array", file: file)
    }
    self.objects = objects
    guard case .dictionary(let entries) = top["$top"], let rootValue = entries["root"],
      let root = Self.referenceNumber(rootValue)
    else {
      throw SQLiteModelCache.malformed(
        "is not a keyed archive of one root object: it has no \"$top\" with a \"root\"",
        file: file)
    }
    guard root < UInt64(objects.count) else {
      throw SQLiteModelCache.malformed(
        "has its root at object \(root), but only \(objects.count) objects", file: file)
    }
    self.root = Int(root)
  }

  /// The object number `node` refers to, if it is a reference: a UID, or `{"CF$UID": n}`.
  static func referenceNumber(_ node: PropertyListNode) -> UInt64? {
    switch node {
    case .uid(let number):
      return number
    case .dictionary(let entries) where entries.count == 1:
      guard case .integer(let number) = entries["CF$UID"], number >= 0 else { return nil }
      return UInt64(number)
    default:
      return nil
    }
  }

  /// What `value` stands for: the object it refers to, or itself when it is held inline;
  /// `nil` for a missing key or a reference to `$null`.
  func resolve(_ value: PropertyListNode?) throws(StoreError) -> PropertyListNode? {
    guard let value else { return nil }
    guard let number = Self.referenceNumber(value) else { return value }
    guard number < UInt64(objects.count) else {
      throw SQLiteModelCache.malformed(
        "refers to object \(number), but the archive has only \(objects.count) objects",
        file: file)
    }
    return number == 0 ? nil : objects[Int(number)]
  }

  /// The archived instance `value` refers to; `nil` for `$null`.
  ///
  /// - Throws: when `value` refers to something other than an archived instance.
  func instance(_ value: PropertyListNode?) throws(StoreError) -> Instance? {
    guard let value, let node = try resolve(value) else { return nil }
    let place = Self.referenceNumber(value).map { "object \($0)" } ?? "an inline value"
    guard case .dictionary(let fields) = node, let classValue = fields["$class"] else {
      throw SQLiteModelCache.malformed(
        "has \(place) where an archived instance must be, but it is \(node.kindDescription)",
        file: file)
    }
    guard case .dictionary(let classInfo)? = try resolve(classValue),
      case .string(let className) = classInfo["$classname"]
    else {
      throw SQLiteModelCache.malformed(
        "has \(place) whose \"$class\" does not name a class", file: file)
    }
    return Instance(className: className, fields: fields)
  }

  /// The archived instance `value` refers to, which must be of class `className`.
  func instance(_ value: PropertyListNode?, of className: String, for what: String)
    throws(StoreError) -> Instance?
  {
    guard let instance = try instance(value) else { return nil }
    guard instance.className == className else {
      throw SQLiteModelCache.malformed(
        "has \(what) of class \"\(instance.className)\", not \(className)", file: file)
    }
    return instance
  }

  // MARK: Values

  /// The string `value` stands for: a string object, or an NSString or NSMutableString.
  func string(_ value: PropertyListNode?, for what: @autoclosure () -> String) throws(StoreError)
    -> String?
  {
    guard let node = try resolve(value) else { return nil }
    if case .string(let text) = node { return text }
    if case .dictionary(let fields) = node, fields["$class"] != nil {
      guard let instance = try instance(value) else { return nil }
      if case .string(let text)? = try resolve(instance["NS.string"]) { return text }
      if case .data(let bytes)? = try resolve(instance["NS.bytes"]),
        let text = String(data: bytes, encoding: .utf8)
      {
        return text
      }
    }
    throw SQLiteModelCache.malformed(
      "has \(what()) that is \(node.kindDescription), not a string", file: file)
  }

  /// The integer `value` holds inline; `nil` when absent.
  func integer(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(StoreError) -> Int64?
  {
    switch try resolve(value) {
    case nil: return nil
    case .integer(let number)?: return number
    case .boolean(let flag)?: return flag ? 1 : 0
    case let node?:
      throw SQLiteModelCache.malformed(
        "has \(what()) that is \(node.kindDescription), not an integer", file: file)
    }
  }

  /// The flag `value` holds inline; `false` when absent, as Core Data archives a flag only
  /// when it is set.
  func flag(_ value: PropertyListNode?, for what: @autoclosure () -> String) throws(StoreError)
    -> Bool
  {
    switch try resolve(value) {
    case nil: return false
    case .boolean(let flag)?: return flag
    case .integer(let number)?: return number != 0
    case let node?:
      throw SQLiteModelCache.malformed(
        "has \(what()) that is \(node.kindDescription), not a flag", file: file)
    }
  }

  /// The elements of the collection `value` refers to (an NSArray, NSSet or their mutable
  /// kinds, or an inline array), unresolved; empty for `$null`.
  func elements(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(StoreError) -> [PropertyListNode]
  {
    guard let node = try resolve(value) else { return [] }
    switch node {
    case .array(let elements), .set(let elements):
      return elements
    case .dictionary(let fields) where fields["$class"] != nil:
      guard let instance = try instance(value) else { return [] }
      guard case .array(let elements)? = instance["NS.objects"] else {
        throw SQLiteModelCache.malformed(
          "has \(what()) of class \"\(instance.className)\" with no \"NS.objects\" array",
          file: file)
      }
      return elements
    default:
      throw SQLiteModelCache.malformed(
        "has \(what()) that is \(node.kindDescription), not a collection", file: file)
    }
  }

  /// The keys and values, unresolved, of the NSDictionary or NSMutableDictionary `value`
  /// refers to; empty for `$null`.
  func entries(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(StoreError) -> [(key: PropertyListNode, value: PropertyListNode)]
  {
    guard let instance = try instance(value) else { return [] }
    guard case .array(let keys)? = instance["NS.keys"],
      case .array(let values)? = instance["NS.objects"], keys.count == values.count
    else {
      throw SQLiteModelCache.malformed(
        "has \(what()) of class \"\(instance.className)\" without \"NS.keys\" and"
          + " \"NS.objects\" arrays of one length", file: file)
    }
    return Array(zip(keys, values)).map { (key: $0.0, value: $0.1) }
  }

}
