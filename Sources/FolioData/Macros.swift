/// Makes a class an entity, as SwiftData's `@Model` does: each stored `var` with a written type
/// becomes a persisted property (an attribute, or a relationship when its type is another
/// `@Model` class, optional or an array of them), read and written through the object's
/// context once it has one; the class conforms to ``PersistentModel``.
///
/// ```swift
/// @Model final class Trip {
///   var name: String
///   var start: Date = Date.now
///   @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
///   @Transient var isExpanded = false
///   init(name: String) { self.name = name }
/// }
/// ```
///
/// Computed properties, `let`s, static properties and `@Transient` ones are left alone. A
/// persisted property needs its type written out, and cannot have `willSet` or `didSet`.
///
/// A `@Model` class may inherit from another: it is a subentity of the superclass's entity.
/// `@Model` takes the first type of the inheritance clause as the superclass unless it is a
/// common protocol (`Codable`, `Hashable`, `Sendable`, …); declare other conformances in an
/// extension.
@attached(
  member,
  names: named(_$backing), named(init(backing:)), named(schemaMetadata), named(schemaConstraints),
  named(_$flushPendingValues), named(_$propertyKeyPaths), prefixed(_$keyPathsOf))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel)
public macro Model() = #externalMacro(module: "FolioDataMacros", type: "ModelMacro")

/// Sets how a `@Model` class's property is stored: unique, kept outside the store, its old
/// name (for migration) and its version hash modifier.
@attached(peer)
public macro Attribute(
  _ options: Schema.Attribute.Option..., originalName: String? = nil,
  hashModifier: String? = nil
) = #externalMacro(module: "FolioDataMacros", type: "MarkerMacro")

/// Sets how a `@Model` class's relationship behaves: its delete rule, its bounds, its inverse,
/// its old name and its version hash modifier.
@attached(peer)
public macro Relationship(
  _ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify,
  minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil,
  inverse: AnyKeyPath? = nil, hashModifier: String? = nil
) = #externalMacro(module: "FolioDataMacros", type: "MarkerMacro")

/// Leaves a stored property of a `@Model` class out of the store: an ordinary stored property.
@attached(peer)
public macro Transient() = #externalMacro(module: "FolioDataMacros", type: "MarkerMacro")

/// What `@Model` puts on each persisted property: accessors over the object's backing.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _FolioPersisted() =
  #externalMacro(module: "FolioDataMacros", type: "PersistedPropertyMacro")

/// What `@Model` puts on each persisted property of a subclass of another `@Model` class:
/// accessors over the object's backing, and storage for the value its initializer sets.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _FolioSubclassPersisted() =
  #externalMacro(module: "FolioDataMacros", type: "SubclassPersistedPropertyMacro")

/// Makes each group of a `@Model` class's properties unique together, as SwiftData's
/// `#Unique`: an object inserted with the values of a saved one updates it (an upsert).
///
/// ```swift
/// @Model final class Person {
///   #Unique<Person>([\.email], [\.firstName, \.lastName])
///   …
/// }
/// ```
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) =
  #externalMacro(module: "FolioDataMacros", type: "ConstraintMacro")

/// Indexes each group of a `@Model` class's properties in the store, as SwiftData's `#Index`.
@freestanding(declaration)
public macro Index<T>(_ indexes: [PartialKeyPath<T>]...) =
  #externalMacro(module: "FolioDataMacros", type: "ConstraintMacro")
