import CSQLite
import FolioModel
import FolioStores
import Foundation

/// How attribute values sit in a Core Data SQLite store's columns, both ways.
///
/// Integers and Booleans are INTEGER; Double and Float are REAL; dates are seconds since
/// 2001-01-01 (REAL, or INTEGER where the value is whole: the TIMESTAMP column has numeric
/// affinity); Decimal is REAL (Core Data's choice: digits past a Double's are not kept);
/// strings and URIs are TEXT; UUIDs are 16 bytes; binary and transformable values are the
/// bytes. Binary data that "allows external storage" starts with a marker byte: 1 and the bytes,
/// or 2 and the name of a file in the store's external-data folder.
enum SQLiteValues {
  /// Where a value was read, for errors: the table, column and row.
  struct Place {
    let file: String
    let table: String
    let column: String
    let primaryKey: Int64
    let entity: String
    let key: String

    func error(_ code: StoreError.Code, _ message: String) -> StoreError {
      StoreError(
        code, "\(table).\(column) of row Z_PK \(primaryKey) (\(entity).\(key)): \(message)",
        at: InputLocation(file: file, entity: entity, property: key))
    }

    func error(_ problem: Problem) -> StoreError { error(problem.code, problem.message) }
  }

  /// What is wrong with a value: the caller names the place (``Place``), so reading a value
  /// that is right costs nothing to describe it.
  struct Problem: Error {
    let code: StoreError.Code
    let message: String
  }

  /// How a column's values read: its attribute's type, and whether it may hold an external
  /// reference.
  struct Column {
    let type: AttributeType
    let allowsExternalStorage: Bool

    init(_ attribute: AttributeDescription) {
      type = attribute.attributeType
      allowsExternalStorage = attribute.allowsExternalBinaryDataStorage
    }
  }

  /// The value in column `index` of the statement's current row as `column`'s type; `nil` for
  /// NULL.
  ///
  /// - Throws: ``Problem``, `.typeMismatch` when the value is not of the attribute's type.
  static func read<Rows: RecordRows>(
    _ statement: Rows, _ index: Int, as column: Column,
    externalData: ExternalDataFolder?
  ) throws(Problem) -> AttributeValue? {
    let storage = statement.type(index)
    if storage == SQLITE_NULL { return nil }
    func mismatch() -> Problem {
      let kind =
        switch storage {
        case SQLITE_INTEGER: "an integer"
        case SQLITE_FLOAT: "a real"
        case SQLITE_TEXT: "text"
        default: "a blob"
        }
      return Problem(
        code: .typeMismatch, message: "\(kind) is not a value of type \(column.type.xcodeName)")
    }
    switch column.type {
    case .integer16, .integer32, .integer64:
      let value: Int64
      if storage == SQLITE_INTEGER {
        value = statement.int64(index)
      } else if storage == SQLITE_FLOAT, let whole = Int64(exactly: statement.double(index)) {
        value = whole
      } else {
        throw mismatch()
      }
      guard let range = column.type.integerRange, range.contains(value) else {
        throw Problem(
          code: .typeMismatch, message: "\(value) does not fit \(column.type.xcodeName)")
      }
      return .integer(value)
    case .boolean:
      guard storage == SQLITE_INTEGER else { throw mismatch() }
      return .boolean(statement.int64(index) != 0)
    case .double:
      guard storage == SQLITE_FLOAT || storage == SQLITE_INTEGER else { throw mismatch() }
      return .double(statement.double(index))
    case .float:
      guard storage == SQLITE_FLOAT || storage == SQLITE_INTEGER else { throw mismatch() }
      return .float(Float(statement.double(index)))
    case .date:
      guard storage == SQLITE_FLOAT || storage == SQLITE_INTEGER else { throw mismatch() }
      return .date(Date(timeIntervalSinceReferenceDate: statement.double(index)))
    case .decimal:
      switch storage {
      case SQLITE_INTEGER: return .decimal(Decimal(statement.int64(index)))
      case SQLITE_FLOAT: return .decimal(decimal(from: statement.double(index)))
      case SQLITE_TEXT:
        guard let text = statement.text(index), let value = Decimal(string: text) else {
          throw mismatch()
        }
        return .decimal(value)
      default: throw mismatch()
      }
    case .string:
      guard storage == SQLITE_TEXT else { throw mismatch() }
      guard let text = statement.validatedText(index) else {
        throw Problem(code: .typeMismatch, message: "the text is not valid UTF-8")
      }
      return .string(text)
    case .uri:
      guard storage == SQLITE_TEXT, let text = statement.text(index) else { throw mismatch() }
      guard let url = URL(string: text) else {
        throw Problem(code: .typeMismatch, message: "\"\(text.prefix(80))\" is not a URI")
      }
      return .uri(url)
    case .uuid:
      if storage == SQLITE_TEXT, let text = statement.text(index), let uuid = UUID(uuidString: text)
      {
        return .uuid(uuid)
      }
      guard storage == SQLITE_BLOB, let data = statement.blob(index), data.count == 16 else {
        throw mismatch()
      }
      return .uuid(uuid(from: data))
    case .binaryData:
      guard storage == SQLITE_BLOB, let data = statement.blob(index) else { throw mismatch() }
      guard column.allowsExternalStorage else { return .binaryData(data) }
      return try external(data, folder: externalData).map { .binaryData($0) }
    case .transformable:
      guard storage == SQLITE_BLOB, let data = statement.blob(index) else { throw mismatch() }
      return .transformable(data)
    case .objectID, .composite, .undefined:
      return nil
    }
  }

  /// The decimal nearest `value` with the digits its shortest text shows (what Core Data's
  /// REAL column held), not the binary expansion.
  static func decimal(from value: Double) -> Decimal {
    Decimal(string: "\(value)") ?? Decimal(value)
  }

  static func uuid(from data: Data) -> UUID {
    let b = [UInt8](data)
    return UUID(
      uuid: (
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
        b[14], b[15]
      ))
  }

  static func data(from uuid: UUID) -> Data {
    withUnsafeBytes(of: uuid.uuid) { Data($0) }
  }

  /// The bytes of a binary value that may live outside the store.
  private static func external(_ data: Data, folder: ExternalDataFolder?) throws(Problem)
    -> Data?
  {
    guard let marker = data.first else {
      throw Problem(
        code: .malformedStore, message: "an externally storable value has no marker byte")
    }
    switch marker {
    case 1:
      return data.dropFirst()
    case 2:
      let name = data.dropFirst().prefix { $0 != 0 }
      guard let text = String(bytes: name, encoding: .ascii), UUID(uuidString: text) != nil
      else {
        throw Problem(code: .malformedStore, message: "an external data reference names no file")
      }
      guard let folder else {
        throw Problem(
          code: .danglingReference, message: "the value is in an external file \(text)")
      }
      return try folder.read(text)
    default:
      throw Problem(
        code: .malformedStore,
        message: "an externally storable value starts with \(marker), not 1 or 2")
    }
  }

  /// Binds `value` at `index` as a column of `attribute`'s type.
  static func bind(
    _ value: AttributeValue?, at index: Int, to statement: SQLiteStatement,
    attribute: AttributeDescription
  ) {
    guard let value else { return statement.bindNull(at: index) }
    switch value {
    case .integer(let number): statement.bind(number, at: index)
    case .boolean(let flag): statement.bind(Int64(flag ? 1 : 0), at: index)
    case .double(let number): statement.bind(number, at: index)
    case .float(let number): statement.bind(Double(number), at: index)
    case .date(let date): statement.bind(date.timeIntervalSinceReferenceDate, at: index)
    case .decimal(let number):
      statement.bind(Double("\(number)") ?? NSDecimalNumber(decimal: number).doubleValue, at: index)
    case .string(let text): statement.bind(text, at: index)
    case .uri(let url): statement.bind(url.absoluteString, at: index)
    case .uuid(let uuid): statement.bind(data(from: uuid), at: index)
    case .binaryData(let bytes):
      if attribute.allowsExternalBinaryDataStorage {
        statement.bind(Data([1]) + bytes, at: index)
      } else {
        statement.bind(bytes, at: index)
      }
    case .transformable(let bytes): statement.bind(bytes, at: index)
    case .objectID, .composite: statement.bindNull(at: index)
    }
  }
}

/// The folder beside a store where Core Data keeps binary values too large for a row:
/// `.<store name>_SUPPORT/_EXTERNAL_DATA/`, one file per value, named by a UUID.
struct ExternalDataFolder {
  let url: URL
  let missing: SQLiteStore.MissingExternalData

  init(store: URL, missing: SQLiteStore.MissingExternalData) {
    self.missing = missing
    let name = store.deletingPathExtension().lastPathComponent
    url = store.deletingLastPathComponent()
      .appendingPathComponent(".\(name)_SUPPORT", isDirectory: true)
      .appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
  }

  /// The value in file `name`; `nil` when it is missing and the store reads that as nil.
  func read(_ name: String) throws(SQLiteValues.Problem) -> Data? {
    let file = url.appendingPathComponent(name)
    guard let data = FileManager.default.contents(atPath: file.path) else {
      if missing == .readAsNil { return nil }
      throw SQLiteValues.Problem(
        code: .danglingReference,
        message: "the value is in the external file \(file.path), which is missing or unreadable")
    }
    return data
  }
}
