import Dispatch
import FolioModel
import FolioStores
internal import FolioSupport
import Foundation

extension XMLStore {
  /// How much of a file the model read is started with comes from.
  static let speculationPrefix = 4 << 20

  /// Infers the model of the XML store at `url` and reads the store with it, both at once: the
  /// result is the one ``inferModelForReading(from:)`` and then `read` would give, in about the
  /// time of the read alone on a machine with two cores.
  ///
  /// The model the first few megabytes of the file show is read with on this thread while the
  /// whole file's model is inferred on another. When the two models describe the same store
  /// (they differ at most in inverses, which reading does not use), the read stands, its error
  /// included; otherwise a fresh consumer reads the store again with the whole file's model.
  /// So a consumer from `makeConsumer` may be dropped half-filled, and the records it gets are
  /// exactly those a read with the whole file's model gives.
  ///
  /// ```swift
  /// let (model, tally) = try XMLStore.readInferringModel(
  ///   from: url, making: { RecordCounter() },
  ///   reading: { model, counter throws(StoreError) in
  ///     try XMLStore().read(from: url, model: model, into: &counter)
  ///   })
  /// ```
  ///
  /// - Parameters:
  ///   - makeConsumer: A new, empty consumer.
  ///   - read: Reads the store at `url` with a model into a consumer (through a wrapper that
  ///     shows progress, say).
  /// - Throws: What ``inferModelForReading(from:)`` throws, else what `read` throws.
  public static func readInferringModel<Consumer>(
    from url: URL, making makeConsumer: () -> Consumer,
    reading read: (ManagedObjectModel, inout Consumer) throws(StoreError) -> Void
  ) throws(StoreError) -> (model: ManagedObjectModel, consumer: Consumer) {
    try readInferringModel(
      from: url, prefix: speculationPrefix, making: makeConsumer, reading: read)
  }

  /// ``readInferringModel(from:making:reading:)`` with the model read with first coming from
  /// the file's first `prefix` bytes.
  package static func readInferringModel<Consumer>(
    from url: URL, prefix: Int, making makeConsumer: () -> Consumer,
    reading read: (ManagedObjectModel, inout Consumer) throws(StoreError) -> Void
  ) throws(StoreError) -> (model: ManagedObjectModel, consumer: Consumer) {
    let spellings = try XMLStoreParser(url: url).metadata.modelVersionHashes.keys.sorted()
    // No model from the start of the file (the scan gave up, or it is the whole file, or its
    // model is inconsistent): infer, then read.
    guard let (start, isWholeFile) = XMLModelInference.scan(url, upTo: prefix), !isWholeFile,
      case var partial = start,
      let guess = try? partial.model(spellings: spellings, path: url.path, withInverses: false)
    else {
      let model = try inferModelForReading(from: url)
      var consumer = makeConsumer()
      try read(model, &consumer)
      return (model, consumer)
    }
    var consumer = makeConsumer()
    var guessed: Result<Void, StoreError> = .success(())
    var inferred: Result<(ManagedObjectModel, ManagedObjectModel), StoreError>?
    runAtOnce(
      { guessed = Result { () throws(StoreError) in try read(guess, &consumer) } },
      beside: {
        inferred = Result { () throws(StoreError) in
          try XMLModelInference.inferWithAndWithoutInverses(from: url, spellings: spellings)
        }
      })
    guard let result = inferred else { preconditionFailure("the inference always ends") }
    let (model, bare) = try result.get()
    if bare == guess {
      try guessed.get()
      return (model, consumer)
    }
    consumer = makeConsumer()
    try read(model, &consumer)
    return (model, consumer)
  }
}
