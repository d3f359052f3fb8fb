import FolioModel
import Foundation

extension XMLStore {
  /// The text of an Xcode model `contents` file describing `model`, which FolioModel (and
  /// Xcode) load back as an equal model: the start of a real model for a store that came
  /// without one.
  ///
  /// The same as `model.xcodeModelXML()`, kept for the model inference API.
  ///
  /// ```swift
  /// let model = try XMLStore.inferModel(from: storeURL)
  /// try XMLStore.xcodeModelXML(for: model)
  ///   .write(to: bundle.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
  /// ```
  public static func xcodeModelXML(for model: ManagedObjectModel) -> String {
    model.xcodeModelXML()
  }
}
