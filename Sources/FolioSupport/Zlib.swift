internal import CZlib

// zlib, reached through CZlib, and nowhere else: one-shot deflate, a bounded inflate, raw
// DEFLATE of unknown length and CRC-32, for the binary store, the SQLite store's model cache
// and the kept undo history.
//
// Each z_stream lives at a fixed heap address (zlib keeps a pointer back to it and checks it)
// and is owned by one noncopyable value whose deinit calls `deflateEnd`/`inflateEnd`, so no
// path leaks it. Buffers larger than zlib's 32-bit `avail_in`/`avail_out` are fed in chunks.
// No C type appears outside this file.

/// Why zlib refused to inflate a stream.
package enum InflateFailure: Error, Sendable {
  /// The stream would produce more bytes than were declared: a decompression bomb, or a lie.
  case tooLong
  /// The stream ended before producing the declared number of bytes.
  case tooShort(produced: Int)
  /// The input ended before the stream did, after `consumed` bytes.
  case cutShort(consumed: Int)
  /// The compressed bytes go on after the end of the stream.
  case trailingBytes(consumed: Int)
  /// zlib found the stream malformed; its message, and how far in it got.
  case corrupt(String, consumed: Int)
}

/// zlib's one-shot operations and checksum.
package enum Zlib {
  /// The most bytes handed to zlib in one call: its counters are 32-bit.
  private static let chunk = Int(UInt32.max / 2)

  /// The CRC-32 (ISO-HDLC, as zlib and PNG compute it) of `bytes`, continuing from `initial`.
  package static func crc32(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0)
    -> UInt32
  {
    var crc = UInt(initial)
    var rest = bytes
    while !rest.isEmpty {
      let count = min(rest.count, chunk)
      crc = CZlib.crc32(
        crc, rest.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(count))
      rest = UnsafeRawBufferPointer(rebasing: rest[count...])
    }
    return UInt32(truncatingIfNeeded: crc)
  }

  /// `bytes` compressed as one zlib stream at `level` (1 fastest … 9 smallest).
  package static func deflate(_ bytes: UnsafeRawBufferPointer, level: Int32) -> [UInt8] {
    var stream = Stream(deflateLevel: level)
    let bound = Int(deflateBound(stream.pointer, uLong(bytes.count)))
    // Only the bytes zlib writes are kept, so the buffer is not zeroed first.
    return [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
      count =
        stream.run(input: bytes, output: UnsafeMutableRawBufferPointer(buffer), finish: true)
        .produced
    }
  }

  /// The zlib stream `bytes` inflated into exactly `length` bytes, never allocating more.
  ///
  /// - Throws: `InflateFailure` when the stream is corrupt or its inflated length differs.
  ///
  /// `bytes` reach zlib in pieces of `pieceSize` bytes, as a file read a piece at a time does;
  /// the outcome is the same whatever the pieces.
  package static func inflate(
    _ bytes: UnsafeRawBufferPointer, length: Int, pieceSize: Int = .max
  ) throws(InflateFailure) -> [UInt8] {
    var failure: InflateFailure?
    // Only the bytes zlib writes are kept, so the buffer is not zeroed first.
    let output = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
      var inflater = Inflater(into: UnsafeMutableRawBufferPointer(buffer))
      var start = 0
      while start < bytes.count {
        let end = start + min(bytes.count - start, pieceSize)
        inflater.feed(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        start = end
      }
      do throws(InflateFailure) {
        try inflater.finish()
        count = length
      } catch {
        failure = error
        count = 0
      }
    }
    if let failure { throw failure }
    return output
  }
}

extension Zlib {
  /// The bytes zlib inflates a raw stream into at a time.
  private static let rawScratchSize = 1 << 16

  /// `bytes`, a raw DEFLATE stream (RFC 1951: no zlib header, no checksum) of unknown
  /// inflated length, as Core Data keeps its model cache, inflated to at most `limit` bytes.
  /// zlib inflates into a fixed scratch buffer whose content is appended to the output, so a
  /// small hostile stream cannot make it allocate more than the limit and the buffer.
  ///
  /// - Throws: `InflateFailure`: `.corrupt`, `.cutShort`, `.trailingBytes` (bytes follow the
  ///   end of the stream), or `.tooLong` past `limit`.
  package static func inflateRaw(_ bytes: [UInt8], limit: Int) throws(InflateFailure) -> [UInt8] {
    var stream = Stream(inflatingRaw: ())
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: rawScratchSize, alignment: 1)
    defer { scratch.deallocate() }
    var output: [UInt8] = []
    var consumed = 0
    while true {
      let step = bytes.withUnsafeBytes { input in
        stream.run(
          input: UnsafeRawBufferPointer(rebasing: input[consumed...]), output: scratch,
          finish: false)
      }
      consumed += step.consumed
      guard output.count + step.produced <= limit else { throw .tooLong }
      output.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<step.produced]))
      if let message = step.error { throw .corrupt(message, consumed: consumed) }
      if step.ended {
        guard consumed == bytes.count else { throw .trailingBytes(consumed: consumed) }
        return output
      }
      if step.consumed == 0, step.produced == 0 {
        // With an empty scratch buffer and no progress, zlib wants input that is not there.
        guard consumed < bytes.count else { throw .cutShort(consumed: consumed) }
        throw .corrupt("zlib made no progress", consumed: consumed)
      }
    }
  }
}

/// A zlib stream inflated a piece at a time, as its bytes arrive, into `output`: the same
/// checks as ``Zlib/inflate(_:length:)``, whose result a stream cut into any pieces gets.
///
/// A piece after a failure is ignored; ``finish()`` reports the first failure.
package struct Inflater: ~Copyable {
  private var stream = Stream(inflating: ())
  private let output: UnsafeMutableRawBufferPointer
  private var produced = 0
  private var consumed = 0
  private var ended = false
  /// Input arrived that the stream could not take: it had ended, or its output was full.
  private var isRefusing = false
  private var corruption: String?

  /// An inflater filling exactly `output`, which must stay valid until ``finish()``.
  ///
  /// With `checksAdler32` false, the stream's Adler-32 is neither computed nor checked (its
  /// four bytes must still be there): for a stream whose every byte a CRC-32 has covered.
  package init(into output: UnsafeMutableRawBufferPointer, checksAdler32: Bool = true) {
    self.output = output
    if !checksAdler32 { stream.skipCheck() }
  }

  /// Inflates the next piece of the stream.
  package mutating func feed(_ piece: UnsafeRawBufferPointer) {
    guard !piece.isEmpty, corruption == nil, !isRefusing else { return }
    guard !ended else {
      isRefusing = true
      return
    }
    let outcome = stream.run(
      input: piece, output: UnsafeMutableRawBufferPointer(rebasing: output[produced...]),
      finish: false)
    consumed += outcome.consumed
    produced += outcome.produced
    if let message = outcome.error {
      corruption = message
    } else if outcome.ended {
      ended = true
      isRefusing = outcome.consumed < piece.count
    } else if outcome.consumed < piece.count {
      // The output is full and the stream wants to go on.
      isRefusing = true
    }
  }

  /// The stream's outcome once every piece is fed.
  ///
  /// - Throws: `InflateFailure` when the stream is corrupt, cut short, or inflates to more or
  ///   fewer bytes than `output` holds, in the order ``Zlib/inflate(_:length:)`` checks.
  package func finish() throws(InflateFailure) {
    if let corruption { throw .corrupt(corruption, consumed: consumed) }
    guard ended else {
      // Output full and input left over: the stream goes on past the declared length. Output
      // full with every byte taken: the stream is cut, if only in its Adler-32.
      if produced == output.count, isRefusing { throw .tooLong }
      throw .cutShort(consumed: consumed)
    }
    guard produced == output.count else { throw .tooShort(produced: produced) }
    guard !isRefusing else { throw .trailingBytes(consumed: consumed) }
  }
}

/// One z_stream, deflating or inflating, freed when the value goes away.
private struct Stream: ~Copyable {
  let pointer: UnsafeMutablePointer<z_stream>
  let isDeflating: Bool

  init(deflateLevel level: Int32) {
    pointer = .allocate(capacity: 1)
    pointer.initialize(to: z_stream())
    isDeflating = true
    guard folio_deflate_init(pointer, level) == Z_OK else {
      preconditionFailure("zlib deflateInit failed: out of memory or a bad level \(level)")
    }
  }

  init(inflating: Void) {
    pointer = .allocate(capacity: 1)
    pointer.initialize(to: z_stream())
    isDeflating = false
    guard folio_inflate_init(pointer) == Z_OK else {
      preconditionFailure("zlib inflateInit failed: out of memory")
    }
  }

  /// A stream inflating raw DEFLATE. inflateInit is a macro Swift cannot call, so the shim's
  /// zlib-format init is switched to raw DEFLATE (negative window bits) by inflateReset2, a
  /// plain function.
  init(inflatingRaw: Void) {
    pointer = .allocate(capacity: 1)
    pointer.initialize(to: z_stream())
    isDeflating = false
    guard folio_inflate_init(pointer) == Z_OK, inflateReset2(pointer, -15) == Z_OK else {
      preconditionFailure("zlib inflateInit failed: out of memory")
    }
  }

  /// Stops an inflating stream computing and checking its Adler-32.
  func skipCheck() { folio_inflate_skip_check(pointer) }

  deinit {
    if isDeflating { deflateEnd(pointer) } else { inflateEnd(pointer) }
    pointer.deinitialize(count: 1)
    pointer.deallocate()
  }

  /// What one run did: bytes consumed and produced, whether the stream ended, zlib's error.
  struct Outcome {
    var consumed = 0
    var produced = 0
    var ended = false
    var error: String?
  }

  /// Feeds all of `input` and fills `output` as far as the stream goes, in 32-bit chunks.
  mutating func run(
    input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer, finish: Bool
  ) -> Outcome {
    var outcome = Outcome()
    let chunk = Int(UInt32.max / 2)
    while true {
      let inCount = min(input.count - outcome.consumed, chunk)
      let outCount = min(output.count - outcome.produced, chunk)
      let inStart = input.baseAddress.map { $0 + outcome.consumed }
      let outStart = output.baseAddress.map { $0 + outcome.produced }
      pointer.pointee.next_in = UnsafeMutablePointer(
        mutating: inStart?.assumingMemoryBound(to: Bytef.self))
      pointer.pointee.avail_in = uInt(inCount)
      pointer.pointee.next_out = outStart?.assumingMemoryBound(to: Bytef.self)
      pointer.pointee.avail_out = uInt(outCount)
      let isLastInput = outcome.consumed + inCount == input.count
      let flush = finish && isLastInput ? Z_FINISH : Z_NO_FLUSH
      let status = isDeflating ? deflate(pointer, flush) : inflate(pointer, flush)
      outcome.consumed += inCount - Int(pointer.pointee.avail_in)
      outcome.produced += outCount - Int(pointer.pointee.avail_out)
      switch status {
      case Z_STREAM_END:
        outcome.ended = true
        return outcome
      case Z_OK, Z_BUF_ERROR:
        let progressed =
          Int(pointer.pointee.avail_in) < inCount
          || Int(pointer.pointee.avail_out) < outCount
        let outputFull = outcome.produced == output.count
        let inputDone = outcome.consumed == input.count
        if outputFull || (inputDone && !progressed) || (!progressed && status == Z_BUF_ERROR) {
          return outcome
        }
      default:
        let message = pointer.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
        outcome.error = message
        return outcome
      }
    }
  }
}
