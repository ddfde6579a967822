#if ANALYZE_ISAL
import CISAL

/// ISA-L's `isal_inflate` with `crc_flag = ISAL_GZIP` (header parsed, CRC-32
/// and ISIZE verified). About twice as fast as zlib on x86-64.
final class ISALInflateBackend: InflateBackend {
    private let state: UnsafeMutablePointer<inflate_state>

    static var name: String { "ISA-L igzip" }

    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: inflate_state())
        isal_inflate_init(state)
        state.pointee.crc_flag = UInt32(ISAL_GZIP)
    }

    deinit { state.deallocate() }

    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        throws(InflateFailure) -> (consumed: Int, produced: Int, memberEnded: Bool)
    {
        state.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        state.pointee.avail_in = UInt32(input.count)
        state.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        state.pointee.avail_out = UInt32(output.count)
        let status = isal_inflate(state)
        let consumed = input.count - Int(state.pointee.avail_in)
        let produced = output.count - Int(state.pointee.avail_out)
        guard status >= ISAL_DECOMP_OK else {
            throw InflateFailure(reason: Self.describe(status))
        }
        return (consumed, produced, state.pointee.block_state == ISAL_BLOCK_FINISH)
    }

    func reset() {
        isal_inflate_reset(state)
        state.pointee.crc_flag = UInt32(ISAL_GZIP)
    }

    private static func describe(_ status: Int32) -> String {
        switch status {
        case ISAL_INVALID_BLOCK: "invalid deflate block"
        case ISAL_INVALID_SYMBOL: "invalid deflate symbol"
        case ISAL_INVALID_LOOKBACK: "invalid distance"
        case ISAL_INVALID_WRAPPER: "invalid gzip header"
        case ISAL_UNSUPPORTED_METHOD: "unsupported compression method"
        case ISAL_INCORRECT_CHECKSUM: "incorrect checksum"
        default: "inflate error \(status)"
        }
    }
}
#endif
