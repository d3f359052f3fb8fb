import Foundation

/// Version hashes: a deterministic digest of what shapes an entity's stored data.
///
/// A store records the hash of each entity it was written with, so that on opening it can tell
/// whether the model still fits. Like Core Data's, a hash covers only what changes the stored
/// shape — names, types, optionality, transience, relationship ends and counts, inheritance,
/// and the user's `versionHashModifier` — and not defaults, constraints, indexes, class names
/// or user info. Folio's hashes are not byte-equal to Core Data's (Apple does not publish its
/// encoding); `Formats/xcdatamodel.md` specifies ours exactly:
///
/// - A *field* is encoded as a tag byte and a payload: `0x01` + 1 byte for a flag, `0x02` + 8
///   bytes big-endian for an integer, `0x03` + 4-byte big-endian length + UTF-8 for a string,
///   `0x04` + 32 bytes for a nested hash, `0x00` for "none".
/// - Each hash is SHA-256 over a kind string field (`"attribute"`, `"relationship"`,
///   `"entity"`, `"model"`) followed by the fields listed in the functions below, in order.
struct VersionHasher {
  private var bytes: [UInt8] = []

  init(kind: String) { string(kind) }

  mutating func flag(_ value: Bool) {
    bytes.append(0x01)
    bytes.append(value ? 1 : 0)
  }

  mutating func integer(_ value: Int) {
    bytes.append(0x02)
    let value = UInt64(bitPattern: Int64(value))
    for shift in stride(from: 56, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
    }
  }

  mutating func string(_ value: String?) {
    guard let value else {
      bytes.append(0x00)
      return
    }
    let utf8 = Array(value.utf8)
    bytes.append(0x03)
    let count = UInt32(utf8.count)
    for shift in stride(from: 24, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift)))
    }
    bytes.append(contentsOf: utf8)
  }

  mutating func hash(_ value: Data?) {
    guard let value else {
      bytes.append(0x00)
      return
    }
    bytes.append(0x04)
    bytes.append(contentsOf: value)
  }

  func finalize() -> Data { SHA256.hash(bytes) }

  /// The version hash of `attribute`; a composite attribute's covers its members' hashes,
  /// each composite's computed once and kept in `memberHashes`, by composite name. (Without
  /// that, composites whose members share a composite would be hashed once per path through
  /// them: a 7.6 KB model of 24 composites, each with three members of the next, had not
  /// loaded after 5 minutes.)
  static func hash(
    of attribute: AttributeDescription, composites: [String: CompositeDescription],
    memberHashes: inout [String: [Data]]
  ) -> Data {
    var hasher = VersionHasher(kind: "attribute")
    hasher.string(attribute.name)
    hasher.flag(attribute.isOptional)
    hasher.flag(attribute.isTransient)
    hasher.flag(attribute.isDerived)
    hasher.string(attribute.attributeType.xcodeName)
    hasher.string(attribute.versionHashModifier)
    if attribute.attributeType == .composite, let name = attribute.compositeName,
      let composite = composites[name]
    {
      hasher.string(name)
      let hashes: [Data]
      if let known = memberHashes[name] {
        hashes = known
      } else {
        hashes = composite.attributes.sorted(by: { $0.name < $1.name }).map {
          hash(of: $0, composites: composites, memberHashes: &memberHashes)
        }
        memberHashes[name] = hashes
      }
      for memberHash in hashes { hasher.hash(memberHash) }
    }
    return hasher.finalize()
  }

  static func hash(of relationship: RelationshipDescription) -> Data {
    var hasher = VersionHasher(kind: "relationship")
    hasher.string(relationship.name)
    hasher.flag(relationship.isOptional)
    hasher.flag(relationship.isTransient)
    hasher.string(relationship.destinationEntityName)
    hasher.string(relationship.inverseName)
    hasher.flag(relationship.isToMany)
    hasher.flag(relationship.isOrdered)
    hasher.integer(relationship.minCount)
    hasher.integer(relationship.maxCount ?? 0)
    hasher.string(relationship.versionHashModifier)
    return hasher.finalize()
  }

  /// `declaredHashes` are the hashes of the properties declared on the entity itself, by name;
  /// the parent's hash covers the inherited ones.
  static func hash(
    ofEntity entity: EntityDescription, parentHash: Data?, declaredHashes: [String: Data]
  ) -> Data {
    var hasher = VersionHasher(kind: "entity")
    hasher.string(entity.name)
    hasher.flag(entity.isAbstract)
    hasher.hash(parentHash)
    hasher.string(entity.versionHashModifier)
    for name in declaredHashes.keys.sorted() {
      hasher.string(name)
      hasher.hash(declaredHashes[name])
    }
    return hasher.finalize()
  }

  static func hash(ofModel entityHashes: [String: Data]) -> Data {
    var hasher = VersionHasher(kind: "model")
    for name in entityHashes.keys.sorted() {
      hasher.string(name)
      hasher.hash(entityHashes[name])
    }
    return hasher.finalize()
  }
}
