import FolioModel
import Foundation

/// Core Data's `NSSecureUnarchiveFromData` transformer, for the values it can hold on any
/// platform: an `NSKeyedArchiver` archive (binary property list) of property-list-like values.
///
/// | Swift value | archived as |
/// |---|---|
/// | `String` | a string (`NSString`) |
/// | `Int` (and every integer type), `Double`, `Float`, `Bool` | a number (`NSNumber`) |
/// | `Date` | `NSDate` (`NS.time`) |
/// | `Data` | data (`NSData`) |
/// | `UUID` | `NSUUID` (`NS.uuidbytes`) |
/// | `URL` | `NSURL` (`NS.base`, `NS.relative`) |
/// | `[Any]` | `NSArray` (`NS.objects`) |
/// | `[String: Any]`, `[AnyHashable: Any]` | `NSDictionary` (`NS.keys`, `NS.objects`) |
/// | `Set<AnyHashable>` | `NSSet` (`NS.objects`) |
/// | `NSNull` | `NSNull` |
///
/// Reading gives the same Swift types (a dictionary whose keys are all strings as
/// `[String: Any]`, any other as `[AnyHashable: Any]`; a number as `Int`, `Double` or `Bool`
/// as it was archived; a `$null` root, array element or dictionary value as `NSNull`). An
/// archive holding another class (an app's own `NSCoding` class, a `UIColor`) cannot be read
/// without that class, and is refused naming it. An object the archive refers to from several
/// places reads as a copy in each; an archive that would so expand past four values per byte
/// of it is refused, as is one whose collections nest more than 64 deep.
public struct SecureUnarchiveTransformer: AttributeValueTransformer {
  /// How deep archived collections may nest: deeper archives are refused, not overflowed.
  static let maximumDepth = 64
  /// How many values an archive may read as, per byte of it. An archive refers to each value
  /// it holds with a byte at least, so only one that refers to the same collections from many
  /// places comes near: reading it gives each place a copy (Swift collections are values).
  static let maximumValuesPerByte = 4

  /// Creates the transformer.
  public init() {}

  public func data(from value: Any) throws -> Data {
    var archiver = Archiver()
    let root = try archiver.encode(value, depth: 0)
    return BinaryPropertyList.encodeKeyedArchive(
      .dictionary([
        "$archiver": .string("NSKeyedArchiver"),
        "$version": .integer(100_000),
        "$top": .dictionary(["root": root]),
        "$objects": .array(archiver.objects),
      ]))
  }

  public func value(from data: Data) throws -> Any {
    let node: PropertyListNode
    do {
      node = try BinaryPropertyList.decode(data, file: nil)
    } catch {
      throw TransformError("the bytes are not an NSKeyedArchiver archive (\(error.message))")
    }
    let archive = try KeyedArchive(node) { TransformError("the archive \($0)") }
    let unarchiver = Unarchiver(
      archive: archive, maximumValues: Self.maximumValuesPerByte * max(data.count, 1))
    return try unarchiver.value(archive.rootReference, depth: 0) ?? NSNull()
  }
}

/// Builds the `$objects` of an archive; object 0 is `$null`.
private struct Archiver {
  var objects: [PropertyListValue] = [.string("$null")]
  private var classes: [String: PropertyListValue] = [:]

  static func reference(_ number: Int) -> PropertyListValue {
    .dictionary(["CF$UID": .integer(Int64(number))])
  }

  mutating func append(_ object: PropertyListValue) -> PropertyListValue {
    objects.append(object)
    return Self.reference(objects.count - 1)
  }

  mutating func instance(_ className: String, _ fields: [String: PropertyListValue])
    -> PropertyListValue
  {
    let number = objects.count
    objects.append(.string("$null"))  // reserved: the fields' own objects come after it
    var fields = fields
    fields["$class"] = classReference(className)
    objects[number] = .dictionary(fields)
    return Self.reference(number)
  }

  private mutating func classReference(_ name: String) -> PropertyListValue {
    if let known = classes[name] { return known }
    let chain: [String] =
      switch name {
      case "NSMutableArray": ["NSMutableArray", "NSArray", "NSObject"]
      case "NSMutableDictionary": ["NSMutableDictionary", "NSDictionary", "NSObject"]
      default: [name, "NSObject"]
      }
    let reference = append(
      .dictionary(["$classname": .string(name), "$classes": .array(chain.map { .string($0) })]))
    classes[name] = reference
    return reference
  }

  /// Archives `value`; returns the reference to it.
  mutating func encode(_ value: Any, depth: Int) throws -> PropertyListValue {
    guard depth < SecureUnarchiveTransformer.maximumDepth else {
      throw TransformError(
        "collections nest more than \(SecureUnarchiveTransformer.maximumDepth) deep")
    }
    switch value {
    case is NSNull: return instance("NSNull", [:])
    case let text as String: return append(.string(text))
    case let flag as Bool: return append(.boolean(flag))
    case let number as Int: return append(.integer(Int64(number)))
    case let number as Int64: return append(.integer(number))
    case let number as Int32: return append(.integer(Int64(number)))
    case let number as Int16: return append(.integer(Int64(number)))
    case let number as Int8: return append(.integer(Int64(number)))
    case let number as UInt8: return append(.integer(Int64(number)))
    case let number as UInt16: return append(.integer(Int64(number)))
    case let number as UInt32: return append(.integer(Int64(number)))
    case let number as Double: return append(.real(number))
    case let number as Float: return append(.real(Double(number)))
    case let data as Data: return append(.data(data))
    case let date as Date:
      return instance("NSDate", ["NS.time": .real(date.timeIntervalSinceReferenceDate)])
    case let uuid as UUID:
      return instance(
        "NSUUID", ["NS.uuidbytes": .data(withUnsafeBytes(of: uuid.uuid) { Data($0) })])
    case let url as URL:
      let relative = try encode(url.relativeString, depth: depth + 1)
      var fields: [String: PropertyListValue] = ["NS.relative": relative]
      fields["NS.base"] =
        try url.baseURL.map { try encode($0, depth: depth + 1) } ?? Self.reference(0)
      return instance("NSURL", fields)
    case let array as [Any]:
      let elements = try array.map { try encode($0, depth: depth + 1) }
      return instance("NSArray", ["NS.objects": .array(elements)])
    case let dictionary as [String: Any]:
      let sorted = dictionary.sorted { $0.key < $1.key }
      let keys = try sorted.map { try encode($0.key, depth: depth + 1) }
      let values = try sorted.map { try encode($0.value, depth: depth + 1) }
      return instance("NSDictionary", ["NS.keys": .array(keys), "NS.objects": .array(values)])
    case let dictionary as [AnyHashable: Any]:
      let entries = Array(dictionary)
      let keys = try entries.map { try encode($0.key.base, depth: depth + 1) }
      let values = try entries.map { try encode($0.value, depth: depth + 1) }
      return instance("NSDictionary", ["NS.keys": .array(keys), "NS.objects": .array(values)])
    case let set as Set<AnyHashable>:
      let elements = try set.map { try encode($0.base, depth: depth + 1) }
      return instance("NSSet", ["NS.objects": .array(elements)])
    default:
      throw TransformError(
        "a \(type(of: value)) cannot be archived: NSSecureUnarchiveFromData holds strings, numbers, dates, data, UUIDs, URLs, arrays, dictionaries, sets and NSNull"
      )
    }
  }
}

/// Reads the values of an archive.
///
/// Each object is read once: a second reference to it gives the value read the first time, as
/// deep and as many values as it was then. The values of a Swift collection are its own, so
/// an object referred to from several places counts each time; what the archive expands to
/// may not pass ``maximumValues`` values (a chain of arrays, each holding the next twice,
/// doubles at each link) nor nest past ``SecureUnarchiveTransformer/maximumDepth``.
private final class Unarchiver {
  let archive: KeyedArchive<TransformError>
  /// How many values the archive may expand to.
  let maximumValues: Int
  /// Each object read, by number: its value, how deep it nests below, and how many values it
  /// holds, itself included.
  private var read: [UInt64: (value: Any, height: Int, count: Int)] = [:]
  /// How many values have been read, a value read again counting again.
  private var count = 0
  /// The deepest level the object being read reached.
  private var deepest = 0

  init(archive: KeyedArchive<TransformError>, maximumValues: Int) {
    self.archive = archive
    self.maximumValues = maximumValues
  }

  /// The value `reference` stands for; `nil` for `$null`.
  func value(_ reference: PropertyListNode?, depth: Int) throws -> Any? {
    let maximumDepth = SecureUnarchiveTransformer.maximumDepth
    guard depth < maximumDepth else {
      throw TransformError("the archive nests more than \(maximumDepth) deep")
    }
    let number = reference.flatMap(KeyedArchive<TransformError>.referenceNumber)
    if let number, let known = read[number] {
      guard depth + known.height < maximumDepth else {
        throw TransformError("the archive nests more than \(maximumDepth) deep")
      }
      deepest = max(deepest, depth + known.height)
      try counting(known.count)
      return known.value
    }
    let (countBefore, deepestBefore) = (count, deepest)
    deepest = depth
    try counting(1)
    let value = try unarchived(reference, depth: depth)
    if let number, let value { read[number] = (value, deepest - depth, count - countBefore) }
    deepest = max(deepest, deepestBefore)
    return value
  }

  private func counting(_ values: Int) throws {
    count += values
    guard count <= maximumValues else {
      throw TransformError(
        "the archive expands to more than \(maximumValues) values: it refers to the same collections from too many places"
      )
    }
  }

  private func unarchived(_ reference: PropertyListNode?, depth: Int) throws -> Any? {
    guard let node = try archive.resolve(reference) else { return nil }
    switch node {
    case .string(let text): return text
    case .integer(let number): return Int(exactly: number) ?? Double(number)
    case .real(let number): return number
    case .boolean(let flag): return flag
    case .data(let data): return data
    case .date(let date): return date
    case .dictionary(let fields) where fields["$class"] == nil:
      throw TransformError("the archive holds a dictionary that is no archived object")
    case .dictionary:
      guard let instance = try archive.instance(reference) else { return nil }
      return try self.instance(instance, depth: depth)
    default:
      throw TransformError("the archive holds \(node.kindDescription), which no class archives")
    }
  }

  private func elements(_ instance: KeyedArchive<TransformError>.Instance, _ key: String)
    throws -> [PropertyListNode]
  {
    guard case .array(let elements)? = instance[key] else {
      throw TransformError("the archive's \(instance.className) has no \"\(key)\" array")
    }
    return elements
  }

  private func instance(_ instance: KeyedArchive<TransformError>.Instance, depth: Int) throws
    -> Any
  {
    switch instance.className {
    case "NSArray", "NSMutableArray":
      return try elements(instance, "NS.objects").map {
        try value($0, depth: depth + 1) ?? NSNull()
      }
    case "NSSet", "NSMutableSet":
      var set: Set<AnyHashable> = []
      for element in try elements(instance, "NS.objects") {
        set.insert(try hashable(value(element, depth: depth + 1), in: "an NSSet"))
      }
      return set
    case "NSDictionary", "NSMutableDictionary":
      let keys = try elements(instance, "NS.keys")
      let objects = try elements(instance, "NS.objects")
      guard keys.count == objects.count else {
        throw TransformError(
          "the archive's NSDictionary has \(keys.count) keys for \(objects.count) objects")
      }
      var entries: [AnyHashable: Any] = [:]
      for (key, object) in zip(keys, objects) {
        entries[try hashable(value(key, depth: depth + 1), in: "an NSDictionary's keys")] =
          try value(object, depth: depth + 1) ?? NSNull()
      }
      var strings: [String: Any] = [:]
      for (key, value) in entries {
        guard let text = key.base as? String else { return entries }
        strings[text] = value
      }
      return strings
    case "NSString", "NSMutableString":
      guard case .string(let text)? = try archive.resolve(instance["NS.string"]) else {
        throw TransformError("the archive's \(instance.className) has no \"NS.string\"")
      }
      return text
    case "NSData", "NSMutableData":
      guard case .data(let data)? = try archive.resolve(instance["NS.data"]) else {
        throw TransformError("the archive's \(instance.className) has no \"NS.data\"")
      }
      return data
    case "NSDate":
      guard let time = instance["NS.time"], let seconds = Self.real(time) else {
        throw TransformError("the archive's NSDate has no \"NS.time\"")
      }
      return Date(timeIntervalSinceReferenceDate: seconds)
    case "NSUUID":
      guard case .data(let bytes)? = try archive.resolve(instance["NS.uuidbytes"]),
        bytes.count == 16
      else { throw TransformError("the archive's NSUUID has no 16 \"NS.uuidbytes\"") }
      let b = Array(bytes)
      return UUID(
        uuid: (
          b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
          b[14], b[15]
        ))
    case "NSURL":
      guard let relative = try value(instance["NS.relative"], depth: depth + 1) as? String else {
        throw TransformError("the archive's NSURL has no \"NS.relative\" string")
      }
      let base = try value(instance["NS.base"], depth: depth + 1) as? URL
      guard let url = URL(string: relative, relativeTo: base) else {
        throw TransformError("the archive's NSURL \"\(relative)\" is not a URL")
      }
      return url
    case "NSNull":
      return NSNull()
    default:
      throw TransformError(
        "the archive holds an object of class \(instance.className), which only the app that wrote it can read"
      )
    }
  }

  private static func real(_ node: PropertyListNode) -> Double? {
    switch node {
    case .real(let number): number
    case .integer(let number): Double(number)
    default: nil
    }
  }

  private func hashable(_ value: Any?, in place: String) throws -> AnyHashable {
    guard let value, let hashable = value as? AnyHashable else {
      throw TransformError("the archive holds a value in \(place) that cannot be a key")
    }
    return hashable
  }
}
