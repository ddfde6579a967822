import CZlib

/// zlib's `inflate` in gzip mode (window bits 16 + 15).
final class ZlibInflateBackend: InflateBackend {
    private let stream: UnsafeMutablePointer<z_stream>

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
        let status = CZlib.inflate(stream, Z_NO_FLUSH)
        let consumed = input.count - Int(stream.pointee.avail_in)
        let produced = output.count - Int(stream.pointee.avail_out)
        switch status {
        case Z_OK, Z_BUF_ERROR:
            return (consumed, produced, false)
        case Z_STREAM_END:
            return (consumed, produced, true)
        default:
            throw InflateFailure(reason: stream.pointee.msg.map { String(cString: $0) } ?? "inflate error \(status)")
        }
    }

    func reset() { inflateReset(stream) }
}
