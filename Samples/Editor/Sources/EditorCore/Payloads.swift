/// The JSON the editor's API answers with. Each is a `Sendable` value made on the hub's actor
/// from the graph, so no object leaves the actor.

/// The model: each entity with the attributes and relationships a table shows as columns.
public struct ModelPayload: Sendable, Codable, Equatable {
  public struct Attribute: Sendable, Codable, Equatable {
    public var name: String
    /// Xcode's name of its type: `Double`, `String`, `Date`, ….
    public var type: String
    public var isOptional: Bool
    /// Whether a cell of it can be edited as text.
    public var isEditable: Bool
  }
  public struct Relationship: Sendable, Codable, Equatable {
    public var name: String
    public var destination: String
    public var isToMany: Bool
  }
  public struct Entity: Sendable, Codable, Equatable {
    public var name: String
    public var isAbstract: Bool
    public var attributes: [Attribute]
    public var relationships: [Relationship]
  }
  public var entities: [Entity]
  /// The document the editor saves to: a file's path, or a PostgreSQL document's URL.
  public var file: String
  /// The merge policy every tab's context saves with (`object-trump`).
  public var mergePolicy: String
}

/// One object as a table row: its attributes' cells, and its relationships as labels.
public struct RowPayload: Sendable, Codable, Equatable {
  /// The object's ID as a URI: what edits and deletes name it by.
  public var id: String
  public var values: [String: JSONValue]
  /// A to-one relationship's target by its label (its first string attribute), a to-many
  /// one's count (`3 Spending`); `""` when empty.
  public var links: [String: String]
}

/// A tab's undo state and whether its context has unsaved changes.
public struct StatePayload: Sendable, Codable, Equatable {
  /// The action Undo would undo (`Edit Spending.amount`); `nil` when there is none.
  public var undo: String?
  /// The action Redo would redo; `nil` when there is none.
  public var redo: String?
  /// Whether the tab's context has changes it has not saved.
  public var hasChanges: Bool
  /// How many times the tab's graph has changed: a page keeps the state with the highest
  /// revision, since a live event can arrive after the answer to a later request.
  public var revision: Int
  /// What the server's clipboard holds, which Paste would paste (`2 Spending`); `nil` until a
  /// tab copies.
  public var clipboard: String? = nil
}

/// What a paste or a duplicate inserted: the rows of the copies of the objects copied, and the
/// references to other objects that the copies could not keep.
public struct PastePayload: Sendable, Codable, Equatable {
  /// A reference a copy could not keep: its target is not in the tab's context (`notFound`),
  /// is in another store (`otherStore`), or is another object's one-to-one (`inverseHeld`).
  public struct Dropped: Sendable, Codable, Equatable {
    /// The copy's ID, as its row's `id`.
    public var id: String
    /// `Spending.person`.
    public var place: String
    /// The URI of the object it named.
    public var target: String
    public var reason: String
  }
  /// The copies of the objects copied, in the order they were copied.
  public var rows: [RowPayload]
  /// How many objects were inserted: the copies above and what they own.
  public var inserted: Int
  public var dropped: [Dropped]
  public var state: StatePayload
}

/// The rows of one entity, in the table's order.
public struct TablePayload: Sendable, Codable, Equatable {
  public var entity: String
  public var rows: [RowPayload]
  public var state: StatePayload
}

/// What an edit or an insert answers: the row as it is now, and the tab's state.
public struct RowChangePayload: Sendable, Codable, Equatable {
  public var row: RowPayload?
  public var state: StatePayload
}

/// A tab just opened.
public struct TabPayload: Sendable, Codable, Equatable {
  public var tab: String
  public var state: StatePayload
}

/// What a tab hears on its live channel.
public struct LiveEvent: Sendable, Codable, Equatable {
  /// One change to a table, as the fetched results controller reported it.
  public struct Change: Sendable, Codable, Equatable {
    /// `insert`, `delete`, `move` or `update`.
    public var type: String
    public var id: String
    /// The row's position before the change (`nil` for an insert) and after it (`nil` for a
    /// delete).
    public var from: Int?
    public var to: Int?
    /// The row as it is now; `nil` for a delete.
    public var row: RowPayload?
  }
  /// `changes` (a table's rows changed), `saved` (another tab, or another process serving
  /// the document, saved; its changes were merged into this tab's context) or `copied`
  /// (another tab copied: the clipboard changed).
  public var kind: String
  /// The table that changed, for `changes`.
  public var entity: String?
  public var changes: [Change]
  /// The tab that saved, for `saved` (`nil` when another process saved); that copied, for
  /// `copied`.
  public var tab: String?
  /// This tab's state after the event.
  public var state: StatePayload
}
