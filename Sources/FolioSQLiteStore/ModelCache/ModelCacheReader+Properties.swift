import FolioModel
import FolioStores
import Foundation

// Archived NSAttributeDescription and NSRelationshipDescription instances, read into
// FolioModel's descriptions. Core Data archives a flag only when it is set, so an absent flag
// is false; counts and codes are inline integers.

extension ModelCacheReader {
  /// The attribute `instance` describes; `nil` for a composite attribute, which needs a
  /// composite description the cache does not give in a form Folio reads.
  func attribute(_ instance: ModelCacheArchive.Instance, named key: String, in entity: String)
    throws(StoreError) -> AttributeDescription?
  {
    let name =
      try archive.string(instance["NSPropertyName"], for: "a property name of \"\(entity)\"")
      ?? key
    let what = "\(entity).\(name)"
    try checkName(name, of: "a property of \(entity)")
    let code = try archive.integer(instance["NSAttributeType"], for: "the type of \(what)") ?? 0
    guard let type = Self.attributeType(code: code) else {
      if code == 2100 { return nil }
      throw SQLiteModelCache.malformed(
        "gives attribute \(what) the unknown type code \(code)", file: file)
    }
    var attribute = AttributeDescription(
      name, type,
      isOptional: try archive.flag(instance["NSIsOptional"], for: "NSIsOptional of \(what)"))
    attribute.isTransient = try archive.flag(
      instance["NSIsTransient"], for: "NSIsTransient of \(what)")
    attribute.isIndexed = try archive.flag(instance["NSIsIndexed"], for: "NSIsIndexed of \(what)")
    attribute.versionHashModifier = try archive.string(
      instance["NSVersionHashModifier"], for: "the version hash modifier of \(what)")
    attribute.renamingIdentifier = try renamingIdentifier(of: instance, name: name)
    attribute.valueTransformerName = try archive.string(
      instance["NSValueTransformerName"], for: "the value transformer name of \(what)")
    if type == .transformable {
      attribute.valueClassName = try archive.string(
        instance["NSAttributeValueClassName"], for: "the value class name of \(what)")
    }
    let flags = try archive.integer(instance["NSFlagsKey"], for: "NSFlagsKey of \(what)") ?? 0
    attribute.allowsExternalBinaryDataStorage = flags & 4 != 0
    attribute.userInfo = try userInfo(instance["NSUserInfo"], of: what)
    attribute.defaultValue = try defaultValue(instance["NSDefaultValue"], as: type, of: what)
    // Folio's own keys (``ModelCacheWriter``).
    attribute.derivationExpression = try archive.string(
      instance[ModelCacheWriter.derivationKey], for: "the derivation of \(what)")
    attribute.preservesValueInHistoryOnDeletion = try archive.flag(
      instance[ModelCacheWriter.preservesValueKey],
      for: "\(ModelCacheWriter.preservesValueKey) of \(what)")
    return attribute
  }

  /// The relationship `instance` describes.
  func relationship(_ instance: ModelCacheArchive.Instance, named key: String, in entity: String)
    throws(StoreError) -> RelationshipDescription
  {
    let name =
      try archive.string(instance["NSPropertyName"], for: "a property name of \"\(entity)\"")
      ?? key
    let what = "\(entity).\(name)"
    try checkName(name, of: "a property of \(entity)")
    var destination = try archive.string(
      instance["_NSDestinationEntityName"], for: "the destination of \(what)")
    if destination == nil,
      let entity = try archive.instance(
        instance["NSDestinationEntity"], of: "NSEntityDescription",
        for: "the destination of \(what)")
    {
      destination = try archive.string(entity["NSEntityName"], for: "the destination of \(what)")
    }
    guard let destination else {
      throw SQLiteModelCache.malformed("gives relationship \(what) no destination", file: file)
    }
    var inverse = try archive.string(
      instance["_NSInverseRelationshipName"], for: "the inverse of \(what)")
    if inverse == nil {
      inverse = try propertyName(instance["NSInverseRelationship"], for: "the inverse of \(what)")
    }
    let maxCount = try count(instance["NSMaxCount"], "NSMaxCount", of: what)
    let toMany = maxCount != 1
    let ruleCode = try archive.integer(instance["NSDeleteRule"], for: "the delete rule of \(what)")
    let rule: DeleteRule
    switch ruleCode ?? 1 {
    case 0: rule = .noAction
    case 1: rule = .nullify
    case 2: rule = .cascade
    case 3: rule = .deny
    case let other:
      throw SQLiteModelCache.malformed(
        "gives relationship \(what) the unknown delete rule \(other)", file: file)
    }
    var relationship = RelationshipDescription(
      name, to: destination, inverse: inverse, toMany: toMany,
      ordered: try archive.flag(instance["NSIsOrdered"], for: "NSIsOrdered of \(what)"),
      isOptional: try archive.flag(instance["NSIsOptional"], for: "NSIsOptional of \(what)"),
      deleteRule: rule)
    relationship.minCount = try count(instance["NSMinCount"], "NSMinCount", of: what)
    // Core Data spells "no limit" as 0.
    relationship.maxCount = toMany && maxCount == 0 ? nil : maxCount
    relationship.isTransient = try archive.flag(
      instance["NSIsTransient"], for: "NSIsTransient of \(what)")
    relationship.isIndexed = try archive.flag(
      instance["NSIsIndexed"], for: "NSIsIndexed of \(what)")
    relationship.versionHashModifier = try archive.string(
      instance["NSVersionHashModifier"], for: "the version hash modifier of \(what)")
    relationship.renamingIdentifier = try renamingIdentifier(of: instance, name: name)
    relationship.userInfo = try userInfo(instance["NSUserInfo"], of: what)
    return relationship
  }

  /// `NSAttributeType`'s code as an attribute type; `nil` for a code Folio does not know, and
  /// for 2100, composite, whose archived form Folio does not read.
  static func attributeType(code: Int64) -> AttributeType? {
    AttributeType.allCases.first { $0 != .composite && Int64($0.coreDataTypeCode) == code }
  }

  private func count(_ value: PropertyListNode?, _ key: String, of what: String)
    throws(StoreError) -> Int
  {
    let number = try archive.integer(value, for: "\(key) of \(what)") ?? 0
    // A count is an NSUInteger: NSUIntegerMax, which models built in code give a to-many
    // for "no limit", reads as -1, and any value past Int64's reads negative. Core Data
    // means no limit by them, as by 0.
    guard number >= 0, let count = Int(exactly: number) else { return 0 }
    return count
  }

  /// `NSDefaultValue` as a value of `type`: a number, string or flag held as Core Data keeps
  /// it (a Boolean as 0 or 1, a Double as an integer when it is whole), or an archived NSDate,
  /// NSUUID, NSURL, NSData or NSString. A default of a kind Folio does not read (an
  /// NSDecimalNumber, a transformable value) or that does not fit the type is left out, as
  /// Core Data would not apply it either.
  func defaultValue(_ value: PropertyListNode?, as type: AttributeType, of what: String)
    throws(StoreError) -> AttributeValue?
  {
    guard let node = try archive.resolve(value) else { return nil }
    var number: Double?
    var integer: Int64?
    switch node {
    case .integer(let value):
      integer = value
      number = Double(value)
    case .real(let value):
      number = value
      integer = Int64(exactly: value)
    case .boolean(let flag):
      integer = flag ? 1 : 0
      number = flag ? 1 : 0
    default:
      break
    }
    switch type {
    case .integer16, .integer32, .integer64:
      guard let integer, type.integerRange?.contains(integer) ?? false else { return nil }
      return .integer(integer)
    case .decimal:
      if let integer { return .decimal(Decimal(integer)) }
      // Decimal holds 38 digits; a real beyond that, or not finite, is left out.
      guard let number, number.isFinite, abs(number) < 1e38 else { return nil }
      return .decimal(Decimal(number))
    case .double:
      return number.map { .double($0) }
    case .float:
      return number.map { .float(Float($0)) }
    case .boolean:
      return integer.map { .boolean($0 != 0) }
    case .string:
      return try archivedString(value, node, of: what).map { .string($0) }
    case .date:
      if let number { return .date(Date(timeIntervalSinceReferenceDate: number)) }
      guard case .real(let seconds)? = try archivedField(value, "NSDate", "NS.time") else {
        return nil
      }
      return .date(Date(timeIntervalSinceReferenceDate: seconds))
    case .binaryData:
      if case .data(let bytes) = node { return .binaryData(bytes) }
      guard case .data(let bytes)? = try archivedField(value, "NSMutableData", "NS.data")
      else { return nil }
      return .binaryData(bytes)
    case .uuid:
      if let text = try archivedString(value, node, of: what) {
        return UUID(uuidString: text).map { .uuid($0) }
      }
      guard case .data(let bytes)? = try archivedField(value, "NSUUID", "NS.uuidbytes"),
        bytes.count == 16
      else { return nil }
      let raw = [UInt8](bytes)
      let uuid = UUID(
        uuid: (
          raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9],
          raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]
        ))
      return .uuid(uuid)
    case .uri:
      if let text = try archivedString(value, node, of: what) {
        return URL(string: text).map { .uri($0) }
      }
      guard let url = try archivedInstance(value), url.className == "NSURL",
        try archive.resolve(url["NS.base"]) == nil,
        let text = try archive.string(url["NS.relative"], for: "the default value of \(what)")
      else { return nil }
      return URL(string: text).map { .uri($0) }
    case .transformable, .objectID, .composite, .undefined:
      return nil
    }
  }

  /// The string a default value is: a string object or an NSString; `nil` for anything else.
  private func archivedString(_ value: PropertyListNode?, _ node: PropertyListNode, of what: String)
    throws(StoreError) -> String?
  {
    if case .string(let text) = node { return text }
    guard let instance = try archivedInstance(value),
      ["NSString", "NSMutableString"].contains(instance.className)
    else { return nil }
    return try archive.string(value, for: "the default value of \(what)")
  }

  /// The value of `key` in the archived instance `value` refers to, when it is of `className`
  /// (or `className` without `Mutable`).
  private func archivedField(_ value: PropertyListNode?, _ className: String, _ key: String)
    throws(StoreError) -> PropertyListNode?
  {
    guard let instance = try archivedInstance(value),
      instance.className == className
        || instance.className == className.replacingOccurrences(of: "Mutable", with: "")
    else { return nil }
    return try archive.resolve(instance[key])
  }

  /// The archived instance `value` refers to; `nil` when it refers to anything else.
  private func archivedInstance(_ value: PropertyListNode?) throws(StoreError)
    -> ModelCacheArchive.Instance?
  {
    guard case .dictionary(let fields)? = try archive.resolve(value), fields["$class"] != nil
    else { return nil }
    return try archive.instance(value)
  }
}
