/// A format that `analyze` does not read, recognized from an input's first
/// bytes so that a run over one can say so.
///
/// Such an input is still read as the SPEC says: gzip when it starts with
/// `1f 8b`, plain text otherwise. So a zstd file's bytes become lines that are
/// rejected, and a gzipped tar archive's headers and padding are read as text
/// around its files' lines. The results stay what the SPEC asks for; the run
/// only adds a warning, since such a run's report is rarely what was meant.
public enum ForeignFormat: String, Sendable, CaseIterable {
    case bzip2
    case xz
    case zstd
    case zip
    case sevenZip = "7z"
    case lz4
    /// A tar archive (plain, or inside gzip): a first 512-byte header whose
    /// checksum adds up, with POSIX or GNU tar's `ustar` at offset 257 or,
    /// for the old v7 format, which has no magic, NUL bytes there instead.
    case tar

    /// The decoded bytes ``recognize(decoded:)`` needs to see a tar header.
    static let decodedPrefixLength = 512
    /// The bytes ``recognize(stored:)`` needs to tell every magic number
    /// (bzip2's is the longest: ten bytes with its first block's).
    static let storedPrefixLength = 10

    /// The format whose magic number starts `stored`, the first bytes of a
    /// plain (not gzip) input as stored; nil for none of them.
    static func recognize(stored bytes: some Collection<UInt8>) -> ForeignFormat? {
        let head = Array(bytes.prefix(storedPrefixLength))
        func starts(_ magic: [UInt8]) -> Bool { head.starts(with: magic) }
        // "BZh1"–"BZh9", then the first block's magic (the digits of pi) or,
        // for an empty stream, the end-of-stream magic (those of the square
        // root of pi): "BZh9" alone begins text as easily as a bzip2 file.
        if starts([0x42, 0x5A, 0x68]), head.count >= 10, (0x31...0x39).contains(head[3]),
           head[4...].elementsEqual([0x31, 0x41, 0x59, 0x26, 0x53, 0x59]) || head[4...].elementsEqual([0x17, 0x72, 0x45, 0x38, 0x50, 0x90]) {
            return .bzip2
        }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        if starts([0x28, 0xB5, 0x2F, 0xFD]) { return .zstd }
        // A skippable frame first (0x184D2A50–5F little-endian), as pzstd writes.
        if head.count >= 4 && head[0] & 0xF0 == 0x50 && head[1...3].elementsEqual([0x2A, 0x4D, 0x18]) { return .zstd }
        // A local file header, or the end record of an empty archive.
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) { return .zip }
        if starts([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) { return .sevenZip }
        // The frame format, and the legacy one (`lz4 -l`).
        if starts([0x04, 0x22, 0x4D, 0x18]) || starts([0x02, 0x21, 0x4C, 0x18]) { return .lz4 }
        return nil
    }

    /// `.tar` when `header`, an input's first decoded bytes (at least
    /// ``decodedPrefixLength`` of them), is a tar header: `ustar` then NUL or
    /// space at offset 257 (POSIX and GNU tar), or a name at 0 and only NUL
    /// bytes where those put their magic and owner names, 257..<329 (v7 tar;
    /// GNU tar's v7 still fills in the device numbers after them); and the
    /// octal checksum at 148 equal to the sum of the header's bytes with the
    /// checksum's own 8 counted as spaces. (So an NDJSON line with "ustar" at
    /// that offset is not taken for one, and text, which has no NUL bytes, is
    /// not a v7 header.)
    static func recognize(decoded header: UnsafeRawBufferPointer) -> ForeignFormat? {
        guard header.count >= 512 else { return nil }
        let ustar = Array(header[257..<262]) == Array("ustar".utf8) && (header[262] == 0 || header[262] == 0x20)
        let v7 = header[0] != 0 && header[257..<329].allSatisfy { $0 == 0 }
        guard ustar || v7 else { return nil }
        var stated = 0
        var digits = 0
        for byte in header[148..<156] {
            if byte == 0x20 && digits == 0 { continue }  // leading spaces
            if byte == 0 || byte == 0x20 { break }
            guard (0x30...0x37).contains(byte) else { return nil }
            stated = stated * 8 + Int(byte - 0x30)
            digits += 1
        }
        let sum = header[..<512].enumerated().reduce(0) { sum, item in
            sum + ((148..<156).contains(item.offset) ? 0x20 : Int(item.element))
        }
        return digits > 0 && stated == sum ? .tar : nil
    }

    /// What to tell the user about an input in this format.
    func warning(about file: String) -> String {
        switch self {
        case .tar:
            "'\(file)' holds a tar archive, which analyze does not unpack: its headers were read as text, "
                + "so lines were rejected and events may be missing; unpack it and give the files instead"
        default:
            "'\(file)' looks like \(rawValue) data, which analyze does not decompress (it reads gzip and plain NDJSON): "
                + "its bytes were read as text lines; decompress it first, or recompress it with gzip"
        }
    }
}
