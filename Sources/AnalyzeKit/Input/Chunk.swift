/// A run of whole lines from one input file, the unit of work handed to workers.
///
/// Chunks are recycled through a pool (``BlockingPool``) so memory stays bounded by the
/// pool size times the capacity, whatever the input size. A chunk grows only to hold a
/// line longer than itself that `--max-line-bytes` allows (``grow(to:)``), and goes
/// back to its first capacity when it is reused (``reset(fileIndex:)``).
final class Chunk: @unchecked Sendable {
    enum Kind {
        /// `storage[start..<count]` holds whole lines; only a file's last chunk
        /// may end without a line end.
        case lines
        /// One physical line longer than the reader's line capacity
        /// (`--max-line-bytes` + 64; shorter lines make the chunk grow),
        /// streamed past without being held. It is blank (skipped) or
        /// `line_too_long`.
        case oversizedLine(isBlank: Bool)
    }

    private(set) var storage: UnsafeMutableRawBufferPointer
    /// The capacity it was made with, which ``reset(fileIndex:)`` returns to.
    let baseCapacity: Int
    var start = 0
    var count = 0
    var kind = Kind.lines
    /// Index of the input file in input order.
    var fileIndex = 0
    /// Position of this chunk in input order, over all files.
    var sequence = 0
    /// Whether the members' trailers of this gzip text are checked by the
    /// worker that takes the chunk (``ChecksumLedger``), and where members
    /// end in `storage[0..<count]` (the whole decoded text of the chunk, a
    /// byte order mark before `start` included).
    var checksTrailers = false
    var memberEnds: [MemberEnd] = []
    /// An `.oversizedLine` marker's text, streamed past, as checksum
    /// segments computed while reading it.
    var streamedSegments: [ChecksumSegment] = []

    /// The capacity of a chunk: 1 MiB, a quarter of the pool that 4 MiB
    /// chunks took, at the same speed (docs/benchmark.md).
    static let defaultCapacity = 1 << 20

    init(capacity: Int) {
        storage = .allocate(byteCount: capacity, alignment: 64)
        baseCapacity = capacity
    }

    deinit { storage.deallocate() }

    var capacity: Int { storage.count }

    /// Moves the text (`storage[0..<count]`) into a buffer of `newCapacity`
    /// bytes, for a line longer than the chunk.
    func grow(to newCapacity: Int) {
        precondition(newCapacity > capacity)
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: newCapacity, alignment: 64)
        if count > 0 { larger.baseAddress!.copyMemory(from: storage.baseAddress!, byteCount: count) }
        storage.deallocate()
        storage = larger
    }

    /// Empties the chunk for `fileIndex`'s text, back at its first capacity.
    func reset(fileIndex: Int) {
        returnToBaseCapacity()
        self.fileIndex = fileIndex
        start = 0
        count = 0
        kind = .lines
        checksTrailers = false
        memberEnds = []
        streamedSegments = []
    }

    /// Gives back a buffer grown for a long line: the chunk is empty again.
    func returnToBaseCapacity() {
        guard capacity > baseCapacity else { return }
        storage.deallocate()
        storage = .allocate(byteCount: baseCapacity, alignment: 64)
    }

    /// The checksum segments of the chunk's decoded text (see `checksTrailers`).
    func checksumSegments() -> [ChecksumSegment] {
        guard capacity > 0 else { return streamedSegments }
        return ChecksumSegment.segments(of: UnsafeRawBufferPointer(rebasing: storage[..<count]), ends: memberEnds)
    }

    /// The line bytes this chunk carries.
    var text: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: storage[start..<count])
    }
}
