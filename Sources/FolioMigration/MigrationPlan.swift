import FolioModel

/// The steps that take a store from one version of a model bundle to another: each pair of
/// neighbouring versions in the bundle's order, mapped by a mapping model given for that pair
/// or by the mapping a lightweight migration infers.
///
/// ```swift
/// let bundle = try ModelBundle(contentsOf: modelURL)
/// let plan = try MigrationPlan(bundle: bundle, from: "Moody 2", to: "Moody 6")
/// for step in plan.steps { print(step.source.name, "→", step.destination.name, step.isInferred) }
/// ```
public struct MigrationPlan: Sendable {
  /// One step: a pair of neighbouring versions and the mapping between them.
  public struct Step: Sendable {
    public var source: ModelBundle.Version
    public var destination: ModelBundle.Version
    public var mapping: MappingModel
    /// Whether the mapping is the inferred one (no mapping model was given for the step).
    public var isInferred: Bool
    /// Every change between the two versions.
    public var difference: ModelDifference
  }

  /// A mapping model given for one step, with the versions it maps between, by name.
  public struct GivenMapping: Sendable {
    public var sourceVersion: String
    public var destinationVersion: String
    public var mapping: MappingModel

    public init(sourceVersion: String, destinationVersion: String, mapping: MappingModel) {
      self.sourceVersion = sourceVersion
      self.destinationVersion = destinationVersion
      self.mapping = mapping
    }
  }

  /// The steps in order; none when the two versions are the same.
  public let steps: [Step]
  public let sourceVersion: ModelBundle.Version
  public let destinationVersion: ModelBundle.Version

  /// Plans the steps from version `source` to version `destination` of `bundle`, each named
  /// as ``ModelBundle/version(named:)`` accepts. Versions go in the bundle's order, backward
  /// when `destination` comes first; a mapping model given for a step is used as it is, any
  /// other step is inferred.
  ///
  /// - Throws: `MigrationError.unknownVersion` for a version the bundle does not have;
  ///   `.needsMapping` for a step no mapping was given for whose changes a lightweight
  ///   migration cannot make, naming the step and every such change.
  public init(
    bundle: ModelBundle, from source: String, to destination: String,
    mappings: [GivenMapping] = []
  ) throws(MigrationError) {
    guard let start = bundle.versionIndex(named: source) else {
      throw Self.unknown(source, in: bundle)
    }
    guard let end = bundle.versionIndex(named: destination) else {
      throw Self.unknown(destination, in: bundle)
    }
    let path: [Int] = start <= end ? Array(start...end) : Array((end...start).reversed())
    var steps: [Step] = []
    for (from, to) in zip(path, path.dropFirst()) {
      let old = bundle.versions[from]
      let new = bundle.versions[to]
      let difference = ModelDifference(from: old.model, to: new.model)
      if let given = mappings.first(where: {
        bundle.versionIndex(named: $0.sourceVersion) == from
          && bundle.versionIndex(named: $0.destinationVersion) == to
      }) {
        // Rows Xcode stores without an expression take its default, from the source model.
        let mapping: MappingModel
        do {
          mapping = try given.mapping.resolvingDefaultExpressions(sourceModel: old.model)
        } catch {
          throw MigrationError(
            .invalidMapping,
            "the mapping model given for \(old.name) → \(new.name) does not fit \(old.name): \(error.message)",
            at: error.location, underlying: error)
        }
        steps.append(
          Step(
            source: old, destination: new, mapping: mapping, isInferred: false,
            difference: difference))
        continue
      }
      do {
        let mapping = try MappingModel.inferred(from: old.model, to: new.model)
        steps.append(
          Step(
            source: old, destination: new, mapping: mapping, isInferred: true,
            difference: difference))
      } catch {
        throw MigrationError(
          .needsMapping,
          "the step from \(old.name) to \(new.name) needs a mapping model: \(error.message)",
          at: error.location, underlying: error)
      }
    }
    for given in mappings {
      let from = bundle.versionIndex(named: given.sourceVersion)
      let to = bundle.versionIndex(named: given.destinationVersion)
      guard let from, let to, abs(from - to) == 1 else {
        throw MigrationError(
          .invalidMapping,
          "a mapping model given maps \(given.sourceVersion) → \(given.destinationVersion), "
            + "which are not neighbouring versions of the bundle ("
            + bundle.versions.map(\.name).joined(separator: ", ") + ")")
      }
    }
    self.steps = steps
    self.sourceVersion = bundle.versions[start]
    self.destinationVersion = bundle.versions[end]
  }

  private static func unknown(_ name: String, in bundle: ModelBundle) -> MigrationError {
    MigrationError(
      .unknownVersion,
      "the model bundle has no version \(name); its versions are "
        + bundle.versions.map(\.name).joined(separator: ", "))
  }
}
