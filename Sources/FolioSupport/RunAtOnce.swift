import Foundation

/// Runs `first` on the calling thread and `second` on another at the same time; returns when
/// both have. The one way work is handed to another thread: each side may write what it
/// captures, and the caller reads it after the return, when both are done.
package func runAtOnce(_ first: () -> Void, beside second: () -> Void) {
  withoutActuallyEscaping(second) { second in
    // The other thread lets go of `second` before it signals, so that no reference to it is
    // left when this returns (`withoutActuallyEscaping` checks).
    let slot = WorkSlot(second)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      slot.work?()
      slot.work = nil
      done.signal()
    }
    first()
    done.wait()
  }
}

/// Work handed to another thread, which alone uses it until it signals that it is done.
private final class WorkSlot: @unchecked Sendable {
  var work: (() -> Void)?
  init(_ work: @escaping () -> Void) { self.work = work }
}
