import FolioModel
import Foundation

/// The Xcode model reader: any bytes, read as the `contents` file of an `.xcdatamodel`.
///
/// Each input is read leniently and strictly. A model that loads is written back as Xcode
/// model XML (the text a `.folio` store embeds), which must read back as an equal model, as
/// `xcodeModelXML()` promises; the harness traps when it does not.
package enum XcodeModelFuzzing: FuzzTarget {
  /// Warms the reader up.
  package static func prepare() {
    run(Data())
  }

  /// Runs one input.
  package static func run(_ input: Data) {
    attempt("strict reading") {
      try ManagedObjectModel(xcodeModelData: input, options: ModelLoadingOptions(isStrict: true))
    }
    guard let model = attempt("reading", { try ManagedObjectModel(xcodeModelData: input) }) else {
      return
    }
    let written = model.xcodeModelXML()
    let again: ManagedObjectModel
    do {
      again = try ManagedObjectModel(xcodeModelData: Data(written.utf8))
    } catch {
      preconditionFailure("a written model does not read back: \(error)\n\(written)")
    }
    precondition(again == model, "a written model reads back different:\n\(written)")
  }
}
