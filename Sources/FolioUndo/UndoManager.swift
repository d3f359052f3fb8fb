/// Records undo actions in groups and plays them back, with NSUndoManager's semantics.
///
/// Foundation on Linux has no `UndoManager`; this one behaves as Cocoa's does, so code and
/// habits carry over, and it depends on nothing else of Folio's, so any editor can use it alone.
///
/// ## The model
/// Actions are closures registered against a target. They collect in *groups*; a closed
/// top-level group is one step on the undo stack. Groups nest: a closed nested group's actions
/// join its parent. With ``groupsByEvent`` on (the default), the first registration of an
/// event-loop turn opens a top-level group and the end of the turn closes it, so everything one
/// event changes undoes as one step.
///
/// Undoing a group runs its actions in reverse order inside a fresh group, and the actions they
/// register (their own inverses) become one group on the redo stack, carrying the action name
/// over; redoing does the same the other way. A registration outside undo and redo clears the
/// redo stack. ``levelsOfUndo`` and ``maximumUndoBytes`` drop the oldest groups.
///
/// ```swift
/// let undo = UndoManager(eventLoop: loop)
/// undo.registerUndo(withTarget: document) { $0.title = "Old" }
/// undo.setActionName("Rename")
/// loop.endTurn()
/// try undo.undo()           // title is "Old" again; redoMenuItemTitle is "Redo Rename"
/// ```
///
/// Not `Sendable`: an undo manager belongs to one isolation domain, like the document it serves.
public final class UndoManager {
  /// Where turns come from: the manager asks it to call back when the current turn ends.
  public let eventLoop: UndoEventLoop
  /// Whether the first registration of a turn opens a group that the turn's end closes. The
  /// default is `true`.
  public var groupsByEvent = true
  /// How many top-level groups each stack keeps; 0 (the default) keeps all. Lowering it drops
  /// the oldest groups at once.
  public var levelsOfUndo = 0 {
    didSet { trim() }
  }
  /// A budget for the recorded actions' estimated bytes on both stacks; past it the oldest
  /// groups are dropped (the newest undo group always stays). `nil`, the default, sets none.
  public var maximumUndoBytes: Int? {
    didSet { trim() }
  }

  /// Whether an undo is under way.
  public private(set) var isUndoing = false
  /// Whether a redo is under way.
  public private(set) var isRedoing = false

  // No access to a property marked `@exclusivity(unchecked)` overlaps another access to it: none is
  // passed inout to code that can reach it again, and no closure run while one is being changed
  // touches it. Debug builds, where the tests run, check that at every access; release builds leave
  // the check out (a registration takes 1.3 times as long with it). Each property keeps its own
  // mark: gathered in one struct, reading one field while changing another would overlap on the
  // struct.
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var undoStack = GroupStack()
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var redoStack = GroupStack()
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// Open groups, outermost first.
  var openGroups: [UndoGroup] = []
  /// Whether the outermost open group was opened by a turn and closes at its end.
  var implicitGroupOpen = false
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  /// While undoing or redoing: the group collecting what the actions register.
  var collector: UndoGroup?
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var disableCount = 0
  /// The state under the oldest group on the undo stack: the newest group dropped from it, or
  /// `nil` while it reaches back to where recording started.
  var baseStateIdentifier: Int?
  var nextGroupID = 1
  var observers: [Int: (UndoNotification) -> Void] = [:]
  var nextObserver = 0

  /// Creates an undo manager whose turns come from `eventLoop` (by default a
  /// ``ManualEventLoop``, whose turns end when you call ``ManualEventLoop/endTurn()``).
  public init(eventLoop: UndoEventLoop = ManualEventLoop()) {
    self.eventLoop = eventLoop
  }

  // MARK: Registering

  /// Records `handler` to run on `target` when the current group is undone.
  ///
  /// The manager does not keep `target` alive: an action whose target is gone is skipped.
  /// `cost` estimates the bytes the action keeps (its captured values), for
  /// ``maximumUndoBytes``. Registrations while registration is disabled are dropped.
  ///
  /// - Throws: `UndoError.noOpenGroup` when ``groupsByEvent`` is off and no group is open.
  public func registerUndo<Target: AnyObject>(
    withTarget target: Target, cost: Int = 0, handler: @escaping (Target) -> Void
  ) throws(UndoError) {
    guard disableCount == 0 else { return }
    let action = TargetedAction(
      target: target, cost: cost + UndoAction.baseCost, handler: handler)
    try record(action)
  }

  func record(_ action: UndoAction) throws(UndoError) {
    if let collector {
      collector.append(action)
      return
    }
    if openGroups.isEmpty {
      guard groupsByEvent else { throw UndoError.registrationOutsideGroup }
      openImplicitGroup()
    }
    openGroups[openGroups.count - 1].append(action)
    if !redoStack.isEmpty { redoStack.removeAll() }
  }

  // MARK: Grouping

  /// How many groups are open.
  public var groupingLevel: Int { openGroups.count }

  /// Opens a group; groups nest to any depth.
  ///
  /// With ``groupsByEvent`` on and nothing open, the turn's automatic group opens first, so
  /// ``groupingLevel`` becomes 2, as on macOS.
  public func beginUndoGrouping() {
    if openGroups.isEmpty, groupsByEvent, collector == nil { openImplicitGroup() }
    post(.checkpoint)
    openGroups.append(makeGroup())
    post(.didOpenGroup)
  }

  /// Closes the innermost open group: into its parent, or onto the undo stack when it is a
  /// top-level group with actions.
  ///
  /// - Throws: `UndoError.noOpenGroup` when no group is open.
  public func endUndoGrouping() throws(UndoError) {
    guard !openGroups.isEmpty else { throw UndoError.nothingToClose }
    post(.checkpoint)
    post(.willCloseGroup)
    let group = openGroups.removeLast()
    if let parent = openGroups.last {
      parent.absorb(group)
    } else {
      implicitGroupOpen = false
      if !group.actions.isEmpty {
        undoStack.push(group)
        trim()
      }
    }
    post(.didCloseGroup)
  }

  private func openImplicitGroup() {
    post(.checkpoint)
    // The checkpoint may flush pending changes, and registering them opens the turn's group.
    guard openGroups.isEmpty else { return }
    openGroups.append(makeGroup())
    implicitGroupOpen = true
    post(.didOpenGroup)
    eventLoop.scheduleEndOfTurn { [weak self] in self?.endOfTurn() }
  }

  /// The end of a turn: close the automatic group, unless explicit groups are still open inside
  /// it, in which case wait for the next turn's end.
  func endOfTurn() {
    guard implicitGroupOpen, !openGroups.isEmpty else { return }
    guard openGroups.count == 1 else {
      eventLoop.scheduleEndOfTurn { [weak self] in self?.endOfTurn() }
      return
    }
    try? endUndoGrouping()
  }

  /// Runs `body` inside one group named `name`, and closes it (and the turn's automatic group,
  /// if opening this one opened it too) when `body` returns or throws.
  ///
  /// For code whose changes span several turns — an `await` in the middle of an edit — which
  /// automatic grouping would split.
  public func withUndoGroup<T>(named name: String? = nil, _ body: () throws -> T) throws -> T {
    let level = groupingLevel
    beginUndoGrouping()
    if let name { setActionName(name) }
    defer { closeGroups(downTo: level) }
    return try body()
  }

  /// The `async` form of ``withUndoGroup(named:_:)``. It runs on the caller's actor
  /// (`isolation`), as the undo manager it groups for does.
  public func withUndoGroup<T>(
    named name: String? = nil, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> T
  ) async throws -> T {
    let level = groupingLevel
    beginUndoGrouping()
    if let name { setActionName(name) }
    defer { closeGroups(downTo: level) }
    return try await body()
  }

  private func closeGroups(downTo level: Int) {
    while groupingLevel > level { try? endUndoGrouping() }
  }

  // MARK: Undo and redo

  /// Whether there is something to undo: a group on the stack, or actions in the open group.
  public var canUndo: Bool {
    !undoStack.isEmpty || openGroups.contains { !$0.actions.isEmpty }
  }

  /// Whether there is something to redo. Posts a checkpoint first, as Cocoa does, so that
  /// pending changes (which would clear the redo stack) are flushed before it answers.
  public var canRedo: Bool {
    post(.checkpoint)
    return !redoStack.isEmpty
  }

  /// The number of groups on the undo stack.
  public var undoCount: Int { undoStack.count }
  /// The number of groups on the redo stack.
  public var redoCount: Int { redoStack.count }

  /// Closes the top-level group if it is the only one open, then undoes the last group.
  ///
  /// - Throws: `UndoError.openGroup` with nested groups open, or while undoing or redoing.
  public func undo() throws(UndoError) {
    try checkNotReentered("undo()")
    if groupingLevel == 1 { try endUndoGrouping() }
    guard groupingLevel == 0 else { throw UndoError.groupOpen("undo()", level: groupingLevel) }
    try undoNestedGroup()
  }

  /// Undoes the last top-level group.
  ///
  /// - Throws: `UndoError.openGroup` while a group is open, or while undoing or redoing.
  public func undoNestedGroup() throws(UndoError) {
    try checkNotReentered("undoNestedGroup()")
    guard groupingLevel == 0 else {
      throw UndoError.groupOpen("undoNestedGroup()", level: groupingLevel)
    }
    post(.checkpoint)
    // A checkpoint may flush pending changes into a fresh automatic group: close it, so what
    // it holds is undone first.
    if groupingLevel == 1, implicitGroupOpen { try endUndoGrouping() }
    guard let group = undoStack.pop() else { return }
    post(.willUndo)
    let redoGroup = replay(group, undoing: true)
    if !redoGroup.actions.isEmpty { redoStack.push(redoGroup) }
    trim()
    post(.didUndo)
  }

  /// Redoes the last undone group.
  ///
  /// - Throws: `UndoError.openGroup` with nested groups open, or while undoing or redoing.
  public func redo() throws(UndoError) {
    try checkNotReentered("redo()")
    if groupingLevel == 1 { try endUndoGrouping() }
    guard groupingLevel == 0 else { throw UndoError.groupOpen("redo()", level: groupingLevel) }
    post(.checkpoint)
    if groupingLevel == 1, implicitGroupOpen { try endUndoGrouping() }
    guard let group = redoStack.pop() else { return }
    post(.willRedo)
    let undoGroup = replay(group, undoing: false)
    if !undoGroup.actions.isEmpty { undoStack.push(undoGroup) }
    trim()
    post(.didRedo)
  }

  /// Runs `group`'s actions in reverse, collecting what they register into a new group that
  /// carries the name, discardability and user info over.
  private func replay(_ group: UndoGroup, undoing: Bool) -> UndoGroup {
    let collected = UndoGroup(id: group.id)
    collected.name = group.name
    collected.isDiscardable = group.isDiscardable
    collected.userInfo = group.userInfo
    collector = collected
    if undoing { isUndoing = true } else { isRedoing = true }
    let actions = group.actions
    var index = actions.count
    while index > 0 {
      index -= 1
      actions[index].perform()
    }
    isUndoing = false
    isRedoing = false
    collector = nil
    return collected
  }

  private func checkNotReentered(_ operation: String) throws(UndoError) {
    if isUndoing { throw UndoError.reentered(operation, during: "undoing") }
    if isRedoing { throw UndoError.reentered(operation, during: "redoing") }
  }

  // MARK: Enabling

  /// Stops recording registrations until a matching ``enableUndoRegistration()``; calls nest.
  public func disableUndoRegistration() { disableCount += 1 }

  /// Balances one ``disableUndoRegistration()``.
  ///
  /// - Throws: `UndoError.enableWithoutDisable` when registration is not disabled.
  public func enableUndoRegistration() throws(UndoError) {
    guard disableCount > 0 else { throw UndoError.enableWithoutDisable }
    disableCount -= 1
  }

  /// Whether registrations are recorded.
  public var isUndoRegistrationEnabled: Bool { disableCount == 0 }

  // MARK: Removing

  /// Empties both stacks, closes every open group without recording it, and enables
  /// registration again however often it was disabled (as `NSUndoManager` does).
  public func removeAllActions() {
    disableCount = 0
    undoStack.removeAll()
    redoStack.removeAll()
    openGroups.removeAll()
    implicitGroupOpen = false
    baseStateIdentifier = nil
  }

  /// Removes every action registered with `target`; groups left empty disappear.
  public func removeAllActions(withTarget target: AnyObject) {
    let identifier = ObjectIdentifier(target)
    undoStack.removeActions(of: identifier)
    redoStack.removeActions(of: identifier)
    for group in openGroups { group.removeActions(of: identifier) }
    collector?.removeActions(of: identifier)
  }

  private func makeGroup() -> UndoGroup {
    defer { nextGroupID += 1 }
    return UndoGroup(id: nextGroupID)
  }

  /// An opaque identifier of the state the recorded changes have reached: the identifier of
  /// the last change that ``undo()`` would undo (counting actions recorded in the open group),
  /// or, when there is none, of the newest change ``levelsOfUndo`` or ``maximumUndoBytes``
  /// dropped — `nil` when none was dropped since recording started. A change keeps its
  /// identifier when it is undone and redone, so comparing this with the value at a save
  /// tells exactly whether a document is back at its saved state — even after undoing past it
  /// and redoing, and never again once a new change has discarded the redo branch that led
  /// there, or the limits have dropped the changes that led back to it.
  public var stateIdentifier: Int? {
    if let open = openGroups.first, !open.actions.isEmpty { return open.id }
    return undoStack.last?.id ?? baseStateIdentifier
  }

  // MARK: Trimming

  func trim() {
    if levelsOfUndo > 0 {
      while undoStack.count > levelsOfUndo { dropOldestUndoGroup() }
      while redoStack.count > levelsOfUndo { redoStack.dropOldest() }
    }
    if let budget = maximumUndoBytes {
      while undoStack.bytes + redoStack.bytes > budget, !redoStack.isEmpty {
        redoStack.dropOldest()
      }
      while undoStack.bytes > budget, undoStack.count > 1 { dropOldestUndoGroup() }
    }
  }

  private func dropOldestUndoGroup() {
    if let dropped = undoStack.dropOldest() { baseStateIdentifier = dropped.id }
  }

  /// The estimated bytes the recorded actions on both stacks keep.
  public var recordedBytes: Int { undoStack.bytes + redoStack.bytes }
}
