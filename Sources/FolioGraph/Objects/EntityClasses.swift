import FolioModel

extension ManagedObjectModel {
  /// Registers the classes of entities, so that contexts created on the model afterwards
  /// instantiate them for every insert, fetch and load.
  ///
  /// Each class names its entity with ``ManagedObject/entityName`` (by default the class's own
  /// name; a class that does not override it, below one that does, goes by its own name too);
  /// failing an entity of that name, the entity whose `representedClassName` is that name,
  /// module prefix aside. An entity without a class of its own gets its nearest
  /// ancestor's, so a fetch of an entity's objects returns instances of its class. Registering
  /// a class again is harmless.
  ///
  /// ```swift
  /// var model = try ManagedObjectModel(contentsOf: modelURL)
  /// try model.register(LibraryEntities.classes)
  /// let context = ManagedObjectContext(model: model)
  /// ```
  ///
  /// - Throws: `GraphError.invalidClass` when a class has no entity, an entity already has
  ///   another class, or class inheritance does not follow entity inheritance (`Book`'s class
  ///   must subclass the class of `Book`'s nearest ancestor entity that has one, and only that
  ///   registered class); the model is then unchanged.
  public mutating func register(_ classes: [ManagedObject.Type]) throws(GraphError) {
    var table = entityClasses
    for type in classes {
      let entity = try entityName(for: type)
      if let existing: AnyClass = table.byEntity[entity],
        ObjectIdentifier(existing) != ObjectIdentifier(type)
      {
        throw GraphError(
          .invalidClass,
          "entity \"\(entity)\" already has the class \(existing); \(type) cannot be registered for it too",
          at: InputLocation(entity: entity))
      }
      table.byEntity[entity] = type
    }
    try checkInheritance(of: table)
    entityClasses = table
  }

  /// The class registered for `entityName`'s objects: its own, or else its nearest ancestor's;
  /// `nil` when the entity's objects are plain ``ManagedObject``s.
  public func registeredClass(forEntityName entityName: String) -> ManagedObject.Type? {
    guard let entity = entity(named: entityName) else { return nil }
    return ([entity.name] + ancestorNames(of: entity)).lazy.compactMap {
      self.entityClasses.byEntity[$0] as? ManagedObject.Type
    }.first
  }

  private func entityName(for type: ManagedObject.Type) throws(GraphError) -> String {
    guard type != ManagedObject.self else {
      throw GraphError(
        .invalidClass, "ManagedObject itself cannot be registered: register its subclasses")
    }
    let name = type.declaredEntityName
    if entity(named: name) != nil { return name }
    let representing = entities.filter { entity in
      guard let className = entity.representedClassName else { return false }
      return className.split(separator: ".").last.map(String.init) == name
    }
    if representing.count == 1 { return representing[0].name }
    throw GraphError(
      .invalidClass,
      "the model has no entity \"\(name)\" for the class \(type)\(nameSuggestion(for: name, among: entities.map(\.name)))",
      at: InputLocation(entity: name))
  }

  /// Checks that each registered class's nearest registered superclass is the class of its
  /// entity's nearest ancestor that has one.
  private func checkInheritance(of table: EntityClassTable) throws(GraphError) {
    var entityByClass: [ObjectIdentifier: String] = [:]
    for (entity, type): (String, AnyClass) in table.byEntity {
      entityByClass[ObjectIdentifier(type)] = entity
    }
    for entity in entities {
      guard let type: AnyClass = table.byEntity[entity.name] else { continue }
      let ancestorWithClass = ancestorNames(of: entity).first { table.byEntity[$0] != nil }
      var superclass: AnyClass? = _getSuperclass(type)
      var superclassEntity: String?
      while let candidate = superclass, superclassEntity == nil {
        superclassEntity = entityByClass[ObjectIdentifier(candidate)]
        superclass = _getSuperclass(candidate)
      }
      guard superclassEntity != ancestorWithClass else { continue }
      let message: String
      if let ancestorWithClass, let ancestorClass = table.byEntity[ancestorWithClass] {
        message =
          "\(type), the class of \"\(entity.name)\", must subclass \(ancestorClass), the class of its ancestor entity \"\(ancestorWithClass)\""
      } else if let superclassEntity {
        message =
          "\(type), the class of \"\(entity.name)\", subclasses the class of \"\(superclassEntity)\", which is not an ancestor of \"\(entity.name)\""
      } else {
        continue
      }
      throw GraphError(.invalidClass, message, at: InputLocation(entity: entity.name))
    }
  }
}

extension Identifiable where Self: ManagedObject {
  /// The object's ID: an entity class that declares `Identifiable` is identified by its
  /// objects' IDs, unless its entity has an attribute `id` of its own.
  public var id: ManagedObjectID { objectID }
}

extension ManagedObject {
  /// The entity name this class goes by: its ``entityName``, unless that is inherited.
  ///
  /// A class that does not override `entityName` inherits its superclass's, which names
  /// another entity (each entity has one class): such a class goes by its own name.
  static var declaredEntityName: String {
    let inherited = (_getSuperclass(self) as? ManagedObject.Type)?.entityName
    return entityName == inherited ? String(describing: self) : entityName
  }
}
