import Folio
import FolioPostgresStore
import FolioScript
import Foundation

/// The document the editor serves, and one context per browser tab.
///
/// Folio's contexts, objects and undo managers are not `Sendable`: they belong to one
/// isolation domain. The hub is that domain. It owns the coordinator and every tab's context,
/// and the server's request handlers hop onto it with `await`, so requests run one at a time
/// against the graph, each its own turn of the tab's event loop: one request, one undo group.
///
/// Each tab's context reads the store through the shared coordinator and saves into it with
/// ``mergePolicy`` (property by property, this tab's values winning where both tabs changed a
/// property). When a tab saves, the hub merges what the save committed into every other tab's
/// context (`mergeChanges(fromContextDidSave:)`); each of their fetched results controllers then
/// reports the rows that changed, and the hub forwards those changes to the tab's live channel.
///
/// Other processes may serve the same document (a PostgreSQL document, or a file): the hub
/// takes in what they save and merges it into every tab the same way
/// (``watchForOtherWriters(every:)``).
///
/// The hub also keeps the server's ``Clipboard``: every tab copies to it and pastes from it.
public actor DocumentHub {
  /// The document's model.
  public nonisolated let model: ManagedObjectModel
  /// The document: a file, which every save writes (atomically, or in place for SQLite), or a
  /// PostgreSQL document's URL, which every save writes in one transaction.
  public nonisolated let storeURL: URL
  /// How a tab's save resolves a conflict with what another tab saved.
  public nonisolated let mergePolicy = MergePolicy.mergeByPropertyObjectTrump
  let coordinator: PersistentStoreCoordinator
  /// What the last Copy, in any tab, put aside: every tab's Paste reads it.
  let clipboard = Clipboard()
  var tabs: [String: Tab] = [:]
  private var openedTabs = 0
  /// The task of ``watchForOtherWriters(every:)``.
  var watch: Task<Void, Never>?
  /// Why the last look for other writers' saves failed; `nil` after one that did not.
  var otherWritersProblem: String?

  /// Opens the store at `url`, in any of Folio's formats, with the model at `modelURL` (an
  /// `.xcdatamodeld` bundle or an `.xcdatamodel`). `url` is a file's, or a PostgreSQL
  /// document's (`postgresql://USER@HOST:PORT/DATABASE?schema=NAME`).
  ///
  /// - Throws: `ModelError` for the model; `StoreError` when the store cannot be read or does
  ///   not fit the model, or the server cannot be reached.
  public init(storeAt url: URL, modelAt modelURL: URL) throws {
    let model = try ManagedObjectModel(contentsOf: modelURL)
    let format = try PersistentStoreCoordinator.format(
      of: url, among: [XMLStore(), BinaryStore(), SQLiteStore(), PostgresStore()])
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(at: url, format: format)
    self.model = model
    self.storeURL = url
    self.coordinator = coordinator
  }

  deinit { watch?.cancel() }

  /// The URL of the document `argument` names: a PostgreSQL document's URL
  /// (`postgresql://USER@HOST:PORT/DATABASE?schema=NAME`, or `postgres://…`) as it is given,
  /// else a file URL of the path.
  ///
  /// - Throws: `EditorError` (`badStore`) for a PostgreSQL URL that does not parse.
  public static func storeURL(_ argument: String) throws(EditorError) -> URL {
    guard let separator = argument.range(of: "://"),
      PostgresStore().urlSchemes.contains(argument[..<separator.lowerBound].lowercased())
    else { return URL(fileURLWithPath: argument) }
    guard let url = URL(string: argument) else {
      throw EditorError(
        status: 400, code: "badStore",
        "the store's URL does not parse: write it as "
          + "postgresql://USER@HOST:PORT/DATABASE?schema=NAME, special characters %-encoded",
        place: "store")
    }
    return url
  }

  /// The model's entities, for the editor's tables.
  public nonisolated var modelPayload: ModelPayload {
    ModelPayload(
      entities: model.entities.map { entity in
        ModelPayload.Entity(
          name: entity.name, isAbstract: entity.isAbstract,
          attributes: entity.allAttributes.map { attribute in
            ModelPayload.Attribute(
              name: attribute.name, type: attribute.attributeType.xcodeName,
              isOptional: attribute.isOptional,
              isEditable: !attribute.isDerived
                && Self.editableTypes.contains(attribute.attributeType)
            )
          },
          relationships: entity.allRelationships.map { relationship in
            ModelPayload.Relationship(
              name: relationship.name, destination: relationship.destinationEntityName,
              isToMany: relationship.isToMany)
          })
      },
      file: storeURL.isFileURL ? storeURL.path : storeURL.absoluteString,
      mergePolicy: mergePolicy.scriptName)
  }

  private static let editableTypes: Set<AttributeType> = [
    .integer16, .integer32, .integer64, .decimal, .double, .float, .string, .boolean, .date,
    .uuid, .uri,
  ]

  // MARK: Tabs

  /// Opens a tab: a new context on the document, reading what has been saved.
  public func openTab() throws(EditorError) -> TabPayload {
    openedTabs += 1
    let id = "t\(openedTabs)"
    do {
      tabs[id] = try Tab(
        id: id, coordinator: coordinator, mergePolicy: mergePolicy, clipboard: clipboard)
    } catch {
      throw EditorError(error)
    }
    return TabPayload(tab: id, state: try existingTab(id).state)
  }

  /// Closes a tab, dropping its unsaved changes.
  public func closeTab(_ id: String) throws(EditorError) {
    try existingTab(id).close()
    tabs[id] = nil
  }

  /// The tab's live channel: each later change to a table it has shown, and each save of
  /// another tab. A new channel replaces the tab's previous one, which finishes.
  public func liveEvents(tab id: String) throws(EditorError) -> AsyncStream<LiveEvent> {
    let tab = try existingTab(id)
    tab.live?.finish()
    let (stream, continuation) = AsyncStream.makeStream(
      of: LiveEvent.self, bufferingPolicy: .bufferingNewest(256))
    tab.live = continuation
    return stream
  }

  /// The tab's undo state.
  public func state(tab id: String) throws(EditorError) -> StatePayload {
    try existingTab(id).state
  }

  func existingTab(_ id: String) throws(EditorError) -> Tab {
    guard let tab = tabs[id] else { throw EditorError.unknownTab(id) }
    return tab
  }
}
