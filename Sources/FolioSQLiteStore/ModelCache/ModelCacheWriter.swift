import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

/// Writes a model as Core Data caches it in `Z_MODELCACHE`: an NSKeyedArchiver archive of the
/// NSManagedObjectModel, laid out as the caches of the corpus's stores are
/// (`../shared/research/sqlite-stores.md` §7), so that ``ModelCacheReader`` and Core Data read
/// it.
///
/// Entities go in an NSKnownKeysDictionary1 by name order; each NSEntityDescription lists in
/// `NSProperties` every property it has, inherited ones as copies of its own (as newer caches
/// do), and names its superentity and subentities. A flag is archived only when it is set,
/// and `_P` carries the flag bits the corpus shows. Derived attributes are archived as the
/// stored attributes they are, with their expression as text under a key of Folio's; fetched
/// properties, which a store does not hold, and index elements on expressions are left out.
struct ModelCacheWriter {
  private var objects: [PropertyListValue] = [.string("$null")]
  private var classes: [String: PropertyListValue] = [:]
  private var strings: [String: PropertyListValue] = [:]

  /// The class chains of the classes the archive uses, as NSKeyedArchiver lists them.
  private static let chains: [String: [String]] = [
    "NSManagedObjectModel": ["NSManagedObjectModel", "NSObject"],
    "NSKnownKeysDictionary1": [
      "NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary",
      "NSObject",
    ],
    "NSKnownKeysMappingStrategy1": [
      "NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject",
    ],
    "NSEntityDescription": ["NSEntityDescription", "NSObject"],
    "NSAttributeDescription": ["NSAttributeDescription", "NSPropertyDescription", "NSObject"],
    "NSRelationshipDescription": [
      "NSRelationshipDescription", "NSPropertyDescription", "NSObject",
    ],
    "NSFetchIndexDescription": ["NSFetchIndexDescription", "NSObject"],
    "NSFetchIndexElementDescription": ["NSFetchIndexElementDescription", "NSObject"],
    "NSArray": ["NSArray", "NSObject"],
    "NSMutableArray": ["NSMutableArray", "NSArray", "NSObject"],
    "NSDictionary": ["NSDictionary", "NSObject"],
    "NSMutableDictionary": ["NSMutableDictionary", "NSDictionary", "NSObject"],
    "NSSet": ["NSSet", "NSObject"],
    "NSDate": ["NSDate", "NSObject"],
    "NSUUID": ["NSUUID", "NSObject"],
    "NSURL": ["NSURL", "NSObject"],
  ]

  /// The keys of a derived attribute's expression and of its keeping its value in the history
  /// of a deletion, which Folio archives beside Core Data's.
  static let derivationKey = "FolioDerivationExpression"
  static let preservesValueKey = "FolioPreservesValueInHistoryOnDeletion"

  /// The token NSKnownKeysDictionary1 keeps for an empty slot, as Core Data writes it.
  static let emptySlotToken = "__empty_slot_token_4c24_98dc_ac1e_b773__"

  /// Raw DEFLATE of the archive of `model`: what `Z_MODELCACHE.Z_CONTENT` holds.
  static func encode(_ model: ManagedObjectModel) -> Data {
    var writer = ModelCacheWriter()
    let root = writer.archive(model)
    let archive = PropertyListValue.dictionary([
      "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
      "$top": .dictionary(["root": root]), "$objects": .array(writer.objects),
    ])
    let plist = BinaryPropertyList.encodeKeyedArchive(archive)
    // A zlib stream is raw DEFLATE between a 2-byte header and a 4-byte checksum.
    let stream = plist.withUnsafeBytes { Zlib.deflate($0, level: 6) }
    return Data(stream.dropFirst(2).dropLast(4))
  }

  // MARK: Objects

  private static func reference(_ number: Int) -> PropertyListValue {
    .dictionary(["CF$UID": .integer(Int64(number))])
  }

  private static var null: PropertyListValue { reference(0) }

  private mutating func reserve() -> Int {
    objects.append(.string("$null"))
    return objects.count - 1
  }

  private mutating func set(
    _ number: Int, _ className: String, _ fields: [String: PropertyListValue]
  ) {
    var fields = fields
    fields["$class"] = classReference(className)
    objects[number] = .dictionary(fields)
  }

  private mutating func instance(_ className: String, _ fields: [String: PropertyListValue])
    -> PropertyListValue
  {
    let number = reserve()
    set(number, className, fields)
    return Self.reference(number)
  }

  private mutating func classReference(_ name: String) -> PropertyListValue {
    if let known = classes[name] { return known }
    objects.append(
      .dictionary([
        "$classname": .string(name),
        "$classes": .array((Self.chains[name] ?? [name, "NSObject"]).map { .string($0) }),
      ]))
    let reference = Self.reference(objects.count - 1)
    classes[name] = reference
    return reference
  }

  /// A string object, shared as NSKeyedArchiver shares equal strings.
  private mutating func string(_ text: String) -> PropertyListValue {
    if let known = strings[text] { return known }
    objects.append(.string(text))
    let reference = Self.reference(objects.count - 1)
    strings[text] = reference
    return reference
  }

  private mutating func optionalString(_ text: String?) -> PropertyListValue {
    text.map { string($0) } ?? Self.null
  }

  private mutating func array(_ elements: [PropertyListValue], mutable: Bool = false)
    -> PropertyListValue
  {
    instance(mutable ? "NSMutableArray" : "NSArray", ["NS.objects": .array(elements)])
  }

  private mutating func dictionary(
    _ entries: [(key: String, value: PropertyListValue)], mutable: Bool = true
  ) -> PropertyListValue {
    let keys = entries.map { string($0.key) }
    return instance(
      mutable ? "NSMutableDictionary" : "NSDictionary",
      ["NS.keys": .array(keys), "NS.objects": .array(entries.map(\.value))])
  }

  private mutating func userInfo(_ info: [String: String]) -> PropertyListValue {
    let entries = info.keys.sorted().map { key in (key: key, value: string(info[key] ?? "")) }
    return dictionary(entries, mutable: false)
  }

  // MARK: The model

  private mutating func archive(_ model: ManagedObjectModel) -> PropertyListValue {
    let root = reserve()
    let entities = model.entities.sorted { $0.name < $1.name }
    // Every entity and each property it has gets its object number first, so references
    // (superentity, destination, inverse) can point forward.
    var entityNumber: [String: Int] = [:]
    for entity in entities { entityNumber[entity.name] = reserve() }
    var propertyNumber: [String: [String: Int]] = [:]
    for entity in entities {
      for property in Self.archivedProperties(of: entity) {
        propertyNumber[entity.name, default: [:]][property.name] = reserve()
      }
    }
    for entity in entities {
      guard let number = entityNumber[entity.name] else { continue }
      var properties: [(key: String, value: PropertyListValue)] = []
      for property in Self.archivedProperties(of: entity) {
        guard let slot = propertyNumber[entity.name]?[property.name] else { continue }
        switch property {
        case .attribute(let attribute):
          setAttribute(slot, attribute, entity: number)
        case .relationship(let relationship):
          let destination = entityNumber[relationship.destinationEntityName]
          let inverse = relationship.inverseName.flatMap {
            propertyNumber[relationship.destinationEntityName]?[$0]
          }
          setRelationship(
            slot, relationship, entity: number, destination: destination, inverse: inverse)
        case .fetchedProperty:
          continue
        }
        properties.append((property.name, Self.reference(slot)))
      }
      let subentities = entities.filter { $0.parentEntityName == entity.name }.map { sub in
        (key: sub.name, value: entityNumber[sub.name].map(Self.reference) ?? Self.null)
      }
      var fields: [String: PropertyListValue] = [
        "NSEntityName": string(entity.name),
        "NSClassNameForEntity": optionalString(entity.representedClassName),
        "NSUserInfo": userInfo(entity.userInfo),
        "NSSubentities": dictionary(subentities),
        "NSVersionHashModifier": optionalString(entity.versionHashModifier),
        "NSProperties": dictionary(properties),
        "NSRenamingIdentifier": string(entity.renamingIdentifier ?? entity.name),
        "NSManagedObjectModel": Self.reference(root),
        "NSSuperentity": entity.parentEntityName.flatMap { entityNumber[$0] }.map(Self.reference)
          ?? Self.null,
      ]
      if entity.isAbstract { fields["NSIsAbstract"] = .boolean(true) }
      if !entity.uniquenessConstraints.isEmpty {
        fields["NSUniqueTuples"] = array(
          entity.uniquenessConstraints.map { names in array(names.map { string($0) }) },
          mutable: true)
      }
      if !entity.compoundIndexes.isEmpty {
        fields["NSCompoundIndexes"] = array(
          entity.compoundIndexes.map { names in array(names.map { string($0) }) },
          mutable: true)
      }
      if !entity.fetchIndexes.isEmpty {
        fields["NSFetchIndexDescriptions"] = array(
          entity.fetchIndexes.map { fetchIndex($0, entity: number) }, mutable: true)
      }
      set(number, "NSEntityDescription", fields)
    }
    let keys = array(entities.map { string($0.name) })
    let mapping = instance(
      "NSKnownKeysMappingStrategy1",
      ["keys": keys, "length": .integer(Int64(entities.count)), "version": .integer(1)])
    let values = array(entities.compactMap { entityNumber[$0.name].map(Self.reference) })
    let known = instance(
      "NSKnownKeysDictionary1",
      [
        "searchMapping": mapping, "values": values,
        "emptyToken": string(Self.emptySlotToken), "version": .integer(1),
      ])
    let identifiers = instance(
      "NSSet", ["NS.objects": .array([string(model.versionIdentifier ?? "")])])
    set(
      root, "NSManagedObjectModel",
      [
        "NSEntities": known, "NSVersionIdentifiers": identifiers,
        "NSFetchRequestTemplates": Self.null,
      ])
    return Self.reference(root)
  }

  /// The properties `entity` has, its ancestors' first, that a store's model keeps: every
  /// attribute and relationship, inherited ones included.
  private static func archivedProperties(of entity: EntityDescription) -> [PropertyDescription] {
    entity.properties.filter { property in
      switch property {
      case .attribute(let attribute): attribute.attributeType != .composite
      case .relationship: true
      case .fetchedProperty: false
      }
    }
  }

  /// `_P`, a bit field Core Data archives beside the explicit keys: 0xF1 for every property,
  /// 0x2 optional, 0x8 transient, 0x400 ordered, and 0x80 cleared by a version hash modifier.
  private static func propertyBits(
    optional: Bool, transient: Bool, ordered: Bool, modifier: String?
  ) -> Int64 {
    var bits: Int64 = 0xF1
    if optional { bits |= 0x2 }
    if transient { bits |= 0x8 }
    if ordered { bits |= 0x400 }
    if modifier != nil { bits &= ~0x80 }
    return bits
  }

  private mutating func setAttribute(_ number: Int, _ attribute: AttributeDescription, entity: Int)
  {
    var fields: [String: PropertyListValue] = [
      "_P": .integer(
        Self.propertyBits(
          optional: attribute.isOptional, transient: attribute.isTransient, ordered: false,
          modifier: attribute.versionHashModifier)),
      "NSPropertyName": string(attribute.name),
      "NSEntity": Self.reference(entity),
      "NSAttributeType": .integer(Int64(attribute.attributeType.coreDataTypeCode)),
      "NSAttributeValueClassName": optionalString(
        attribute.attributeType == .transformable
          ? attribute.valueClassName : Self.valueClassName(attribute.attributeType)),
      "NSDefaultValue": defaultValue(attribute.defaultValue),
      "NSValueTransformerName": optionalString(attribute.valueTransformerName),
      "NSFlagsKey": .integer(attribute.allowsExternalBinaryDataStorage ? 4 : 0),
      "NSRenamingIdentifier": string(attribute.renamingIdentifier ?? attribute.name),
    ]
    if attribute.isOptional { fields["NSIsOptional"] = .boolean(true) }
    if attribute.isTransient { fields["NSIsTransient"] = .boolean(true) }
    if attribute.isIndexed { fields["NSIsIndexed"] = .boolean(true) }
    if let modifier = attribute.versionHashModifier {
      fields["NSVersionHashModifier"] = string(modifier)
    }
    if !attribute.userInfo.isEmpty { fields["NSUserInfo"] = userInfo(attribute.userInfo) }
    // What Core Data's caches show no key for, under keys of Folio's own, which Core Data's
    // decoder passes over: the derivation of a derived attribute, and keeping a value in the
    // history of a deletion. Both go into the version hash.
    if let derivation = attribute.derivationExpression {
      fields[Self.derivationKey] = string(derivation)
    }
    if attribute.preservesValueInHistoryOnDeletion {
      fields[Self.preservesValueKey] = .boolean(true)
    }
    set(number, "NSAttributeDescription", fields)
  }

  private mutating func setRelationship(
    _ number: Int, _ relationship: RelationshipDescription, entity: Int, destination: Int?,
    inverse: Int?
  ) {
    let maxCount: Int64 = relationship.isToMany ? Int64(relationship.maxCount ?? 0) : 1
    var fields: [String: PropertyListValue] = [
      "_P": .integer(
        Self.propertyBits(
          optional: relationship.isOptional, transient: relationship.isTransient,
          ordered: relationship.isOrdered, modifier: relationship.versionHashModifier)),
      "NSPropertyName": string(relationship.name),
      "NSEntity": Self.reference(entity),
      "NSDestinationEntity": destination.map(Self.reference) ?? Self.null,
      "_NSDestinationEntityName": string(relationship.destinationEntityName),
      "NSInverseRelationship": inverse.map(Self.reference) ?? Self.null,
      "_NSInverseRelationshipName": optionalString(relationship.inverseName),
      "NSMaxCount": .integer(maxCount),
      "NSMinCount": .integer(Int64(relationship.minCount)),
      "NSDeleteRule": .integer(Self.ruleCode(relationship.deleteRule)),
      "NSRenamingIdentifier": string(relationship.renamingIdentifier ?? relationship.name),
    ]
    if relationship.isOptional { fields["NSIsOptional"] = .boolean(true) }
    if relationship.isOrdered { fields["NSIsOrdered"] = .boolean(true) }
    if relationship.isTransient { fields["NSIsTransient"] = .boolean(true) }
    if relationship.isIndexed { fields["NSIsIndexed"] = .boolean(true) }
    if let modifier = relationship.versionHashModifier {
      fields["NSVersionHashModifier"] = string(modifier)
    }
    if !relationship.userInfo.isEmpty { fields["NSUserInfo"] = userInfo(relationship.userInfo) }
    set(number, "NSRelationshipDescription", fields)
  }

  private mutating func fetchIndex(_ index: FetchIndexDescription, entity: Int)
    -> PropertyListValue
  {
    let number = reserve()
    let elements = index.elements.compactMap { element -> PropertyListValue? in
      guard let property = element.propertyName else { return nil }
      return instance(
        "NSFetchIndexElementDescription",
        [
          "NSPropertyName": string(property),
          "NSFetchIndexElementType": .integer(element.kind == "R-Tree" ? 1 : 0),
          "NSAscending": .boolean(element.isAscending),
          "NSFetchIndexDescription": Self.reference(number),
        ])
    }
    set(
      number, "NSFetchIndexDescription",
      [
        "NSIndexName": string(index.name), "NSIndexElements": array(elements, mutable: true),
        "NSPartialIndexPredicate": Self.null, "NSEntity": Self.reference(entity),
      ])
    return Self.reference(number)
  }

  /// A default value as Core Data archives it: numbers and flags inline, strings as string
  /// objects, other values as the objects NSKeyedArchiver makes of them.
  private mutating func defaultValue(_ value: AttributeValue?) -> PropertyListValue {
    switch value {
    case nil: return Self.null
    case .integer(let number)?: return .integer(number)
    case .double(let number)?: return .real(number)
    case .float(let number)?: return .real(Double(number))
    case .boolean(let flag)?: return .boolean(flag)
    case .decimal(let number)?:
      if let integer = Int64(exactly: NSDecimalNumber(decimal: number).doubleValue) {
        return .integer(integer)
      }
      return .real(NSDecimalNumber(decimal: number).doubleValue)
    case .string(let text)?: return string(text)
    case .date(let date)?:
      return instance("NSDate", ["NS.time": .real(date.timeIntervalSinceReferenceDate)])
    case .binaryData(let bytes)?:
      objects.append(.data(bytes))
      return Self.reference(objects.count - 1)
    case .uuid(let uuid)?:
      let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
      return instance("NSUUID", ["NS.uuidbytes": .data(bytes)])
    case .uri(let url)?:
      return instance("NSURL", ["NS.base": Self.null, "NS.relative": string(url.absoluteString)])
    default:
      return Self.null
    }
  }

  /// The class Core Data names for values of `type`.
  static func valueClassName(_ type: AttributeType) -> String? {
    switch type {
    case .integer16, .integer32, .integer64, .double, .float, .boolean: "NSNumber"
    case .decimal: "NSDecimalNumber"
    case .string: "NSString"
    case .date: "NSDate"
    case .binaryData: "NSData"
    case .uuid: "NSUUID"
    case .uri: "NSURL"
    case .objectID: "NSManagedObjectID"
    case .transformable, .composite, .undefined: nil
    }
  }

  private static func ruleCode(_ rule: DeleteRule) -> Int64 {
    switch rule {
    case .noAction: 0
    case .nullify: 1
    case .cascade: 2
    case .deny: 3
    }
  }
}

extension SQLiteModelCache {
  /// `model` as `Z_MODELCACHE.Z_CONTENT` holds it (``ModelCacheWriter``).
  package static func encode(_ model: ManagedObjectModel) -> Data {
    ModelCacheWriter.encode(model)
  }
}
