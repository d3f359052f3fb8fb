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
/// The archive resolves one reference at a time and never follows references recursively, so
/// objects that refer to each other in cycles cost nothing and cannot loop; a reader that walks
/// the objects limits its own depth.
///
/// Every problem is reported through `failure`, with text that completes a sentence naming the
/// archive: "the model cache" + " refers to object 9, but the archive has only 3 objects". Each
/// reader words its own error type and place around that text.
package struct KeyedArchive<Failure: Error> {
  /// An archived instance: its class and its keys.
  package struct Instance {
    package var className: String
    package var fields: [String: PropertyListNode]

    package subscript(key: String) -> PropertyListNode? { fields[key] }
  }

  package let objects: [PropertyListNode]
  /// The number of the root object in `$objects`.
  package let root: Int
  private let failure: (String) -> Failure

  /// The archive that `node`, a decoded property list, holds.
  ///
  /// - Throws: `failure(…)` when `node` is not an NSKeyedArchiver archive of one root object.
  package init(_ node: PropertyListNode, failure: @escaping (String) -> Failure) throws(Failure) {
    self.failure = failure
    guard case .dictionary(let top) = node else {
      throw failure("is not a keyed archive: its top object is no dictionary")
    }
    guard case .string("NSKeyedArchiver") = top["$archiver"] else {
      throw failure("is not a keyed archive: it has no \"$archiver\" of \"NSKeyedArchiver\"")
    }
    guard case .array(let objects) = top["$objects"] else {
      throw failure("is not a keyed archive: it has no \"$objects\" array")
    }
    self.objects = objects
    guard case .dictionary(let entries) = top["$top"], let rootValue = entries["root"],
      let root = Self.referenceNumber(rootValue)
    else {
      throw failure("is not a keyed archive of one root object: it has no \"$top\" with a \"root\"")
    }
    guard root < UInt64(objects.count) else {
      throw failure("has its root at object \(root), but \(Self.count(objects.count))")
    }
    self.root = Int(root)
  }

  /// A reference to the root object, to resolve as any other.
  package var rootReference: PropertyListNode { .uid(UInt64(root)) }

  /// The object number `node` refers to, if it is a reference: a UID, or `{"CF$UID": n}`.
  package static func referenceNumber(_ node: PropertyListNode) -> UInt64? {
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

  private static func count(_ objects: Int) -> String {
    "the archive has only " + (objects == 1 ? "1 object" : "\(objects) objects")
  }

  /// What `value` stands for: the object it refers to, or itself when it is held inline;
  /// `nil` for a missing key or a reference to `$null`.
  package func resolve(_ value: PropertyListNode?) throws(Failure) -> PropertyListNode? {
    guard let value else { return nil }
    guard let number = Self.referenceNumber(value) else { return value }
    guard number < UInt64(objects.count) else {
      throw failure("refers to object \(number), but \(Self.count(objects.count))")
    }
    return number == 0 ? nil : objects[Int(number)]
  }

  /// Whether `value` stands for an archived instance (a dictionary with a `$class`).
  package func isInstance(_ value: PropertyListNode?) throws(Failure) -> Bool {
    guard case .dictionary(let fields)? = try resolve(value) else { return false }
    return fields["$class"] != nil
  }

  /// The archived instance `value` refers to; `nil` for `$null` and a missing key.
  ///
  /// - Parameter what: names the value in a message ("an expression"); by default its place
  ///   ("object 12").
  /// - Throws: when `value` stands for something other than an archived instance.
  package func instance(_ value: PropertyListNode?, for what: String? = nil) throws(Failure)
    -> Instance?
  {
    guard let value, let node = try resolve(value) else { return nil }
    let what =
      what ?? Self.referenceNumber(value).map { "object \($0)" } ?? "an inline value"
    guard case .dictionary(let fields) = node, let classValue = fields["$class"] else {
      throw failure("has \(what) that is \(node.kindDescription), not an archived object")
    }
    guard case .dictionary(let classInfo)? = try resolve(classValue),
      case .string(let className) = classInfo["$classname"]
    else {
      throw failure("has \(what) whose \"$class\" names no class")
    }
    return Instance(className: className, fields: fields)
  }

  /// The archived instance `value` refers to, which must be of class `className`.
  package func instance(_ value: PropertyListNode?, of className: String, for what: String)
    throws(Failure) -> Instance?
  {
    guard let instance = try instance(value, for: what) else { return nil }
    guard instance.className == className else {
      throw failure("has \(what) of class \"\(instance.className)\", not \(className)")
    }
    return instance
  }

  // MARK: Values

  /// The string `value` stands for: a string object, or an NSString or NSMutableString;
  /// `nil` for `$null` and a missing key.
  package func string(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(Failure) -> String?
  {
    guard let node = try resolve(value) else { return nil }
    if case .string(let text) = node { return text }
    if let text = try stringObject(value, for: what()) { return text }
    throw failure("has \(what()) that is \(node.kindDescription), not a string")
  }

  /// The text of the NSString or NSMutableString `value` refers to, or `nil` when it stands
  /// for anything else.
  package func stringObject(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(Failure) -> String?
  {
    guard try isInstance(value), let object = try instance(value, for: what()) else {
      return nil
    }
    if case .string(let text)? = try resolve(object["NS.string"]) { return text }
    if case .data(let bytes)? = try resolve(object["NS.bytes"]),
      let text = String(data: bytes, encoding: .utf8)
    {
      return text
    }
    guard object.className == "NSString" || object.className == "NSMutableString" else {
      return nil
    }
    throw failure("has \(what()) of class \"\(object.className)\" with no text")
  }

  /// The integer `value` holds inline; `nil` when absent.
  package func integer(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(Failure) -> Int64?
  {
    switch try resolve(value) {
    case nil: return nil
    case .integer(let number)?: return number
    case .boolean(let flag)?: return flag ? 1 : 0
    case let node?:
      throw failure("has \(what()) that is \(node.kindDescription), not an integer")
    }
  }

  /// The flag `value` holds inline; `false` when absent, as archivers write a flag only when
  /// it is set.
  package func flag(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(Failure) -> Bool
  {
    switch try resolve(value) {
    case nil: return false
    case .boolean(let flag)?: return flag
    case .integer(let number)?: return number != 0
    case let node?:
      throw failure("has \(what()) that is \(node.kindDescription), not a flag")
    }
  }

  /// The elements of the collection `value` refers to (an NSArray, NSSet or their mutable
  /// kinds, or an inline array), unresolved; empty for `$null`.
  package func elements(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(Failure) -> [PropertyListNode]
  {
    guard let node = try resolve(value) else { return [] }
    switch node {
    case .array(let elements), .set(let elements):
      return elements
    case .dictionary(let fields) where fields["$class"] != nil:
      guard let instance = try instance(value, for: what()) else { return [] }
      guard case .array(let elements)? = instance["NS.objects"] else {
        throw failure(
          "has \(what()) of class \"\(instance.className)\" with no \"NS.objects\" array")
      }
      return elements
    default:
      throw failure("has \(what()) that is \(node.kindDescription), not a collection")
    }
  }

  /// The keys and values, unresolved, of the NSDictionary or NSMutableDictionary `value`
  /// refers to; empty for `$null`.
  package func entries(_ value: PropertyListNode?, for what: @autoclosure () -> String)
    throws(Failure) -> [(key: PropertyListNode, value: PropertyListNode)]
  {
    guard let instance = try instance(value, for: what()) else { return [] }
    guard case .array(let keys)? = instance["NS.keys"],
      case .array(let values)? = instance["NS.objects"], keys.count == values.count
    else {
      throw failure(
        "has \(what()) of class \"\(instance.className)\" without \"NS.keys\" and"
          + " \"NS.objects\" arrays of one length")
    }
    return Array(zip(keys, values)).map { (key: $0.0, value: $0.1) }
  }
}
