import Foundation

/// Core Data's version hashes, byte for byte: what `NSStoreModelVersionHashes` holds in the
/// stores Macs and iPhones write (hashes version 3).
///
/// SHA-256 throughout; strings enter as their UTF-8 bytes with no terminator or length,
/// integers little-endian at the width given, fields concatenated with nothing between them.
/// `Formats/xcdatamodel.md` ("Version hashes") states the encoding and which corpus stores
/// show each part.
enum CoreDataVersionHasher {
  /// A property's base: `name ‖ u16(flags) ‖ [modifier]`, flags 1 optional, 2 transient,
  /// 4 read-only (which a model file cannot set).
  private static func base(
    name: String, isOptional: Bool, isTransient: Bool, modifier: String?
  ) -> Data {
    var bytes = Array(name.utf8)
    let flags: UInt16 = (isOptional ? 1 : 0) | (isTransient ? 2 : 0)
    append(flags, to: &bytes)
    if let modifier { bytes += Array(modifier.utf8) }
    return SHA256.hash(bytes)
  }

  /// The hash of `attribute`. A derived attribute's is its derivation's canonical text alone.
  static func hash(of attribute: AttributeDescription) -> Data {
    if let derivation = attribute.derivationExpression {
      return SHA256.hash(Array(canonicalDerivation(derivation).utf8))
    }
    var bytes = [UInt8](
      base(
        name: attribute.name, isOptional: attribute.isOptional,
        isTransient: attribute.isTransient, modifier: attribute.versionHashModifier))
    append(attribute.attributeType.coreDataTypeCode, to: &bytes)
    if attribute.allowsExternalBinaryDataStorage { bytes.append(0x01) }
    if attribute.preservesValueInHistoryOnDeletion { bytes.append(0x01) }
    return SHA256.hash(bytes)
  }

  /// The hash of `relationship`, declared on `entity`.
  static func hash(of relationship: RelationshipDescription, on entity: String) -> Data {
    var bytes = [UInt8](
      base(
        name: relationship.name, isOptional: relationship.isOptional,
        isTransient: relationship.isTransient, modifier: relationship.versionHashModifier))
    bytes += Array(relationship.destinationEntityName.utf8)
    if let inverse = relationship.inverseName,
      !(inverse == relationship.name && relationship.destinationEntityName == entity)
    {
      bytes += Array(inverse.utf8)
    }
    let maxCount = relationship.maxCount ?? (relationship.isToMany ? 0 : 1)
    append(count(maxCount), to: &bytes)
    append(count(relationship.minCount), to: &bytes)
    if relationship.isOrdered { bytes += [0x01, 0x00] }
    return SHA256.hash(bytes)
  }

  /// The hash of `entity`: `name ‖ u8(abstract) ‖ [parent's hash] ‖ the hashes of its stored
  /// properties, inherited ones included, by name ‖ [modifier] ‖ its own uniqueness
  /// constraints, each joined with ".", in order`. `properties` holds every property's hash
  /// and whether it is stored (not transient, or derived).
  static func hash(
    ofEntity entity: EntityDescription, parentHash: Data?,
    properties: [(name: String, hash: Data, isStored: Bool)]
  ) -> Data {
    var bytes = Array(entity.name.utf8)
    bytes.append(entity.isAbstract ? 1 : 0)
    if let parentHash { bytes += [UInt8](parentHash) }
    for property in properties.filter(\.isStored).sorted(by: { precedes($0.name, $1.name) }) {
      bytes += [UInt8](property.hash)
    }
    if let modifier = entity.versionHashModifier { bytes += Array(modifier.utf8) }
    let constraints = entity.uniquenessConstraints.map { $0.joined(separator: ".") }
    for constraint in constraints.sorted(by: precedes) { bytes += Array(constraint.utf8) }
    return SHA256.hash(bytes)
  }

  /// Core Data's order of names (`NSString compare:`): by UTF-16 code unit.
  static func precedes(_ a: String, _ b: String) -> Bool {
    a.utf16.lexicographicallyPrecedes(b.utf16)
  }

  /// A derivation as Core Data canonicalizes it for hashing: a key path ending in a
  /// collection operator is written as the function, `pages.@count` as `count:(pages)`.
  static func canonicalDerivation(_ text: String) -> String {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    for (suffix, function) in [(".@count", "count:"), (".@sum", "sum:")]
    where trimmed.hasSuffix(suffix) {
      return function + "(" + trimmed.dropLast(suffix.count) + ")"
    }
    return trimmed
  }

  /// A count as a 32-bit field: out of range (a model's "unbounded" spellings) is all ones.
  private static func count(_ value: Int) -> UInt32 {
    value >= 0 && value <= Int(UInt32.max) ? UInt32(value) : UInt32.max
  }

  private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
  }
}

extension AttributeType {
  /// Core Data's `NSAttributeType` code of the type: what its version hashes and its
  /// archived models (a SQLite store's model cache) record.
  package var coreDataTypeCode: UInt32 {
    switch self {
    case .undefined: 0
    case .integer16: 100
    case .integer32: 200
    case .integer64: 300
    case .decimal: 400
    case .double: 500
    case .float: 600
    case .string: 700
    case .boolean: 800
    case .date: 900
    case .binaryData: 1000
    case .uuid: 1100
    case .uri: 1200
    case .transformable: 1800
    case .objectID: 2000
    case .composite: 2100
    }
  }
}
