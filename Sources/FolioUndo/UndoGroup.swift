/// One registered action: a closure and the (weakly held) target to run it on.
///
/// A class, so that groups hold one reference per action (moving actions between arrays copies
/// no weak references), with the typed handler kept in ``TargetedAction`` so no wrapper closure
/// is allocated per registration.
class UndoAction {
  /// What an action costs before what its closure captures: the action object and the
  /// closure's context.
  static let baseCost = 96

  let targetID: ObjectIdentifier
  let cost: Int
  /// What the action does, as data, for an owner that keeps the stacks beyond the process.
  var payload: Any?

  init(targetID: ObjectIdentifier, cost: Int) {
    self.targetID = targetID
    self.cost = cost
  }

  /// Runs the action on its target, if the target still exists.
  func perform() {}
}

final class TargetedAction<Target: AnyObject>: UndoAction {
  weak var target: Target?
  let handler: (Target) -> Void

  init(target: Target, cost: Int, handler: @escaping (Target) -> Void) {
    self.target = target
    self.handler = handler
    super.init(targetID: ObjectIdentifier(target), cost: cost)
  }

  override func perform() {
    if let target { handler(target) }
  }
}

/// A group of actions that undo as one step, with its action name, discardability and user info.
final class UndoGroup {
  /// Identifies the change the group records: kept when the group moves between the stacks.
  let id: Int

  init(id: Int) { self.id = id }

  // No access to a property marked `@exclusivity(unchecked)` overlaps another access to it: none is
  // passed inout to code that can reach it again, and no closure run while one is being changed
  // touches it. Debug builds, where the tests run, check that at every access; release builds leave
  // the check out (a registration takes 1.3 times as long with it). Each property keeps its own
  // mark: gathered in one struct, reading one field while changing another would overlap on the
  // struct.
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var actions: [UndoAction] = []
  var name = ""
  var isDiscardable = false
  var userInfo: [String: Any] = [:]
  #if !DEBUG
    @exclusivity(unchecked)
  #endif
  var bytes = 0

  func append(_ action: UndoAction) {
    actions.append(action)
    bytes += action.cost
  }

  /// Takes a closed nested group's actions (and its name, if this group has none).
  func absorb(_ child: UndoGroup) {
    actions.append(contentsOf: child.actions)
    bytes += child.bytes
    if name.isEmpty { name = child.name }
    if child.isDiscardable { isDiscardable = true }
    userInfo.merge(child.userInfo) { mine, _ in mine }
  }

  func removeActions(of target: ObjectIdentifier) {
    actions.removeAll { $0.targetID == target }
    bytes = actions.reduce(0) { $0 + $1.cost }
  }
}

/// A stack of groups that can also drop its oldest group cheaply.
struct GroupStack {
  private var storage: [UndoGroup] = []
  private var head = 0
  private(set) var bytes = 0

  var count: Int { storage.count - head }
  var isEmpty: Bool { count == 0 }
  var last: UndoGroup? { isEmpty ? nil : storage[storage.count - 1] }
  /// The groups, oldest first.
  var groups: ArraySlice<UndoGroup> { storage[head...] }

  mutating func push(_ group: UndoGroup) {
    storage.append(group)
    bytes += group.bytes
  }

  mutating func pop() -> UndoGroup? {
    guard !isEmpty else { return nil }
    let group = storage.removeLast()
    bytes -= group.bytes
    if isEmpty { removeAll() }
    return group
  }

  /// Removes the oldest group and returns it.
  @discardableResult
  mutating func dropOldest() -> UndoGroup? {
    guard !isEmpty else { return nil }
    let group = storage[head]
    bytes -= group.bytes
    head += 1
    if head > 64, head * 2 > storage.count {
      storage.removeFirst(head)
      head = 0
    }
    return group
  }

  mutating func removeAll() {
    storage.removeAll()
    head = 0
    bytes = 0
  }

  mutating func removeActions(of target: ObjectIdentifier) {
    var kept: [UndoGroup] = []
    for group in storage[head...] {
      group.removeActions(of: target)
      if !group.actions.isEmpty { kept.append(group) }
    }
    storage = kept
    head = 0
    bytes = kept.reduce(0) { $0 + $1.bytes }
  }
}
