import Observation

/// Swift Observation of managed objects: reading a property of an entity class inside
/// `withObservationTracking` is tracked, and every change to it notifies — by a setter, by
/// inverse maintenance, by undo, redo or rollback (all of which pass through the context's one
/// change point), and by a refresh, a merge or a save that reads committed values (which notify
/// for every property of the objects they read again).
///
/// Tracking is on when the context's ``ManagedObjectContext/tracksObservation`` is `true` (an
/// app's UI turns it on); it is off by default, so that a batch job pays nothing for it. Each
/// object tracked so far then has a registrar in its context, made when one of its properties
/// is first read through an entity class: objects only ever read by key cost nothing.
extension ManagedObject: Observable {}

extension ManagedObject {
  /// What Observation tracks for the property at `slot`: a key path per slot, the same in every
  /// object (each object has its own registrar).
  subscript(observedSlot slot: Int) -> Int { slot }
}

extension ManagedObjectContext {
  /// Tracks a read of `slot` of `object` for Observation.
  @inline(__always)
  func noteAccess(to object: ManagedObject, slot: Int) {
    guard tracksObservation else { return }
    let registrar: ObservationRegistrar
    if let existing = observationRegistrars[object.row] {
      registrar = existing
    } else {
      registrar = ObservationRegistrar()
      observationRegistrars[object.row] = registrar
    }
    registrar.access(object, keyPath: object.layout.observationKeyPaths[slot])
  }

  /// Tells the observers of `slot` of `object` that it is about to change.
  @inline(__always)
  func willChange(_ object: ManagedObject, slot: Int) {
    guard !observationRegistrars.isEmpty, let registrar = observationRegistrars[object.row] else {
      return
    }
    registrar.willSet(object, keyPath: object.layout.observationKeyPaths[slot])
  }

  /// Tells the observers of `slot` of `object` that it changed.
  @inline(__always)
  func didChange(_ object: ManagedObject, slot: Int) {
    guard !observationRegistrars.isEmpty, let registrar = observationRegistrars[object.row] else {
      return
    }
    registrar.didSet(object, keyPath: object.layout.observationKeyPaths[slot])
  }

  /// Runs `change`, which may replace any of `object`'s values at once (a refresh, a merge, a
  /// save reading committed values), between the notifications of every property.
  func changingEveryProperty<Result>(of object: ManagedObject, _ change: () -> Result) -> Result {
    guard !observationRegistrars.isEmpty, let registrar = observationRegistrars[object.row] else {
      return change()
    }
    let keyPaths = object.layout.observationKeyPaths
    for keyPath in keyPaths { registrar.willSet(object, keyPath: keyPath) }
    let result = change()
    for keyPath in keyPaths { registrar.didSet(object, keyPath: keyPath) }
    return result
  }
}
