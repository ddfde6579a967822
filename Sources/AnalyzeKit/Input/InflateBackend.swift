/// One deflate implementation behind ``GzipInflater``: it decodes one gzip
/// member at a time (header, data, CRC-32 and ISIZE checked) and is reset
/// between members. ISA-L's is used when the build found its header
/// (`ANALYZE_ISAL`), else the built-in one; zlib's on request
/// (`ANALYZE_ZLIB_INFLATE`; see Package.swift). All three always compile
/// except ISA-L's, so tests can compare them.
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
}

/// Why a backend rejected its input (zlib's or ISA-L's own words).
struct InflateFailure: Error {
    var reason: String
}

/// A member's running CRC-32 and length (mod 2³²), checked against its
/// 8-byte trailer (CRC-32 then ISIZE, little-endian): both backends check
/// the trailer themselves, with ``CRC32`` (faster than either library's own).
struct MemberCheck {
    private var crc: UInt32 = 0
    private var length: UInt32 = 0

    /// Adds a call's output to the member's CRC-32 and length.
    mutating func add(_ output: UnsafeRawBufferPointer) {
        crc = CRC32.update(crc, with: output)
        length &+= UInt32(truncatingIfNeeded: output.count)
    }

    /// Compares the member's output so far with its `trailer`, in zlib's
    /// words when they differ.
    func verify(trailer: UInt64) throws(InflateFailure) {
        if UInt32(truncatingIfNeeded: trailer) != crc { throw InflateFailure(reason: "incorrect data check") }
        if UInt32(truncatingIfNeeded: trailer >> 32) != length { throw InflateFailure(reason: "incorrect length check") }
    }
}

#if ANALYZE_ISAL
typealias DefaultInflateBackend = ISALInflateBackend
#elseif ANALYZE_ZLIB_INFLATE
typealias DefaultInflateBackend = ZlibInflateBackend
#else
typealias DefaultInflateBackend = BuiltInInflateBackend
#endif
