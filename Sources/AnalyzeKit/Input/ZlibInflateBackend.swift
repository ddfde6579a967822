import CZlib

/// zlib's `inflate` in gzip mode (window bits 16 + 15), with the member's
/// CRC-32 and length checked here rather than by zlib.
///
/// Performance: zlib 1.2.13 computes the CRC a byte table at a time, about a
/// fifth of its inflate time on the benchmark exports, and on the one thread
/// that inflates. So each member's header is inflated alone (`Z_BLOCK`) with
/// zlib's checks on, which covers the optional header CRC-16; then
/// `inflateValidate(_, 0)` turns them off for the data. ``CRC32`` (folded with
/// PCLMULQDQ where the CPU has it) checks the output instead, and the
/// trailer's CRC-32 and ISIZE are read from the last eight bytes consumed.
final class ZlibInflateBackend: InflateBackend {
    private let stream: UnsafeMutablePointer<z_stream>
    /// The current member's output so far, for its trailer.
    private var check = MemberCheck()
    var defersTrailerCheck = false {
        didSet { check = MemberCheck(defers: defersTrailerCheck) }
    }

    func takeTrailer() -> UInt64? { check.takeTrailer() }
    /// The last eight input bytes consumed, the latest in the high byte: at a
    /// member's end, its trailer (CRC-32 then ISIZE, little-endian).
    private var lastConsumed: UInt64 = 0
    /// Whether the current member's header is still being read.
    private var inHeader = true

    static var name: String { "zlib " + String(cString: zlibVersion()) }

    init() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Only fails without memory, which the allocator reports first.
        precondition(czlib_inflate_init_gzip(stream) == Z_OK, "cannot initialise zlib")
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        throws(InflateFailure) -> (consumed: Int, produced: Int, memberEnded: Bool)
    {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = UInt32(input.count)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = UInt32(output.count)
        if inHeader {
            // Checks on for the header (its CRC-16, when it has one); `Z_BLOCK`
            // returns just after it, bit 7 of `data_type` set, before any data.
            inflateValidate(stream, 1)
            let status = CZlib.inflate(stream, Z_BLOCK)
            let consumed = input.count - Int(stream.pointee.avail_in)
            remember(consumed: UnsafeRawBufferPointer(rebasing: input[..<consumed]))
            guard status == Z_OK || status == Z_BUF_ERROR else { throw failure(status) }
            if stream.pointee.data_type & 128 != 0 {
                inHeader = false
                inflateValidate(stream, 0)
            }
            return (consumed, 0, false)
        }
        let status = CZlib.inflate(stream, Z_NO_FLUSH)
        let consumed = input.count - Int(stream.pointee.avail_in)
        let produced = output.count - Int(stream.pointee.avail_out)
        switch status {
        case Z_OK, Z_BUF_ERROR, Z_STREAM_END:
            check.add(UnsafeRawBufferPointer(rebasing: output[..<produced]))
            remember(consumed: UnsafeRawBufferPointer(rebasing: input[..<consumed]))
            guard status == Z_STREAM_END else { return (consumed, produced, false) }
            // zlib stops exactly after the trailer (it hands back bytes its bit
            // buffer read ahead), so the trailer is the last 8 bytes consumed.
            try check.verify(trailer: lastConsumed, endingAt: consumed)
            return (consumed, produced, true)
        default:
            throw failure(status, stoppedAt: consumed)
        }
    }

    /// zlib's own words for a failed `inflate` call; `stoppedAt`: the input it
    /// had consumed then (zlib updates `next_in` on an error too).
    private func failure(_ status: Int32, stoppedAt: Int? = nil) -> InflateFailure {
        InflateFailure(reason: stream.pointee.msg.map { String(cString: $0) } ?? "inflate error \(status)", place: stoppedAt)
    }

    /// Shifts the last (up to eight) of `bytes` into ``lastConsumed``.
    private func remember(consumed bytes: UnsafeRawBufferPointer) {
        if bytes.count >= 8 {
            lastConsumed = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
            return
        }
        for byte in bytes {
            lastConsumed = lastConsumed >> 8 | UInt64(byte) << 56
        }
    }

    func reset() {
        inflateReset(stream)
        inHeader = true
        check = MemberCheck(defers: defersTrailerCheck)
    }
}
