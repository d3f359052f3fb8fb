import FolioModel
import FolioQuery
import Foundation

/// Model key strings for Swift key paths of entity classes: `\Book.author.name` is
/// `"author.name"`.
///
/// An entity class's properties are computed (they read the object's slots by key), so a key
/// path carries no property name to read. The name is found by evaluating the key path on a
/// *recorder*: an instance of the class, outside any model, whose typed accessors note the key
/// they are asked for and return an empty value (a relationship returns another recorder, so
/// the next step of the path is noted too). A key path that reads no model property, or several
/// at one step (`\Person.fullName` built from two attributes), names none.
final class KeyPathRecording {
  struct Step {
    let object: ObjectIdentifier
    let key: String
    var produced: ObjectIdentifier?
  }

  var steps: [Step] = []

  /// A model with one empty entity: what recorders are instances of.
  private static let model: ManagedObjectModel = {
    do {
      return try ManagedObjectModel(entities: [EntityDescription("KeyPathRecorder")])
    } catch {
      fatalError("the key path recorder's model does not load: \(error)")
    }
  }()

  /// The key string of `keyPath`, or `nil` when it is not a chain of model properties.
  static func name<Root: ManagedObject>(of keyPath: PartialKeyPath<Root>) -> String? {
    let context = ManagedObjectContext(model: model, undoManager: nil)
    let recording = KeyPathRecording()
    context.keyPathRecording = recording
    let root: Root = recorder(in: context)
    _ = root[keyPath: keyPath]
    var expected: ObjectIdentifier? = ObjectIdentifier(root)
    for (index, step) in recording.steps.enumerated() {
      guard step.object == expected else { return nil }
      expected = step.produced
      if index < recording.steps.count - 1, expected == nil { return nil }
    }
    let keys = recording.steps.map(\.key)
    return keys.isEmpty ? nil : keys.joined(separator: ".")
  }

  /// A recorder of class `Target`.
  static func recorder<Target: ManagedObject>(in context: ManagedObjectContext) -> Target {
    let object = Target(
      ManagedObject.Initialization(
        context: context, layout: context.layouts[0], row: -1, committed: nil))
    object.flags.insert(.recorder)
    return object
  }

  /// Values some type of each attribute family reads as, for a recorder's non-optional
  /// properties of types that have no empty value (`String`, `Date`…).
  static let placeholders: [AttributeValue] = [
    .string(""), .date(Date(timeIntervalSinceReferenceDate: 0)), .binaryData(Data()),
    .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))), .decimal(0),
    .integer(0), .double(0), .float(0), .boolean(false), .uri(URL(fileURLWithPath: "/")),
  ]
}

extension ManagedObject {
  /// Notes that a recorder was asked for `key` (producing `produced`, for a relationship).
  final func record(_ key: String, producing produced: ManagedObject? = nil) {
    owner?.keyPathRecording?.steps.append(
      KeyPathRecording.Step(
        object: ObjectIdentifier(self), key: key, produced: produced.map(ObjectIdentifier.init)))
  }

  /// The model key string of `keyPath`: `"author.name"` for `\Book.author?.name`; `nil` when
  /// the key path does not follow model properties (a property of the class's own, or one
  /// computed from several). Steps past the model's properties are not seen:
  /// `\Book.chapters.count` names `"chapters"` (write `"chapters.@count"` as a string).
  public static func keyString<Root: ManagedObject>(for keyPath: PartialKeyPath<Root>) -> String? {
    KeyPathRecording.name(of: keyPath)
  }
}

/// The key string of `keyPath`, or a stop naming it: a key path that names no model property
/// is a programming error, as Core Data's `#keyPath` would not compile.
func modelKey<Root: ManagedObject>(_ keyPath: PartialKeyPath<Root>) -> String {
  guard let name = ManagedObject.keyString(for: keyPath) else {
    fatalError(
      "\(keyPath) does not name a property of \(Root.self)'s entity, or a chain of them")
  }
  return name
}

extension QuerySortDescriptor {
  /// Orders by the model property `keyPath` names (`\Book.year`, `\Book.author.name`).
  ///
  /// ```swift
  /// var request = Book.fetchRequest()
  /// request.sortDescriptors = [QuerySortDescriptor(\Book.year, ascending: false)]
  /// ```
  public init<Root: ManagedObject, Value>(
    _ keyPath: KeyPath<Root, Value>, ascending: Bool = true, comparison: Comparison = .default
  ) {
    self.init(keyPath: modelKey(keyPath), ascending: ascending, comparison: comparison)
  }
}

extension QueryExpression {
  /// The model property `keyPath` names, in a predicate built in code:
  /// `.key(\Book.year) > 1960`.
  public static func key<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>)
    -> QueryExpression
  {
    .keyPath(modelKey(keyPath))
  }
}

extension QueryPredicate {
  /// The model property `keyPath` names, to start a comparison where a predicate is
  /// expected: `.key(\Book.title).contains("dune", .caseInsensitive)`.
  public static func key<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>)
    -> QueryExpression
  {
    .keyPath(modelKey(keyPath))
  }
}
