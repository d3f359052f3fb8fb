import FolioModel
import Foundation

// Apple's binary property list, `bplist00`: what Core Data's SQLite store keeps in
// Z_METADATA.Z_PLIST, and what NSKeyedArchiver writes (Z_MODELCACHE).
//
// The layout: the 8-byte header `bplist00`; the objects, each a marker byte (type in the high
// nibble, a small count or size in the low one) and its content; an offset table giving each
// object's byte offset, `offsetIntSize` bytes big-endian per entry; and a 32-byte trailer —
// 5 unused bytes, a sort version, `offsetIntSize`, `objectRefSize`, then `numObjects`,
// `topObject` and `offsetTableOffset` as 8-byte big-endian integers. Containers hold object
// numbers (indexes into the offset table) of `objectRefSize` bytes each, so objects may be
// shared, and a hostile file may make them refer to themselves.
//
// Markers: 0x00 null, 0x08 false, 0x09 true, 0x0F fill; 0x1n an integer of 2^n bytes (1, 2
// and 4 unsigned, 8 signed, 16 read when its value fits in 64 bits); 0x22/0x23 a 4- or 8-byte
// real; 0x33 a date (an 8-byte real, seconds since 2001-01-01); 0x4n data, 0x5n ASCII,
// 0x6n UTF-16BE and 0x7n UTF-8 strings; 0x8n a UID of n+1 bytes; 0xAn an array, 0xCn a set,
// 0xDn a dictionary (n key references, then n value references). A low nibble of 0xF means the
// count follows as an integer object.
//
// Reading is defensive, because the bytes come from a file anyone may have written: every
// offset and count is checked against the object area before it is used (so a huge count
// allocates nothing), the objects are walked with an explicit stack rather than recursion
// (no stack overflow at any depth), a container that contains itself, directly or not, is an
// error, and sharing is bounded so that a few hundred bytes cannot expand into billions of
// nodes.

/// Reads and writes Apple's binary property lists (`bplist00`).
package enum BinaryPropertyList {
  /// The most containers nested inside one another that a property list may have.
  static let maximumNestingLevels = 512

  /// The most nodes a property list of `byteCount` bytes may expand to, counting a shared
  /// object once for each place it appears.
  static func maximumExpandedNodes(byteCount: Int) -> Int {
    max(1 << 20, byteCount.multipliedReportingOverflow(by: 16).partialValue)
  }

  /// Decodes the property list in `data`.
  ///
  /// - Parameters:
  ///   - data: the whole property list, from its `bplist00` header to its trailer.
  ///   - file: the file that holds it, named in errors.
  /// - Throws: `StoreError.malformedStore` naming the byte offset of the bad header, trailer
  ///   entry or object; `StoreError.limitExceeded` when containers nest more than
  ///   ``maximumNestingLevels`` deep or shared objects expand past
  ///   ``maximumExpandedNodes(byteCount:)``.
  /// - Complexity: O(*n*) in the bytes.
  package static func decode(_ data: Data, file: String?) throws(StoreError) -> PropertyListNode {
    var reader = try BinaryPropertyListReader(bytes: [UInt8](data), file: file)
    return try reader.decodeTopObject()
  }

  /// The bytes of `value` as a binary property list.
  ///
  /// Offsets and object references take the fewest bytes (1, 2, 4 or 8) that hold them,
  /// equal strings, numbers, dates and data are written once, dictionary keys are sorted so
  /// that equal values give equal bytes, integers take the smallest width (a negative one
  /// eight bytes, as Apple writes them), dates are 8-byte reals, and strings are ASCII when
  /// every character is, UTF-16BE otherwise.
  ///
  /// - Complexity: O(*n* log *n*) in the nodes of `value`.
  package static func encode(_ value: PropertyListValue) -> Data {
    var writer = BinaryPropertyListWriter()
    let top = writer.add(value)
    return writer.serialized(top: top)
  }

  /// `value` as a binary property list whose `{"CF$UID": n}` dictionaries are UID objects:
  /// an NSKeyedArchiver archive (``BinaryPropertyListWriter/writesUIDs``).
  package static func encodeKeyedArchive(_ value: PropertyListValue) -> Data {
    var writer = BinaryPropertyListWriter()
    writer.writesUIDs = true
    let top = writer.add(value)
    return writer.serialized(top: top)
  }

  /// The error for a malformed property list, at `offset` of its bytes.
  static func malformed(_ message: String, file: String?, offset: Int) -> StoreError {
    StoreError(
      .malformedStore, "binary property list: \(message)",
      at: InputLocation(file: file, byteOffset: offset))
  }
}
