import CZlib

/// Streams the decompressed text of a (possibly multi-member) gzip input.
///
/// Members follow one another as one continuous text. After the last member
/// only zero bytes may follow (as `gzip -d` allows); anything else, a damaged
/// member, a bad CRC-32/ISIZE, or an input that ends inside a member is an
/// input error naming the file and the compressed byte offset.
///
/// Performance: inflates straight into the caller's buffer; input is read in
/// `inputCapacity` blocks. The only per-call cost beyond zlib is a state check.
final class GzipInflater {
    private enum State {
        case inMember
        case betweenMembers
        case zeroPadding
        case finished
    }

    private let reader: RawFileReader
    private let stream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeMutableRawBufferPointer
    private var state = State.inMember
    private var endOfInput = false
    /// Stored-byte offset of `input`'s first byte.
    private var inputOffset = 0
    private var inputCount = 0

    static let inputCapacity = 1 << 18

    /// Starts on `reader`, whose first `prefetched` bytes are already in `prefix`.
    init(reader: RawFileReader, prefix: [UInt8]) throws(AnalyzeError) {
        self.reader = reader
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(Self.inputCapacity, prefix.count), alignment: 16)
        prefix.withUnsafeBytes { buffer.copyMemory(from: $0) }
        input = buffer
        inputCount = prefix.count
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = UInt32(inputCount)
        guard czlib_inflate_init_gzip(stream) == Z_OK else {
            stream.deallocate()
            input.deallocate()
            throw .input("cannot initialise zlib for '\(reader.name)'")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        input.deallocate()
    }

    /// Offset in the stored file of the next compressed byte zlib would read.
    private var consumedOffset: Int { inputOffset + inputCount - Int(stream.pointee.avail_in) }

    private func refill() throws(AnalyzeError) {
        inputOffset += inputCount
        inputCount = try reader.read(into: input)
        if inputCount == 0 { endOfInput = true }
        stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = UInt32(inputCount)
    }

    private func damage(_ what: String) -> AnalyzeError {
        .input("corrupt gzip in '\(reader.name)' at byte offset \(consumedOffset): \(what)")
    }

    /// Fills as much of `destination` as the input allows; 0 means the end.
    func read(into destination: UnsafeMutableRawBufferPointer) throws(AnalyzeError) -> Int {
        let base = destination.baseAddress!.assumingMemoryBound(to: Bytef.self)
        var produced = 0
        while produced < destination.count {
            if stream.pointee.avail_in == 0 && !endOfInput {
                try refill()
            }
            switch state {
            case .finished:
                return produced
            case .inMember:
                if stream.pointee.avail_in == 0 && endOfInput {
                    throw .input("truncated gzip in '\(reader.name)' at byte offset \(consumedOffset): the stream ends inside a member")
                }
                stream.pointee.next_out = base + produced
                stream.pointee.avail_out = UInt32(destination.count - produced)
                let status = inflate(stream, Z_NO_FLUSH)
                produced = destination.count - Int(stream.pointee.avail_out)
                switch status {
                case Z_OK, Z_BUF_ERROR:
                    break
                case Z_STREAM_END:
                    state = .betweenMembers
                default:
                    let reason = stream.pointee.msg.map { String(cString: $0) } ?? "inflate error \(status)"
                    throw damage(reason)
                }
            case .betweenMembers:
                if stream.pointee.avail_in == 0 {
                    if endOfInput { state = .finished }
                    continue
                }
                let next = stream.pointee.next_in.pointee
                if next == 0x1f {
                    inflateReset(stream)
                    state = .inMember
                } else if next == 0 {
                    state = .zeroPadding
                } else {
                    throw damage("unexpected bytes after a gzip member")
                }
            case .zeroPadding:
                while stream.pointee.avail_in > 0 {
                    if stream.pointee.next_in.pointee != 0 {
                        throw damage("unexpected bytes after a gzip member")
                    }
                    stream.pointee.next_in += 1
                    stream.pointee.avail_in -= 1
                }
                if endOfInput { state = .finished }
            }
        }
        return produced
    }
}
