import FolioModel
import FolioStores
import FolioXMLStore
import Foundation

/// The XML store reader: any bytes, read as an XML store file.
///
/// Each input is read the ways an app reads an XML store: its metadata alone; with the model
/// a Folio writer carried in its metadata, when it has one; with a model inferred from the file (as `folio info` opens a store from a Mac), then the whole
/// store with that model; and the whole store with each fixed model, as a document of a known
/// type. Every failure must be a thrown `StoreError`. The model from a scan of the tags, where
/// the parse infers one too, must be the parse's; and reading while inferring (from a guess of
/// the first half of the file) must give what inferring, then reading gives; and the tags
/// scanned in two halves, wherever split, the model one scan gives.
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
    // The model a Folio writer put in the metadata, and the store read with it.
    if case .some(.some(let carried)) = attempt(
      "carried model", { try XMLStore().readModel(from: url) })
    {
      let store = XMLStore(dropsDanglingReferences: true)
      attempt("read with the carried model") { try store.read(from: url, model: carried) }
    }
    let inferred = attempt("inference", { try XMLStore.inferModel(from: url) })
    if let inferred {
      let store = XMLStore(dropsDanglingReferences: true, checksVersionHashes: false)
      attempt("read with the inferred model") { try store.read(from: url, model: inferred) }
    }
    let scanned = attempt("inference from the tags") {
      try XMLStore.inferModelForReading(from: url)
    }
    if let inferred, let scanned, inferred != scanned {
      fatalError("the scan of the tags and the parse infer different models")
    }
    compareReadingWhileInferring(url, size: input.count)
    let whole = XMLStore.scannedModel(of: url, splitAt: nil)
    for split in [input.count / 3, input.count / 2] where split > 0 {
      if XMLStore.scannedModel(of: url, splitAt: split) != whole {
        fatalError("the tags scanned in two halves split at \(split) give another model")
      }
    }
    for model in FixedModels.all {
      attempt("read with \(model.entities.first?.name ?? "")…") {
        try XMLStore().read(from: url, model: model)
      }
    }
  }

  /// Reading while inferring from a guess of the first half of the file gives the model and
  /// records, or the error, that inferring, then reading gives.
  private static func compareReadingWhileInferring(_ url: URL, size: Int) {
    let store = XMLStore(dropsDanglingReferences: false, checksVersionHashes: false)
    let sequential = Result { () throws(StoreError) -> (ManagedObjectModel, [StoreRecord]) in
      let model = try XMLStore.inferModelForReading(from: url)
      return (model, try store.read(from: url, model: model).records)
    }
    let together = Result { () throws(StoreError) -> (ManagedObjectModel, [StoreRecord]) in
      try XMLStore.readInferringModel(
        from: url, prefix: max(size / 2, 1), making: { [StoreRecord]() },
        reading: { model, records throws(StoreError) in
          records = try store.read(from: url, model: model).records
        })
    }
    switch (sequential, together) {
    case (.success(let a), .success(let b)) where a.0 == b.0 && a.1 == b.1: break
    case (.failure(let a), .failure(let b)) where a.description == b.description: break
    default: fatalError("reading while inferring differs: \(sequential) against \(together)")
    }
  }
}
