/// A warning about a model that loads: something a user should look at, but that Core Data
/// itself accepts.
///
/// Folio reads what Xcode's model compiler reads, so a model that works on macOS works here.
/// Where Xcode quietly reinterprets a value (a default of `"0.0"` on an Integer 16 attribute,
/// a relationship with no inverse), Folio reads it the same way and says so here, rather than
/// fail or fix it silently. `folio model info` prints these; `ModelLoadingOptions.isStrict`
/// turns them into errors.
public struct ModelDiagnostic: Sendable, Hashable, CustomStringConvertible {
  /// What the warning is about, to switch on.
  public enum Kind: Sendable, Hashable {
    /// A default value Core Data reads leniently, and Folio the same way.
    case coercedDefaultValue
    /// A minimum or maximum Core Data reads leniently, and Folio the same way.
    case coercedBound
    /// A default value Core Data ignores, and Folio too.
    case ignoredDefaultValue
    /// A relationship with no inverse; Core Data allows it but cannot keep the graph consistent.
    case missingInverse
  }

  /// What the warning is about.
  public var kind: Kind
  /// One sentence, quoting the value concerned.
  public var message: String
  /// Where the value is.
  public var location: InputLocation?

  /// Creates a warning.
  public init(_ kind: Kind, _ message: String, at location: InputLocation? = nil) {
    self.kind = kind
    self.message = message
    self.location = location
  }

  /// `location: warning: message`.
  public var description: String {
    guard let location, !location.description.isEmpty else { return "warning: \(message)" }
    return "\(location): warning: \(message)"
  }
}
