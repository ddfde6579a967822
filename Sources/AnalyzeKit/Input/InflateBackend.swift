/// One deflate implementation behind ``GzipInflater``: it decodes one gzip
/// member at a time (header, data, CRC-32 and ISIZE checked) and is reset
/// between members. ISA-L's is used when the build found its header
/// (`ANALYZE_ISAL`), else the built-in one; zlib's on request
/// (`ANALYZE_ZLIB_INFLATE`; see Package.swift). zlib's and the built-in one
/// are compiled into every build (ISA-L's only with its header), so tests can
/// compare them.
protocol InflateBackend: AnyObject {
    /// A name for `--version`, e.g. `zlib 1.2.13`.
    static var name: String { get }

    /// Decodes from `input` into `output`. Returns the bytes consumed and
    /// produced and whether the current member ended; throws a reason when the
    /// data is not valid gzip.
    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        throws(InflateFailure) -> (consumed: Int, produced: Int, memberEnded: Bool)

    /// Prepares for the next member.
    func reset()

    /// Whether a member's trailer is read but not checked: the caller checks
    /// it (``GzipInflater`` hands the CRC-32 to the workers, so that the
    /// inflating thread does not compute it). Kept across ``reset()``.
    var defersTrailerCheck: Bool { get set }

    /// Once a member ended with ``defersTrailerCheck`` on: its trailer (CRC-32
    /// in the low half, ISIZE in the high half), taken once.
    func takeTrailer() -> UInt64?
}

/// Why a backend rejected its input (zlib's or ISA-L's own words).
struct InflateFailure: Error {
    var reason: String
    /// The byte the error names, counted from the start of the input of the
    /// call that threw (negative when it lies in an earlier call's input), so
    /// that the message names the same byte whatever the read boundaries:
    /// * a trailer that does not match: its first byte;
    /// * damage the decoder found: where it stopped, the whole bytes its bit
    ///   buffer had read ahead given back. For zlib and the built-in decoder
    ///   the damaged byte is at or before it (a scrambled stretch can decode
    ///   for a while before a code fails to), and the place does not depend
    ///   on how the input and output were cut into calls. ISA-L's is the same
    ///   except when the failing code lies within a few bytes of a call's
    ///   input end, where its state after an error does not say exactly what
    ///   it had decoded: then it is approximate.
    /// Nil for damage in the header, which is named by the call's start, and
    /// where ISA-L's state is out of bounds.
    var place: Int?

    init(reason: String, place: Int? = nil) {
        self.reason = reason
        self.place = place
    }
}

/// A member's running CRC-32 and length (mod 2³²), checked against its
/// 8-byte trailer (CRC-32 then ISIZE, little-endian): every backend checks
/// the trailer itself, with ``CRC32`` (faster than either library's own) —
/// unless it `defers` the check, and then only reads the trailer
/// (``InflateBackend/defersTrailerCheck``).
struct MemberCheck {
    private var crc: UInt32 = 0
    private var length: UInt32 = 0
    let defers: Bool
    /// The trailer read, when the check is deferred.
    private(set) var deferredTrailer: UInt64?

    init(defers: Bool = false) { self.defers = defers }

    /// Adds a call's output to the member's CRC-32 and length.
    mutating func add(_ output: UnsafeRawBufferPointer) {
        guard !defers else { return }
        crc = CRC32.update(crc, with: output)
        length &+= UInt32(truncatingIfNeeded: output.count)
    }

    /// Compares the member's output so far with its `trailer`, in zlib's
    /// words when they differ (or keeps the trailer, when deferred).
    /// `end`: where the trailer ends in the calling backend's input.
    mutating func verify(trailer: UInt64, endingAt end: Int) throws(InflateFailure) {
        if defers {
            deferredTrailer = trailer
            return
        }
        do {
            try Self.compare(trailer: trailer, crc: crc, length: UInt32(truncatingIfNeeded: length))
        } catch {
            throw InflateFailure(reason: error.reason, place: end - 8)
        }
    }

    /// `trailer` against a member's CRC-32 and length, in zlib's words (the
    /// CRC first, as zlib checks it).
    static func compare(trailer: UInt64, crc: UInt32, length: UInt32) throws(InflateFailure) {
        if UInt32(truncatingIfNeeded: trailer) != crc { throw InflateFailure(reason: "incorrect data check") }
        if UInt32(truncatingIfNeeded: trailer >> 32) != length { throw InflateFailure(reason: "incorrect length check") }
    }

    /// The deferred trailer, taken once.
    mutating func takeTrailer() -> UInt64? {
        defer { deferredTrailer = nil }
        return deferredTrailer
    }

    /// The trailer's bytes gathered so far (little-endian) and their count,
    /// for a backend whose decoder stops inside it (ISA-L's and the built-in
    /// one's bit buffers hold its first bytes).
    private var trailer: UInt64 = 0
    private var trailerCount = 0

    /// Starts the trailer with the `count` bytes (low byte first) that the
    /// decoder's bit buffer read ahead.
    mutating func beginTrailer(buffered bytes: UInt64, count: Int) {
        trailer = count == 8 ? bytes : bytes & (1 << UInt64(8 * count) - 1)
        trailerCount = count
    }

    /// Takes the rest of the trailer from `input`, from index `start` on, and
    /// checks it once whole; returns the bytes taken and whether the member
    /// ended. A failed check's ``InflateFailure/place`` counts from
    /// `input`'s start.
    mutating func readTrailer(_ input: UnsafeRawBufferPointer, from start: Int = 0) throws(InflateFailure) -> (taken: Int, ended: Bool) {
        var taken = 0
        while trailerCount < 8 && start + taken < input.count {
            trailer |= UInt64(input[start + taken]) << UInt64(8 * trailerCount)
            trailerCount += 1
            taken += 1
        }
        guard trailerCount == 8 else { return (taken, false) }
        try verify(trailer: trailer, endingAt: start + taken)
        return (taken, true)
    }
}

#if ANALYZE_ISAL
typealias DefaultInflateBackend = ISALInflateBackend
#elseif ANALYZE_ZLIB_INFLATE
typealias DefaultInflateBackend = ZlibInflateBackend
#else
typealias DefaultInflateBackend = BuiltInInflateBackend
#endif
