/// One deflate implementation behind ``GzipInflater``: it decodes one gzip
/// member at a time (header, data, CRC-32 and ISIZE checked) and is reset
/// between members. zlib is always available; ISA-L is used when the build
/// found its header (`ANALYZE_ISAL`, see Package.swift).
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

#if ANALYZE_ISAL
typealias DefaultInflateBackend = ISALInflateBackend
#else
typealias DefaultInflateBackend = ZlibInflateBackend
#endif
