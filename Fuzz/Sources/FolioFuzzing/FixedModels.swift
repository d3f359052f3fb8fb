import FolioModel
import Foundation

/// The models the store readers read with: those of `Samples/` and
/// `Fuzz/Seeds/Everything.xcdatamodel`, which has an attribute of every type and relationships
/// of every kind (the seeds `Fuzz/Seeds/*/everything.*` use it).
///
/// They are found from this file's path at build time, so the fuzz executables run from any
/// folder of a checkout.
package enum FixedModels {
  /// The repository's root folder.
  package static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Expenses, Company, Messaging and Everything, in that order.
  package static let all: [ManagedObjectModel] = [
    "Samples/Expenses/Expenses.xcdatamodeld", "Samples/Company/Company.xcdatamodeld",
    "Samples/Messaging/Messaging.xcdatamodeld", "Fuzz/Seeds/Everything.xcdatamodel",
  ].map { path in
    let url = root.appendingPathComponent(path)
    do {
      return try ManagedObjectModel(contentsOf: url)
    } catch {
      preconditionFailure("the model \(url.path) does not load: \(error)")
    }
  }
}
