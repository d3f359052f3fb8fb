import FolioModel
import FolioQuery
import FolioStores
import Foundation

/// An error reading a mapping model: a file that is missing or is not an Xcode mapping model,
/// a mapping or value expression Folio cannot read, or expression format text that does not
/// parse.
///
/// ``location`` names the place. For a file it is the file with, where known, the line and
/// column (`xcmapping.xml:12:5`), and the entity mapping and property mapping concerned as
/// `Mapping.property` (`xcmapping.xml: EmployeeToCompany.name`); messages about one object of
/// the file name its ID in the file (`object z104`). For format text it is the 1-based column
/// of the bad token (`column 12`). The static factories below are the only places that word a
/// message, but for format text, whose messages are FolioQuery's (its grammar reads the text);
/// the tests assert them word for word.
public typealias MappingModelError = CodedError<MappingModelErrorCode>

/// What went wrong in a `MappingModelError`, to switch on: `MappingModelError.Code`.
public struct MappingModelErrorCode: Hashable, Sendable, CustomStringConvertible {
  /// No mapping model at the path.
  public static let notFound = MappingModelErrorCode(.notFound)
  /// The file exists but could not be read.
  public static let unreadable = MappingModelErrorCode(.unreadable)
  /// The file is not a Core Data XML store: not XML, not well-formed, or not laid out as a
  /// store.
  public static let malformedFile = MappingModelErrorCode(.malformedFile)
  /// The file is a Core Data XML store of other entities than Xcode's mapping entities.
  public static let notAMappingModel = MappingModelErrorCode(.notAMappingModel)
  /// The objects of the store do not form a mapping model: no root object or several, an
  /// entity mapping that names no entity, a property mapping without a name.
  public static let malformedMapping = MappingModelErrorCode(.malformedMapping)
  /// A stored value expression is not a keyed archive of an expression.
  public static let malformedExpression = MappingModelErrorCode(.malformedExpression)
  /// A stored value expression, or a mapping setting, is of a kind Folio does not read.
  public static let unsupportedExpression = MappingModelErrorCode(.unsupportedExpression)
  /// Expression format text that does not parse.
  public static let syntax = MappingModelErrorCode(.syntax)
  /// The source model given does not have an entity that the mapping model takes objects of.
  public static let modelMismatch = MappingModelErrorCode(.modelMismatch)

  private enum Kind: Hashable, Sendable {
    case notFound, unreadable, malformedFile, notAMappingModel, malformedMapping,
      malformedExpression, unsupportedExpression, syntax, modelMismatch
  }

  private var kind: Kind

  private init(_ kind: Kind) { self.kind = kind }

  /// The member's name: `notFound`.
  public var description: String { "\(kind)" }
}

/// Where in a mapping model file something was found: the file, the entity mapping and
/// property mapping, and the object's ID in the file.
struct MappingPlace {
  var file: String
  var entityMapping: String?
  var propertyMapping: String?
  /// The object's ID as the file writes it (`z104`).
  var objectID: String?

  var location: InputLocation {
    InputLocation(file: file, entity: entityMapping, property: propertyMapping)
  }

  /// `object z104: `, or nothing when the object is not known.
  var objectPrefix: String { objectID.map { "object \($0): " } ?? "" }
}

extension MappingModelError {
  // MARK: The file

  static func notFound(_ path: String) -> MappingModelError {
    MappingModelError(.notFound, "no mapping model at this path", at: InputLocation(file: path))
  }

  static func noMappingFile(in folder: String) -> MappingModelError {
    MappingModelError(
      .notFound, "the folder has no \"xcmapping.xml\"; an .xcmappingmodel folder holds one",
      at: InputLocation(file: folder))
  }

  /// The error for a store error met reading the file, keeping its location and cause.
  static func store(_ error: StoreError) -> MappingModelError {
    switch error.code {
    case .notFound:
      return MappingModelError(.notFound, error.message, at: error.location, underlying: error)
    case .unreadable:
      return MappingModelError(.unreadable, error.message, at: error.location, underlying: error)
    case .modelMismatch:
      return MappingModelError(
        .notAMappingModel, "not an Xcode mapping model: \(error.message)", at: error.location,
        underlying: error)
    default:
      return MappingModelError(
        .malformedFile, "not a Core Data XML store: \(error.message)", at: error.location,
        underlying: error)
    }
  }

  static func foreignEntities(_ names: [String], file: String) -> MappingModelError {
    let listed = names.sorted().prefix(5).map { "\"\($0)\"" }.joined(separator: ", ")
    let more = names.count > 5 ? " and \(names.count - 5) more" : ""
    return MappingModelError(
      .notAMappingModel,
      "not an Xcode mapping model: the store's model has the entities \(listed)\(more) and no"
        + " \"XDDevMappingModel\"",
      at: InputLocation(file: file))
  }

  // MARK: The object graph

  static func rootCount(_ count: Int, file: String) -> MappingModelError {
    MappingModelError(
      .malformedMapping,
      count == 0
        ? "the store has no XDDevMappingModel object, the root of a mapping model"
        : "the store has \(count) XDDevMappingModel objects; a mapping model has one root",
      at: InputLocation(file: file))
  }

  static func duplicateEntityMapping(_ name: String, at place: MappingPlace) -> MappingModelError {
    MappingModelError(
      .malformedMapping,
      "\(place.objectPrefix)two entity mappings are named \"\(name)\"; a mapping is found by"
        + " its name, so each needs its own",
      at: place.location)
  }

  static func noEntityNames(at place: MappingPlace) -> MappingModelError {
    MappingModelError(
      .malformedMapping,
      "\(place.objectPrefix)the entity mapping names neither a source nor a destination entity",
      at: place.location)
  }

  static func unnamedPropertyMapping(_ kind: String, at place: MappingPlace) -> MappingModelError {
    MappingModelError(
      .malformedMapping, "\(place.objectPrefix)the \(kind) mapping has no name", at: place.location)
  }

  static func duplicatePropertyMapping(_ name: String, at place: MappingPlace)
    -> MappingModelError
  {
    MappingModelError(
      .malformedMapping,
      "\(place.objectPrefix)the entity mapping has two property mappings named \"\(name)\"",
      at: place.location)
  }

  static func customSourceExpression(at place: MappingPlace) -> MappingModelError {
    MappingModelError(
      .unsupportedExpression,
      "\(place.objectPrefix)the entity mapping fetches its source objects with a custom source "
        + "expression, which Folio does not read",
      at: place.location)
  }

  static func keyPathWithoutMappingName(_ keyPath: String, at place: MappingPlace)
    -> MappingModelError
  {
    MappingModelError(
      .unsupportedExpression,
      "\(place.objectPrefix)the relationship mapping has the key path \"\(keyPath)\" but no "
        + "mapping name to find the destination objects with",
      at: place.location)
  }

  static func badSourceKeyPath(_ keyPath: String, at place: MappingPlace, underlying: Self)
    -> MappingModelError
  {
    MappingModelError(
      .malformedMapping,
      "\(place.objectPrefix)the relationship mapping's key path \"\(keyPath)\" does not parse: "
        + underlying.locatedMessage,
      at: place.location, underlying: underlying)
  }

  static func missingSourceEntity(_ name: String, mapping: String) -> MappingModelError {
    MappingModelError(
      .modelMismatch,
      "the source model has no entity \"\(name)\", whose objects the mapping takes",
      at: InputLocation(entity: mapping))
  }

  // MARK: Archived expressions

  static func malformedExpression(
    _ detail: String, at place: MappingPlace, underlying: StoreError?
  ) -> MappingModelError {
    MappingModelError(
      .malformedExpression, "\(place.objectPrefix)the value expression \(detail)",
      at: place.location, underlying: underlying)
  }

  static func unsupportedExpression(_ className: String, detail: String, at place: MappingPlace)
    -> MappingModelError
  {
    MappingModelError(
      .unsupportedExpression,
      "\(place.objectPrefix)the value expression holds \(detail) of class \"\(className)\", "
        + "which Folio does not read",
      at: place.location)
  }

  // MARK: Format text

  /// The error for format text that does not parse: FolioQuery's error, whose grammar reads
  /// it, as a `.syntax` error at the same column with the same message.
  static func syntax(_ error: QueryError) -> MappingModelError {
    MappingModelError(.syntax, error.message, at: error.location, underlying: error)
  }
}
