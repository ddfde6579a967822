/// Streams the decompressed text of a (possibly multi-member) gzip input.
///
/// Members follow one another as one continuous text. After the last member
/// only zero bytes may follow (as `gzip -d` allows); anything else, a damaged
/// member, a bad CRC-32/ISIZE, or an input that ends inside a member is an
/// input error naming the file and the compressed byte offset.
///
/// Performance: inflates straight into the caller's buffer through an
/// ``InflateBackend`` (ISA-L when built with it, else the built-in decoder,
/// or zlib when asked for at build time); input is read in
/// `inputCapacity` blocks. The only per-call cost beyond the backend is a
/// state check.
final class GzipInflater {
    private enum State {
        case inMember
        case betweenMembers
        case zeroPadding
        case finished
    }

    private let reader: RawFileReader
    private let backend: any InflateBackend
    private let input: UnsafeMutableRawBufferPointer
    private var state = State.inMember
    /// Whether the current member's header has yet to be checked.
    private var atMemberStart = true
    private var endOfInput = false
    /// Stored-byte offset of `input`'s first byte.
    private var inputOffset = 0
    private var inputCount = 0
    /// Bytes of `input` already consumed.
    private var consumed = 0
    /// Members that ended since the last ``takeMemberEnds()``, when their
    /// trailers are checked by the caller. An empty member's is not: its
    /// trailer is checked here (see ``memberProduced``).
    private var memberEnds: [MemberEnd] = []
    /// Decoded bytes of the current member so far. A member that decodes to
    /// nothing has its trailer checked at once (CRC-32 0, length 0) instead
    /// of being recorded for the caller: a call fills its destination before
    /// it returns, so empty members, which fill nothing, were recorded
    /// without bound (4.5 million 20-byte members, 90 MB, held 332 MB;
    /// sixty-third session). The message is the one the caller's check would
    /// give, at the same offset, and any member before it that fails the
    /// caller's check is named first, as before (``ChunkFeed``).
    private var memberProduced = 0
    private let defersTrailerCheck: Bool
    /// An error met after a call had produced text: thrown by the next call,
    /// so that the text before it is handed on (its member's trailer is
    /// checked by the caller, and an earlier member's failed check comes
    /// first). A call that produced nothing throws at once (returning 0
    /// would end the text), and the members it ended are still there for
    /// ``takeMemberEnds()``.
    private var pendingError: AnalyzeError?

    static let inputCapacity = 1 << 18

    /// Starts on `reader`, whose first bytes were already read into `prefix`.
    /// With `defersTrailerCheck`, members' trailers are read but not checked:
    /// ``takeMemberEnds()`` hands them on, for the caller to check.
    init(reader: RawFileReader, prefix: [UInt8], backend: any InflateBackend = DefaultInflateBackend(),
         defersTrailerCheck: Bool = false) {
        self.reader = reader
        self.backend = backend
        self.defersTrailerCheck = defersTrailerCheck
        backend.defersTrailerCheck = defersTrailerCheck
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(Self.inputCapacity, prefix.count), alignment: 16)
        prefix.withUnsafeBytes { buffer.copyMemory(from: $0) }
        input = buffer
        inputCount = prefix.count
    }

    deinit { input.deallocate() }

    /// Offset in the stored file of the next compressed byte to decode.
    private var consumedOffset: Int { inputOffset + consumed }

    private var pending: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: input[consumed..<inputCount])
    }

    /// Makes at least `n` unconsumed bytes available unless the input ends first.
    private func ensurePending(_ n: Int) throws(AnalyzeError) {
        while inputCount - consumed < n && !endOfInput {
            let kept = inputCount - consumed
            if consumed > 0 {
                input.baseAddress!.copyMemory(from: input.baseAddress! + consumed, byteCount: kept)
                inputOffset += consumed
                consumed = 0
                inputCount = kept
            }
            let n = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: input[inputCount...]))
            if n == 0 { endOfInput = true }
            inputCount += n
        }
    }

    /// RFC 1952: magic `1f 8b`, method 8 (deflate), reserved flag bits zero.
    /// zlib checks this itself; ISA-L does not check the reserved bits.
    private func checkMemberHeader() throws(AnalyzeError) {
        try ensurePending(4)
        // Fewer than 4 bytes left: those there are checked (`1f 00` at the end
        // is damage, not a truncated member); a right prefix is a truncation,
        // which the backend path reports.
        let available = min(4, inputCount - consumed)
        let fits = (0..<available).allSatisfy { k in
            let byte = input[consumed + k]
            switch k {
            case 0: return byte == 0x1f
            case 1: return byte == 0x8b
            case 2: return byte == 8
            default: return byte & 0xE0 == 0
            }
        }
        guard fits else { throw damage("invalid gzip header") }
    }

    /// Damage at stored-byte `offset`, by default the next byte to decode.
    private func damage(_ what: String, at offset: Int? = nil) -> AnalyzeError {
        Self.damage(what, in: reader.name, at: offset ?? consumedOffset)
    }

    /// The error for damaged gzip in input `name` at stored-byte `offset`
    /// (also for a trailer checked away from the inflater: ``ChecksumLedger``).
    static func damage(_ what: String, in name: String, at offset: Int) -> AnalyzeError {
        .input("corrupt gzip in '\(name)' at byte offset \(offset): \(what)")
    }

    /// The members that ended in the ``read(into:)`` calls since the last
    /// call, their positions counted from the start of the last call's
    /// destination (also of a call that threw); empty unless the trailer
    /// check is deferred.
    func takeMemberEnds() -> [MemberEnd] {
        guard !memberEnds.isEmpty else { return [] }
        defer { memberEnds = [] }
        return memberEnds
    }

    /// Fills as much of `destination` as the input allows; 0 means the end.
    func read(into destination: UnsafeMutableRawBufferPointer) throws(AnalyzeError) -> Int {
        if let error = pendingError {
            pendingError = nil
            throw error
        }
        var produced = 0
        do {
            try read(into: destination, produced: &produced)
        } catch {
            guard defersTrailerCheck && produced > 0 else { throw error }
            pendingError = error
        }
        return produced
    }

    private func read(into destination: UnsafeMutableRawBufferPointer, produced: inout Int) throws(AnalyzeError) {
        while produced < destination.count {
            try ensurePending(1)
            switch state {
            case .finished:
                return
            case .inMember:
                if atMemberStart {
                    try checkMemberHeader()
                    atMemberStart = false
                }
                if consumed == inputCount && endOfInput {
                    throw .input("truncated gzip in '\(reader.name)' at byte offset \(consumedOffset): the stream ends inside a member")
                }
                let step: (consumed: Int, produced: Int, memberEnded: Bool)
                do {
                    step = try backend.inflate(pending, into: UnsafeMutableRawBufferPointer(rebasing: destination[produced...]))
                } catch {
                    // A trailer that does not match is named by its first
                    // byte, damage in the data by where the decoder stopped.
                    throw damage(error.reason, at: error.place.map { consumedOffset + $0 })
                }
                consumed += step.consumed
                produced += step.produced
                memberProduced += step.produced
                if step.memberEnded {
                    state = .betweenMembers
                    // A failed check names the trailer's first byte, as when
                    // the backend checks it: the same whatever the threads.
                    if let trailer = backend.takeTrailer() {
                        let trailerOffset = consumedOffset - 8
                        if memberProduced == 0 {
                            do {
                                try MemberCheck.compare(trailer: trailer, crc: 0, length: 0)
                            } catch {
                                throw damage(error.reason, at: trailerOffset)
                            }
                        } else {
                            memberEnds.append(MemberEnd(position: produced, trailer: trailer, offset: trailerOffset))
                        }
                    }
                    memberProduced = 0
                }
            case .betweenMembers:
                if consumed == inputCount {
                    if endOfInput { state = .finished }
                    continue
                }
                let next = input[consumed]
                if next == 0x1f {
                    backend.reset()
                    state = .inMember
                    atMemberStart = true
                } else if next == 0 {
                    state = .zeroPadding
                } else {
                    throw damage("unexpected bytes after a gzip member")
                }
            case .zeroPadding:
                while consumed < inputCount {
                    if input[consumed] != 0 { throw damage("unexpected bytes after a gzip member") }
                    consumed += 1
                }
                if endOfInput { state = .finished }
            }
        }
    }
}
