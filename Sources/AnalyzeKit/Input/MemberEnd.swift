/// Where a gzip member ended in the decoded text and what its trailer says,
/// when the trailer is checked away from the thread that inflates
/// (``GzipInflater`` with `defersTrailerCheck`; the check: ``ChecksumLedger``).
struct MemberEnd: Equatable {
    /// Decoded bytes before the end, from the start of the buffer the end is
    /// recorded against (a `read` call's destination, then a chunk's storage).
    var position: Int
    /// CRC-32 in the low half, ISIZE in the high half.
    var trailer: UInt64
    /// The stored-byte offset an error about the member names.
    var offset: Int
}

/// A stretch of one input's decoded text, reduced to what checking its
/// members' trailers needs: its CRC-32 (from 0), its length, and the member
/// end it reaches, if any.
struct ChecksumSegment: Equatable {
    var crc: UInt32
    var length: Int
    var end: MemberEnd?

    /// `bytes` cut at `ends` (positions into `bytes`, ascending): one segment
    /// per end, and one for the bytes after the last end when there are any.
    static func segments(of bytes: UnsafeRawBufferPointer, ends: [MemberEnd]) -> [ChecksumSegment] {
        var segments: [ChecksumSegment] = []
        segments.reserveCapacity(ends.count + 1)
        var start = 0
        for end in ends {
            let part = UnsafeRawBufferPointer(rebasing: bytes[start..<end.position])
            segments.append(ChecksumSegment(crc: CRC32.update(0, with: part), length: part.count, end: end))
            start = end.position
        }
        if start < bytes.count {
            let part = UnsafeRawBufferPointer(rebasing: bytes[start...])
            segments.append(ChecksumSegment(crc: CRC32.update(0, with: part), length: part.count, end: nil))
        }
        return segments
    }
}
