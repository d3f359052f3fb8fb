import FolioModel
import FolioStores
import Foundation

/// The XML store reader: any bytes, read as an XML store file.
///
/// Each input is read the three ways an app reads an XML store: its metadata alone; with a
/// model inferred from the file (as `folio info` opens a store from a Mac), then the whole
/// store with that model; and the whole store with each fixed model, as a document of a known
/// type. Every failure must be a thrown `StoreError`.
package enum XMLStoreFuzzing: FuzzTarget {
  private static let scratch = ScratchFile("store.xml")

  /// Loads the fixed models and warms the reader up.
  package static func prepare() {
    _ = FixedModels.all
    run(Data())
  }

  /// Runs one input.
  package static func run(_ input: Data) {
    let url = scratch.write(input)
    attempt("metadata") { try XMLStore().readMetadata(from: url) }
    if let inferred = attempt("inference", { try XMLStore.inferModel(from: url) }) {
      let store = XMLStore(dropsDanglingReferences: true, checksVersionHashes: false)
      attempt("read with the inferred model") { try store.read(from: url, model: inferred) }
    }
    for model in FixedModels.all {
      attempt("read with \(model.entities.first?.name ?? "")…") {
        try XMLStore().read(from: url, model: model)
      }
    }
  }
}
