import FolioModel
import FolioStores
import FolioXMLStore
import Foundation

/// A mapping model as Xcode's mapping editor saves it (`.xcmappingmodel`), and the two model
/// versions it maps between.
///
/// An `.xcmappingmodel` is a folder holding `xcmapping.xml`: a Core Data XML store of Xcode's
/// own mapping entities (`Formats/xcmappingmodel.md` specifies it). Reading it gives a
/// ``MappingModel`` in which
///
/// - the entity mappings are the ones reachable from the store's root object (leftovers of
///   editing are ignored), in the order of their mapping numbers;
/// - each entity mapping without a stored name is named `<Source>To<Destination>`, as Xcode
///   names it (`MoodToMood`); an added entity's mapping, which has no source, is named
///   `To<Destination>`;
/// - the mapping type, which Xcode does not store, is ``EntityMapping/MappingType/add`` without
///   a source entity, ``EntityMapping/MappingType/remove`` without a destination entity,
///   ``EntityMapping/MappingType/custom`` with a migration policy, and
///   ``EntityMapping/MappingType/transform`` otherwise;
/// - the property mappings are sorted by name; a relationship row's Key Path and Mapping Name
///   fields become `FUNCTION($manager,
///   "destinationInstancesForEntityMappingNamed:sourceInstances:", "<Mapping Name>",
///   <Key Path>)`; and a row that stores no expression is marked
///   ``PropertyMapping/usesDefaultExpression``: its expression is Xcode's default, which
///   depends on the source model (see ``MappingModel/resolvingDefaultExpressions(sourceModel:)``).
///
/// ```swift
/// let mapping = try XcodeMappingModel(
///   contentsOf: URL(fileURLWithPath: "Moody 2-Moody 3.xcmappingmodel"), sourceModel: moody2)
/// print(mapping.sourceModelName, mapping.destinationModelName)  // Moody 2 Moody 3
/// print(mapping.mappingModel.entityMappings.map(\.name))
/// // ["MoodToMood", "CountryToCountry", "ContinentToContinent"]
/// ```
public struct XcodeMappingModel: Sendable, Hashable {
  /// The mapping.
  public var mappingModel: MappingModel
  /// The source model version's path as Xcode recorded it, relative to the project and without
  /// a leading `/`: `"Migrations/Moody.xcdatamodeld/Moody 2.xcdatamodel"`. It may name a
  /// file that no longer exists.
  public var sourceModelPath: String
  /// The destination model version's path as Xcode recorded it:
  /// `"Migrations/Moody.xcdatamodeld/Moody 3.xcdatamodel"`.
  public var destinationModelPath: String

  init(mappingModel: MappingModel, sourceModelPath: String, destinationModelPath: String) {
    self.mappingModel = mappingModel
    self.sourceModelPath = sourceModelPath
    self.destinationModelPath = destinationModelPath
  }

  /// The source model version's name: the last component of ``sourceModelPath`` without
  /// `.xcdatamodel` (`"Moody 2"`), as `ModelBundle.versionIndex(named:)` takes it.
  public var sourceModelName: String { Self.versionName(of: sourceModelPath) }

  /// The destination model version's name: the last component of ``destinationModelPath``
  /// without `.xcdatamodel` (`"Moody 3"`).
  public var destinationModelName: String { Self.versionName(of: destinationModelPath) }

  private static func versionName(of path: String) -> String {
    let last = path.split(separator: "/").last.map(String.init) ?? path
    return last.hasSuffix(".xcdatamodel") ? String(last.dropLast(".xcdatamodel".count)) : last
  }

  /// Reads the mapping model at `url`: an `.xcmappingmodel` folder, or the `xcmapping.xml`
  /// file in one.
  ///
  /// With `sourceModel`, the rows Xcode stores without an expression get Xcode's default
  /// (``MappingModel/resolvingDefaultExpressions(sourceModel:)``): `$source.<name>` for an
  /// attribute, and `FUNCTION($manager,
  /// "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "<name>",
  /// $source.<name>)` for a relationship, when the source entity has a property of that name
  /// and kind; no expression otherwise. Without it, those rows keep no expression and are
  /// marked ``PropertyMapping/usesDefaultExpression``, to be resolved before migrating.
  ///
  /// - Parameters:
  ///   - url: The `.xcmappingmodel` folder or its `xcmapping.xml`.
  ///   - sourceModel: The model version the mapping migrates from, or `nil`.
  /// - Throws: `MappingModelError` naming the file and, where it applies, the entity mapping,
  ///   the property mapping and the object's ID in the file — `.notFound`, `.unreadable`;
  ///   `.malformedFile` when the file is not a Core Data XML store (not XML, not well-formed;
  ///   with line and column); `.notAMappingModel` for a store of other entities;
  ///   `.malformedMapping` (no root object or several, an entity mapping without entity
  ///   names, a property mapping without a name or with a name used twice);
  ///   `.malformedExpression` for a stored expression that is not a keyed archive of an
  ///   expression; `.unsupportedExpression` for an expression of a kind Folio does not read,
  ///   or a custom source fetch; `.modelMismatch` when `sourceModel` lacks a source entity.
  /// - Complexity: O(*n*) in the size of the file.
  public init(contentsOf url: URL, sourceModel: ManagedObjectModel? = nil)
    throws(MappingModelError)
  {
    let file = try Self.mappingFile(at: url)
    let metadata: StoreMetadata
    do {
      metadata = try XMLStore().readMetadata(from: file)
    } catch {
      throw MappingModelError.store(error)
    }
    let names = Array(metadata.modelVersionHashes.keys)
    if !names.isEmpty, !names.contains(XcodeMappingSchema.mappingModel) {
      throw MappingModelError.foreignEntities(names, file: file.path)
    }
    let contents: StoreContents
    do {
      let store = XMLStore(dropsDanglingReferences: false, checksVersionHashes: false)
      contents = try store.read(from: file, model: XcodeMappingSchema.model)
    } catch {
      throw MappingModelError.store(error)
    }
    let reader = XcodeMappingReader(records: contents.records, file: file.path)
    self = try reader.read()
    if let sourceModel {
      mappingModel = try mappingModel.resolvingDefaultExpressions(sourceModel: sourceModel)
    }
  }

  /// The `xcmapping.xml` that `url` names or holds.
  private static func mappingFile(at url: URL) throws(MappingModelError) -> URL {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
      throw MappingModelError.notFound(url.path)
    }
    guard isFolder.boolValue else { return url }
    let file = url.appendingPathComponent("xcmapping.xml")
    guard FileManager.default.fileExists(atPath: file.path) else {
      throw MappingModelError.noMappingFile(in: url.path)
    }
    return file
  }
}

extension MappingModel {
  /// Reads the mapping of the Xcode mapping model at `url`: an `.xcmappingmodel` folder, or
  /// the `xcmapping.xml` file in one.
  ///
  /// The mapping of ``XcodeMappingModel/init(contentsOf:sourceModel:)``, which describes how
  /// it is read and what it throws; use that type to learn the model versions the file names.
  ///
  /// - Parameters:
  ///   - url: The `.xcmappingmodel` folder or its `xcmapping.xml`.
  ///   - sourceModel: The model version the mapping migrates from, which decides the default
  ///     expression of rows that store none; without it those rows are left marked
  ///     ``PropertyMapping/usesDefaultExpression``.
  /// - Throws: `MappingModelError`, as ``XcodeMappingModel/init(contentsOf:sourceModel:)``.
  public init(contentsOf url: URL, sourceModel: ManagedObjectModel? = nil)
    throws(MappingModelError)
  {
    self = try XcodeMappingModel(contentsOf: url, sourceModel: sourceModel).mappingModel
  }
}
