internal import CZlib

/// Why a raw DEFLATE stream did not inflate.
enum RawInflateFailure: Error, Sendable {
  /// zlib found the stream malformed; its message.
  case corrupt(String)
  /// The input ended before the stream did.
  case truncated
  /// Bytes follow the end of the stream: how many.
  case trailingBytes(Int)
  /// The stream inflates to more than the limit, in bytes.
  case tooLong(limit: Int)
}

/// Raw DEFLATE (RFC 1951: no zlib or gzip header, no checksum) of unknown inflated length,
/// as Core Data keeps its model cache. zlib inflates into a fixed scratch buffer whose content
/// is appended to the output, so a small hostile stream cannot make it allocate more than the
/// limit and the scratch buffer.
enum RawInflate {
  /// The most input bytes handed to zlib in one call: its counters are 32-bit.
  private static let chunk = Int(UInt32.max / 2)
  /// The bytes zlib inflates in one call.
  private static let scratchSize = 1 << 16

  /// `bytes` inflated, at most `limit` bytes of it.
  ///
  /// - Throws: `RawInflateFailure` when the stream is corrupt, cut short, followed by other
  ///   bytes, or longer than `limit`.
  static func inflate(_ bytes: [UInt8], limit: Int) throws(RawInflateFailure) -> [UInt8] {
    var stream = RawInflateStream()
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: scratchSize, alignment: 1)
    defer { scratch.deallocate() }
    var output: [UInt8] = []
    var consumed = 0
    while true {
      let step = bytes.withUnsafeBytes { input in
        stream.step(
          input: UnsafeRawBufferPointer(
            rebasing: input[consumed..<consumed + min(input.count - consumed, chunk)]),
          output: scratch)
      }
      consumed += step.consumed
      guard output.count + step.produced <= limit else { throw .tooLong(limit: limit) }
      output.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<step.produced]))
      if let message = step.error { throw .corrupt(message) }
      if step.ended {
        guard consumed == bytes.count else { throw .trailingBytes(bytes.count - consumed) }
        return output
      }
      if step.consumed == 0, step.produced == 0 {
        // With an empty scratch buffer and no progress, zlib wants input that is not there.
        throw consumed == bytes.count ? .truncated : .corrupt("zlib made no progress")
      }
    }
  }
}

/// One inflating z_stream for raw DEFLATE, freed when the value goes away.
private struct RawInflateStream: ~Copyable {
  private let pointer: UnsafeMutablePointer<z_stream>

  init() {
    pointer = .allocate(capacity: 1)
    pointer.initialize(to: z_stream())
    // inflateInit is a macro Swift cannot call, so the shim's zlib-format init is switched to
    // raw DEFLATE (negative window bits) by inflateReset2, a plain function.
    guard folio_inflate_init(pointer) == Z_OK, inflateReset2(pointer, -15) == Z_OK else {
      preconditionFailure("zlib inflateInit failed: out of memory")
    }
  }

  deinit {
    inflateEnd(pointer)
    pointer.deinitialize(count: 1)
    pointer.deallocate()
  }

  /// What one call of `inflate` did.
  struct Step {
    var consumed = 0
    var produced = 0
    var ended = false
    var error: String?
  }

  /// Inflates as much of `input` into `output` as one call of zlib's `inflate` does.
  mutating func step(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer)
    -> Step
  {
    pointer.pointee.next_in = UnsafeMutablePointer(
      mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
    pointer.pointee.avail_in = uInt(input.count)
    pointer.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
    pointer.pointee.avail_out = uInt(output.count)
    let status = CZlib.inflate(pointer, Z_NO_FLUSH)
    var step = Step()
    step.consumed = input.count - Int(pointer.pointee.avail_in)
    step.produced = output.count - Int(pointer.pointee.avail_out)
    switch status {
    case Z_STREAM_END:
      step.ended = true
    case Z_OK, Z_BUF_ERROR:
      break
    case Z_NEED_DICT:
      step.error = "the stream needs a preset dictionary"
    default:
      step.error = pointer.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
    }
    pointer.pointee.next_in = nil
    pointer.pointee.next_out = nil
    return step
  }
}
