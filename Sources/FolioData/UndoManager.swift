import FolioUndo

#if !canImport(Darwin)
  /// Foundation's `UndoManager`, which Foundation on Linux does not have, as SwiftData code uses
  /// it (`context.undoManager = UndoManager()`, `context.undoManager?.undo()`), over Folio's
  /// (``base``), whose turns end as its event loop says.
  ///
  /// As on Apple's systems, misuse — undoing while a group opened by hand is still open, closing
  /// a group that is not open — stops the program with the reason, where Folio's undo manager
  /// throws it.
  public final class UndoManager {
    /// Folio's undo manager beneath, with the same stacks.
    public let base: FolioUndo.UndoManager

    /// An undo manager whose groups close at the end of each turn of `eventLoop`, or when
    /// undoing (by default a ``FolioUndo/ManualEventLoop``, whose turns end when told).
    public init(eventLoop: UndoEventLoop = ManualEventLoop()) {
      base = FolioUndo.UndoManager(eventLoop: eventLoop)
    }

    /// An undo manager over `base`.
    public init(_ base: FolioUndo.UndoManager) { self.base = base }

    public var canUndo: Bool { base.canUndo }
    public var canRedo: Bool { base.canRedo }
    public var isUndoing: Bool { base.isUndoing }
    public var isRedoing: Bool { base.isRedoing }
    public var groupingLevel: Int { base.groupingLevel }
    public var isUndoRegistrationEnabled: Bool { base.isUndoRegistrationEnabled }
    public var undoActionName: String { base.undoActionName }
    public var redoActionName: String { base.redoActionName }
    public var undoMenuItemTitle: String { base.undoMenuItemTitle }
    public var redoMenuItemTitle: String { base.redoMenuItemTitle }

    public var groupsByEvent: Bool {
      get { base.groupsByEvent }
      set { base.groupsByEvent = newValue }
    }

    public var levelsOfUndo: Int {
      get { base.levelsOfUndo }
      set { base.levelsOfUndo = newValue }
    }

    public func undo() { settle("undo") { () throws(UndoError) in try base.undo() } }
    public func redo() { settle("redo") { () throws(UndoError) in try base.redo() } }
    public func undoNestedGroup() {
      settle("undoNestedGroup") { () throws(UndoError) in try base.undoNestedGroup() }
    }
    public func beginUndoGrouping() { base.beginUndoGrouping() }
    public func endUndoGrouping() {
      settle("endUndoGrouping") { () throws(UndoError) in try base.endUndoGrouping() }
    }
    public func setActionName(_ name: String) { base.setActionName(name) }
    public func disableUndoRegistration() { base.disableUndoRegistration() }
    public func enableUndoRegistration() {
      settle("enableUndoRegistration") { () throws(UndoError) in
        try base.enableUndoRegistration()
      }
    }
    public func removeAllActions() { base.removeAllActions() }
    public func removeAllActions(withTarget target: AnyObject) {
      base.removeAllActions(withTarget: target)
    }

    /// Records `handler` to run on `target` when the current group is undone.
    public func registerUndo<Target: AnyObject>(
      withTarget target: Target, handler: @escaping (Target) -> Void
    ) {
      settle("registerUndo") { () throws(UndoError) in
        try base.registerUndo(withTarget: target, handler: handler)
      }
    }

    private func settle(_ call: String, _ body: () throws(UndoError) -> Void) {
      do {
        try body()
      } catch {
        fatalError("UndoManager.\(call)(): \(error.message)")
      }
    }
  }

  /// The undo manager a model context takes: Foundation's shape, as SwiftData's.
  public typealias ModelUndoManager = UndoManager
#else
  /// The undo manager a model context takes: Folio's, beside Foundation's own.
  public typealias ModelUndoManager = FolioUndo.UndoManager
#endif
