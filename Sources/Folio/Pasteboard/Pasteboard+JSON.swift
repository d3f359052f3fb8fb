internal import FolioSupport
import Foundation

/// The pasteboard as JSON (`Formats/pasteboard.md`).
extension Pasteboard {
  /// The format's name, the value of `format`.
  static let formatName = "folio-pasteboard"
  /// The version this build writes, and the newest it reads.
  static let formatVersion = 1

  /// The pasteboard as JSON, compact, on one line: the same pasteboard gives the same bytes.
  public func data() -> Data {
    var bytes: [UInt8] = []
    json.append(to: &bytes)
    return Data(bytes)
  }

  private var json: JSONValue {
    .object([
      JSONMember("format", .string(Self.formatName)),
      JSONMember("version", .number(String(Self.formatVersion))),
      JSONMember("store", storeIdentifier.map(JSONValue.string) ?? .null),
      JSONMember(
        "entities",
        .object(
          entityHashes.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) })),
      JSONMember("roots", .array(roots.map { .number(String($0)) })),
      JSONMember("objects", .array(objects.map(\.json))),
    ])
  }

  /// Reads a pasteboard that ``data()`` wrote, here or in another process.
  ///
  /// Only the shape is checked here: that the entities, keys and values fit a model is checked
  /// by ``ManagedObjectContext/paste(_:)``, against the context's.
  ///
  /// - Throws: `PasteboardError.malformed`, naming the line and column of JSON that does not
  ///   parse, or the JSON path of a part of the wrong shape; `.unsupportedFormat` for another
  ///   format or a newer version.
  public init(data: Data) throws(PasteboardError) {
    let json: JSONValue
    do {
      json = try JSONReader.parse(Array(data), maximumDepth: 64)
    } catch {
      throw PasteboardError(
        .malformed, "not JSON: \(error.reason) at line \(error.line), column \(error.column)",
        at: InputLocation(line: error.line, column: error.column, byteOffset: error.offset))
    }
    let reader = ShapeReader()
    self = try reader.pasteboard(json)
  }
}

extension CopiedObject {
  fileprivate var json: JSONValue {
    var members = [JSONMember("entity", .string(entity))]
    if let uri { members.append(JSONMember("uri", .string(uri))) }
    members.append(JSONMember("attributes", .object(attributes)))
    members.append(
      JSONMember(
        "relationships",
        .object(
          relationships.map { relationship in
            let targets = relationship.targets.map(\.json)
            return JSONMember(
              relationship.name,
              relationship.isToMany ? .array(targets) : (targets.first ?? .null))
          })))
    return .object(members)
  }
}

extension CopiedReference {
  fileprivate var json: JSONValue {
    switch self {
    case .copied(let index): .number(String(index))
    case .outside(let uri): .string(uri)
    }
  }
}

/// Checks a pasteboard's JSON against the format's shape, naming the JSON path of what does
/// not fit.
private struct ShapeReader {
  func pasteboard(_ json: JSONValue) throws(PasteboardError) -> Pasteboard {
    let top = try members(
      of: json, at: "",
      allowed: [
        "format", "version", "store", "entities", "roots", "objects",
      ])
    guard case .string(let format)? = top["format"] else {
      throw PasteboardError(
        .unsupportedFormat, "not a pasteboard: \"format\" is not \"\(Pasteboard.formatName)\"")
    }
    guard format == Pasteboard.formatName else {
      throw PasteboardError(
        .unsupportedFormat,
        "the format is \"\(format)\", not \"\(Pasteboard.formatName)\"")
    }
    let version = try integer(top["version"], at: "version")
    guard version >= 1 else { throw .malformed("version", "\(version) is not a version") }
    guard version <= Pasteboard.formatVersion else {
      throw PasteboardError(
        .unsupportedFormat,
        "version \(version) of the pasteboard format is newer than this build reads (\(Pasteboard.formatVersion))"
      )
    }
    let store: String?
    switch top["store"] {
    case .string(let text)?: store = text
    case .null?: store = nil
    default: throw .malformed("store", "expected the store's identifier or null")
    }
    guard case .object(let entityMembers)? = top["entities"] else {
      throw .malformed("entities", "expected an object of entity names and version hashes")
    }
    var hashes: [String: String] = [:]
    for member in entityMembers {
      guard case .string(let hash) = member.value, hash.utf8.count == 64,
        hash.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
      else {
        throw .malformed(
          "entities.\(member.name)", "expected a version hash: 64 lowercase hexadecimal digits")
      }
      hashes[member.name] = hash
    }
    guard case .array(let objectValues)? = top["objects"] else {
      throw .malformed("objects", "expected an array of objects")
    }
    var objects: [CopiedObject] = []
    for (index, value) in objectValues.enumerated() {
      objects.append(
        try object(value, at: "objects[\(index)]", count: objectValues.count, hashes: hashes))
    }
    guard case .array(let rootValues)? = top["roots"] else {
      throw .malformed("roots", "expected an array of indices into objects")
    }
    var roots: [Int] = []
    for (position, value) in rootValues.enumerated() {
      let root = try self.index(value, at: "roots[\(position)]", count: objects.count)
      guard !roots.contains(root) else {
        throw .malformed("roots[\(position)]", "object \(root) is a root twice")
      }
      roots.append(root)
    }
    return Pasteboard(
      storeIdentifier: store, entityHashes: hashes, roots: roots, objects: objects)
  }

  private func object(_ json: JSONValue, at path: String, count: Int, hashes: [String: String])
    throws(PasteboardError) -> CopiedObject
  {
    let fields = try members(
      of: json, at: path, allowed: ["entity", "uri", "attributes", "relationships"])
    guard case .string(let entity)? = fields["entity"] else {
      throw .malformed("\(path).entity", "expected the object's entity name")
    }
    guard hashes[entity] != nil else {
      throw .malformed("\(path).entity", "\"\(entity)\" is not listed in entities")
    }
    var uri: String?
    switch fields["uri"] {
    case nil: break
    case .string(let text)?: uri = text
    default: throw .malformed("\(path).uri", "expected the object's URI")
    }
    guard case .object(let attributes)? = fields["attributes"] else {
      throw .malformed("\(path).attributes", "expected an object of attribute values")
    }
    guard case .object(let relationshipMembers)? = fields["relationships"] else {
      throw .malformed("\(path).relationships", "expected an object of relationships")
    }
    var relationships: [CopiedRelationship] = []
    for member in relationshipMembers {
      let place = "\(path).relationships.\(member.name)"
      switch member.value {
      case .null:
        relationships.append(CopiedRelationship(name: member.name, isToMany: false, targets: []))
      case .array(let items):
        var targets: [CopiedReference] = []
        for (position, item) in items.enumerated() {
          targets.append(try reference(item, at: "\(place)[\(position)]", count: count))
        }
        relationships.append(
          CopiedRelationship(name: member.name, isToMany: true, targets: targets))
      default:
        relationships.append(
          CopiedRelationship(
            name: member.name, isToMany: false,
            targets: [try reference(member.value, at: place, count: count)]))
      }
    }
    return CopiedObject(
      entity: entity, uri: uri, attributes: attributes, relationships: relationships)
  }

  private func reference(_ json: JSONValue, at path: String, count: Int)
    throws(PasteboardError) -> CopiedReference
  {
    if case .string(let text) = json {
      guard text.hasPrefix("x-coredata://"), URL(string: text) != nil else {
        throw .malformed(path, "\"\(text)\" is not an object URI")
      }
      return .outside(text)
    }
    guard case .number = json else {
      throw .malformed(path, "expected an index into objects or an object URI")
    }
    return .copied(try index(json, at: path, count: count))
  }

  private func index(_ json: JSONValue, at path: String, count: Int) throws(PasteboardError) -> Int
  {
    let value = try integer(json, at: path)
    guard (0..<count).contains(value) else {
      throw .malformed(path, "\(value) is not an index into objects (0..<\(count))")
    }
    return value
  }

  private func integer(_ json: JSONValue?, at path: String) throws(PasteboardError) -> Int {
    guard case .number(let text)? = json, let value = Int(text) else {
      throw .malformed(path, "expected an integer")
    }
    return value
  }

  /// The members of `json`, an object whose names are all `allowed`.
  private func members(of json: JSONValue, at path: String, allowed: Set<String>)
    throws(PasteboardError) -> [String: JSONValue]
  {
    guard case .object(let members) = json else {
      throw .malformed(path, "expected an object, found \(json.kindDescription)")
    }
    var byName: [String: JSONValue] = [:]
    for member in members {
      guard allowed.contains(member.name) else {
        throw .malformed(
          path.isEmpty ? member.name : "\(path).\(member.name)",
          "unknown member \"\(member.name)\"")
      }
      byName[member.name] = member.value
    }
    return byName
  }
}
