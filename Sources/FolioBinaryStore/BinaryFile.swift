import FolioModel
import FolioStores
import Foundation

/// Reads a binary store's file, whole or in parts, turning I/O failures into `StoreError`.
struct BinaryFile {
  let url: URL
  var path: String { url.path }

  private func failure(_ error: any Error) -> StoreError {
    if !FileManager.default.fileExists(atPath: path) {
      return StoreError(.notFound, "no file at \(path)", at: InputLocation(file: path))
    }
    return StoreError(
      .unreadable, "cannot read the file (\(error.localizedDescription))",
      at: InputLocation(file: path))
  }

  /// Every byte of the file.
  func readAll() throws(StoreError) -> Data {
    do {
      return try Data(contentsOfFile: url)
    } catch {
      throw failure(error)
    }
  }

  /// A handle reading the file.
  func open() throws(StoreError) -> FileHandle {
    do {
      return try FileHandle(forReadingFrom: url)
    } catch {
      throw failure(error)
    }
  }

  /// The file's size in bytes.
  func size(of handle: FileHandle) throws(StoreError) -> Int {
    do {
      return Int(try handle.seekToEnd())
    } catch {
      throw failure(error)
    }
  }

  /// `count` bytes from `offset`, which the caller has checked lie inside the file.
  func read(_ handle: FileHandle, at offset: Int, count: Int) throws(StoreError) -> [UInt8] {
    do {
      try handle.seek(toOffset: UInt64(offset))
      let data = try handle.read(upToCount: count) ?? Data()
      guard data.count == count else {
        throw StoreError(
          .truncated, "the file ended while reading \(count) bytes from byte \(offset)",
          at: InputLocation(file: path, byteOffset: offset + data.count))
      }
      return [UInt8](data)
    } catch let error as StoreError {
      throw error
    } catch {
      throw failure(error)
    }
  }
}
