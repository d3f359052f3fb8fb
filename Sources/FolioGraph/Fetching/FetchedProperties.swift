import FolioModel
import FolioQuery

/// Fetched properties: a fetch per object, evaluated on first access with `$FETCH_SOURCE` (the
/// object) and `$FETCHED_PROPERTY` (the property's description) in its predicate, and cached
/// until the object is refreshed — as in Core Data, later changes do not update the result.
extension ManagedObjectContext {
  /// The objects the fetched property at `slot` of `object` finds, from the cache or fetched
  /// now.
  ///
  /// - Throws: `GraphError.invalidPredicate` for a predicate that does not parse or uses
  ///   another variable; the fetch's errors.
  func fetchedObjects(
    of object: ManagedObject, slot: Int, property: FetchedPropertyDescription
  ) throws(GraphError) -> [ManagedObject] {
    if let cached = fetchedPropertyResults[object.row]?[slot] { return cached }
    var request = FetchRequest(entityName: property.entityName)
    if let text = property.predicateString, !text.isEmpty {
      do {
        request.predicate = try QueryPredicate(format: text).withSubstitutionVariables([
          "FETCH_SOURCE": object, "FETCHED_PROPERTY": FetchedPropertyVariable(property),
        ])
      } catch {
        throw GraphError(
          .invalidPredicate,
          "the fetched property's predicate \"\(text)\" cannot be used: \(error.message)",
          at: InputLocation(entity: object.entityName, property: property.name),
          underlying: error)
      }
    }
    let results = try fetch(request)
    fetchedPropertyResults[object.row, default: [:]][slot] = results
    return results
  }

  /// Forgets the fetched properties' results of the object at `row` (all objects' when `nil`),
  /// so that the next access fetches again.
  func forgetFetchedProperties(of row: Int32? = nil) {
    guard !fetchedPropertyResults.isEmpty else { return }
    if let row {
      fetchedPropertyResults[row] = nil
    } else {
      fetchedPropertyResults.removeAll()
    }
  }
}

/// `$FETCHED_PROPERTY`: the fetched property's description, read by key (`name`,
/// `entityName`, `userInfo.KEY`).
final class FetchedPropertyVariable: KeyValueReadable, CustomStringConvertible {
  let property: FetchedPropertyDescription

  init(_ property: FetchedPropertyDescription) { self.property = property }

  var description: String { "fetched property \(property.name)" }

  func value(forKeyPath keyPath: String) throws -> Any? {
    let steps = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
    switch steps.first {
    case "name" where steps.count == 1: return property.name
    case "entityName" where steps.count == 1: return property.entityName
    case "userInfo":
      let info = UserInfo(entries: property.userInfo)
      return steps.count == 1 ? info : try info.value(forKeyPath: steps[1])
    default:
      throw GraphError(
        .unknownKey, "$FETCHED_PROPERTY has no key \"\(keyPath)\": name, entityName, userInfo")
    }
  }

  /// A fetched property's user info, read by key; a missing key reads as nothing, as in a
  /// dictionary.
  final class UserInfo: KeyValueReadable {
    let entries: [String: String]
    init(entries: [String: String]) { self.entries = entries }
    func value(forKeyPath keyPath: String) throws -> Any? { entries[keyPath] }
  }
}

extension ManagedObject {
  /// The objects the fetched property `key` finds, as `Target`s: fetched on first access,
  /// then cached until the object is refreshed.
  ///
  /// A predicate that cannot be used is a programming error here (the model's), and traps
  /// naming `Entity.key`; ``value(forKey:)`` throws it instead.
  public final func fetchedObjects<Target: ManagedObject>(
    forKey key: String, as type: Target.Type = Target.self
  ) -> [Target] {
    if flags.contains(.recorder) {
      record(key)
      return []
    }
    guard let slot = layout.slotByName[key],
      case .fetched(let property) = layout.properties[slot].kind,
      let context = owner
    else { fatalError("\(entityName).\(key) is not a fetched property of an object in a context") }
    context.noteAccess(to: self, slot: slot)
    do {
      return try context.fetchedObjects(of: self, slot: slot, property: property).map {
        guard let typed = $0 as? Target else {
          fatalError("\(entityName).\(key) found a \($0.entityName) object, not a \(Target.self)")
        }
        return typed
      }
    } catch {
      fatalError("\(entityName).\(key) cannot be fetched: \(error.message)")
    }
  }
}
