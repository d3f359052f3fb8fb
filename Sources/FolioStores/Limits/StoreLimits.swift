import FolioModel
import Foundation

/// The largest values and stores Folio reads and writes.
///
/// Each limit holds in both directions: a file with a value or an object count past it is
/// refused when read (`StoreError.Code.limitExceeded`, at its line or byte offset), and a save
/// that would write one is refused before a byte is written (naming `Entity.key`), so a store
/// that opens can always be saved again and a store Folio saved can always be opened.
/// `RELIABILITY.md` §5 says why each limit is where it is.
public struct StoreLimits: Sendable, Hashable {
  /// The most bytes in one value of a variable-length type: the UTF-8 of a String, URI or
  /// Object ID, or the bytes of a Binary Data or Transformable value. Composite members count
  /// one by one.
  public var maximumValueBytes: Int
  /// The most objects in one store.
  public var maximumObjectCount: Int

  /// Folio's limits: 128 MiB per value, and 4,294,967,294 objects per store.
  ///
  /// 128 MiB is the largest power of two whose XML text fits in one libxml2 text node
  /// (1,000,000,000 bytes with `XML_PARSE_HUGE`) when every character takes Core Data's
  /// six-byte `\uXXXX` escape; the object count is what the binary format's `u32` object
  /// indices number, less the one value that marks "no object".
  public static let standard = StoreLimits(
    maximumValueBytes: 1 << 27, maximumObjectCount: Int(UInt32.max) - 1)

  /// The limits readers and writers apply: ``standard``, lowered by tests to reach the checks
  /// with small inputs.
  @TaskLocal package static var current = StoreLimits.standard

  /// Creates limits.
  public init(maximumValueBytes: Int, maximumObjectCount: Int) {
    self.maximumValueBytes = maximumValueBytes
    self.maximumObjectCount = maximumObjectCount
  }

  /// The size `value` counts against ``maximumValueBytes`` when it is past it (the largest
  /// member of a composite), `nil` when it fits.
  package func excess(of value: AttributeValue) -> Int? {
    let size: Int
    switch value {
    case .string(let text), .objectID(let text): size = text.utf8.count
    case .uri(let url): size = url.absoluteString.utf8.count
    case .binaryData(let data), .transformable(let data): size = data.count
    case .composite(let members):
      return members.values.lazy.compactMap { self.excess(of: $0) }.max()
    case .integer, .double, .float, .decimal, .boolean, .date, .uuid: return nil
    }
    return size > maximumValueBytes ? size : nil
  }

  /// What is wrong with a value of `size` bytes.
  package func valueTooLarge(_ size: Int) -> String {
    "a value of \(size) bytes is larger than the limit of \(maximumValueBytes) bytes"
      + " (\(Self.binarySize(maximumValueBytes)))"
  }

  /// What is wrong with a store of `count` objects (more than ``maximumObjectCount``), or of
  /// more objects than that when `count` is `nil`.
  package func tooManyObjects(_ count: Int?) -> String {
    "\(count.map { "\($0) objects are" } ?? "the store holds") more than the limit of"
      + " \(maximumObjectCount) objects"
  }

  /// Checks `value` of `entity.key` before it is written.
  @inlinable
  package func check(_ value: AttributeValue, entity: String, key: String) throws(StoreError) {
    // A number, date or UUID is never too large: the writers call this for every value.
    switch value {
    case .integer, .double, .float, .decimal, .boolean, .date, .uuid: return
    default: try checkSize(of: value, entity: entity, key: key)
    }
  }

  @usableFromInline
  func checkSize(of value: AttributeValue, entity: String, key: String) throws(StoreError) {
    if let size = excess(of: value) {
      throw StoreError(
        .limitExceeded, valueTooLarge(size), at: InputLocation(entity: entity, property: key))
    }
  }

  /// Checks that `count` objects may be written.
  package func checkObjectCount(_ count: Int) throws(StoreError) {
    guard count <= maximumObjectCount else {
      throw StoreError(.limitExceeded, tooManyObjects(count))
    }
  }

  /// `128 MiB` for a whole number of mebibytes, else the bytes.
  private static func binarySize(_ bytes: Int) -> String {
    bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
  }
}

extension StoreLimits {
  /// The most levels a composite value or a store's metadata nests:
  /// ``CompositeDescription/maximumNestingLevels`` (32), fixed rather than a setting because
  /// the binary format states it.
  ///
  /// A composite attribute's value is level 1, and each composite member of it one level
  /// deeper; the metadata dictionary is level 1, and each array or dictionary in it one level
  /// deeper. Other values do not count. Readers and writers of both formats refuse more with
  /// `limitExceeded`; a model's composites cannot nest deeper (`ManagedObjectModel` refuses
  /// it), so only composite members the model does not describe can reach the limit.
  public static let maximumNestingLevels = CompositeDescription.maximumNestingLevels

  /// What is wrong with `what` ("composites", "property lists") nested too deeply.
  package static func nestedTooDeeply(_ what: String) -> String {
    "\(what) nest more than \(maximumNestingLevels) levels deep"
  }

  /// Checks that no property list in `metadata`, itself level 1, nests deeper than
  /// ``maximumNestingLevels``; the error names the metadata key that holds the deepest one.
  package static func checkNesting(ofMetadata metadata: [String: PropertyListValue])
    throws(StoreError)
  {
    for (key, value) in metadata.sorted(by: { $0.key < $1.key })
    where exceedsNesting(value, level: 2) {
      throw StoreError(
        .limitExceeded, nestedTooDeeply("property lists"),
        at: InputLocation(entity: "metadata", property: key))
    }
  }

  /// Whether `value`, at `level`, holds a container past ``maximumNestingLevels``. Stops at
  /// the first level past it, so a deeper value costs no deeper recursion.
  private static func exceedsNesting(_ value: PropertyListValue, level: Int) -> Bool {
    switch value {
    case .array(let values):
      level > maximumNestingLevels || values.contains { exceedsNesting($0, level: level + 1) }
    case .dictionary(let entries):
      level > maximumNestingLevels
        || entries.values.contains { exceedsNesting($0, level: level + 1) }
    case .string, .integer, .real, .boolean, .date, .data: false
    }
  }
}
