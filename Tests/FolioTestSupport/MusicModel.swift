import FolioModel

/// Playlists and tracks: strings, an integer with a default, and an ordered to-many with its
/// to-one inverse and a Cascade rule. Several test targets build models around it.
public enum MusicEntities {
  /// `Playlist`: `name`, and `tracks`, ordered, to `Track` (Cascade).
  public static let playlist = EntityDescription("Playlist") {
    AttributeDescription("name", .string)
    RelationshipDescription(
      "tracks", to: "Track", inverse: "playlist", toMany: true, ordered: true,
      deleteRule: .cascade)
  }

  /// `Track`: `title`, `seconds` (Integer 32, default 0), and `playlist`.
  public static let track = EntityDescription("Track") {
    AttributeDescription("title", .string)
    AttributeDescription("seconds", .integer32, defaultValue: .integer(0))
    RelationshipDescription("playlist", to: "Playlist", inverse: "tracks")
  }
}
