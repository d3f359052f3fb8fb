import FolioStores
import Foundation

/// The steps of a write through a kept connection before which a test can have the server drop
/// the connection, as a restart would.
package enum PostgresWriteStep: Sendable, Hashable {
  /// `BEGIN` and the document's lock.
  case lock
  /// The document's lock, `BEGIN` carried out: as a restart while the write waits for it.
  case waitForLock
  /// Writing a save's changes.
  case save
  /// `COMMIT`, before it is sent.
  case commit
  /// `COMMIT`, carried out by the server, but the connection gone before its answer came.
  case commitAnswer
  /// Reading a document's rows, its metadata read: as a restart in the middle of a read.
  case read
}

#if FOLIO_TEST_HOOKS
  /// Connections a test has the server drop. Debug builds only (`FOLIO_TEST_HOOKS`,
  /// Package.swift).
  package enum PostgresFaults {
    /// The steps before which the server drops the connection of a write a task makes, in
    /// order, each once: tests set them with `PostgresFaults.$drops.withValue(…)`.
    @TaskLocal package static var drops: Plan?

    /// Steps to drop the connection before, taken in order, each once: `[.commit, .waitForLock]`
    /// drops it before the `COMMIT`, then while the write made again waits for the lock.
    package final class Plan: @unchecked Sendable {
      private let lock = NSLock()
      private var steps: [PostgresWriteStep]
      /// What happens while the connection is down, after each drop: another client's save.
      let meanwhile: () throws -> Void

      package init(_ steps: [PostgresWriteStep], meanwhile: @escaping () throws -> Void = {}) {
        (self.steps, self.meanwhile) = (steps, meanwhile)
      }

      /// Whether the next drop planned is before `step`; the plan forgets it.
      func take(_ step: PostgresWriteStep) -> Bool {
        lock.withLock {
          guard steps.first == step else { return false }
          steps.removeFirst()
          return true
        }
      }

      /// The steps not reached yet.
      package var remaining: [PostgresWriteStep] { lock.withLock { steps } }
    }
  }
#endif

extension PostgresStoreConnection {
  /// Has the server end this connection before `step` when the task's plan says so.
  func fault(_ step: PostgresWriteStep) {
    #if FOLIO_TEST_HOOKS
      guard let plan = PostgresFaults.drops else { return }
      if plan.take(step) {
        _ = try? connection.query("SELECT pg_terminate_backend(pg_backend_pid())")
        try? plan.meanwhile()
      }
      if step == .commit, plan.take(.commitAnswer) {
        try? connection.execute("COMMIT")
        _ = try? connection.query("SELECT pg_terminate_backend(pg_backend_pid())")
        try? plan.meanwhile()
      }
    #endif
  }
}

extension PostgresConnection {
  /// Has the server end this connection before `step` of a read when the task's plan says so.
  func fault(_ step: PostgresWriteStep) {
    #if FOLIO_TEST_HOOKS
      guard let plan = PostgresFaults.drops, plan.take(step) else { return }
      _ = try? query("SELECT pg_terminate_backend(pg_backend_pid())")
      try? plan.meanwhile()
    #endif
  }
}
