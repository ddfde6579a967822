/// Cuts one input's decoded text into newline-aligned ``Chunk``s.
///
/// Decoded text is written straight into a chunk; when the chunk is full (or
/// handed over early, for a waiting worker), the partial line after its last
/// `\n` moves to the front of the next chunk (the only copy). A UTF-8 byte
/// order mark at the start of the text is skipped. A line that does not fit
/// in a whole chunk makes the chunk grow, doubling, up to `lineCapacity`
/// (`--max-line-bytes` + 64: see ``init(source:fileIndex:lineCapacity:cutAfterBytes:maxReadBytes:)``);
/// a line that does not fit in that is longer than `--max-line-bytes`, so it
/// is streamed past, noting only whether it was blank, and handed on as a
/// `.oversizedLine` marker: a 200 MB line over the limit costs no more memory
/// than a short one.
struct ChunkReader {
    let source: DecodedTextSource
    private let fileIndex: Int
    /// The chunk the next call starts from: the partial line left after the
    /// last chunk's final `\n`, or the bytes after an oversized line.
    private var pending: Chunk?
    private var checkedBOM = false
    private var finished = false
    /// Checksum segments of decoded text that no chunk handed out carries
    /// (an input's last bytes when they are not a line, or the chunk a
    /// failure or `close` gives back), for ``takeUnhandedSegments()``.
    private var unhanded: [ChecksumSegment] = []
    /// The capacity a chunk may grow to for one long line.
    private let lineCapacity: Int
    /// A chunk holding this many bytes is handed over at its last line end
    /// after each read, and a read takes at most `maxReadBytes`: so a chunk
    /// holds fewer than 2³² line ends (a line's position is 32 bits within
    /// its chunk, ``PartialAggregate``) however far a long line grew it.
    /// Only a chunk grown past 2 GiB meets either (tests lower them).
    private let cutAfterBytes: Int
    private let maxReadBytes: Int

    /// A reader of `source`, the input numbered `fileIndex`. A chunk too small
    /// for a line grows up to `lineCapacity` bytes (by default it never
    /// grows): `--max-line-bytes` plus 64, room for the longest line allowed
    /// with its line end (a CR before the LF is not counted in the line), so
    /// that a chunk full without a line end holds a line over the limit.
    init(source: DecodedTextSource, fileIndex: Int, lineCapacity: Int = 0,
         cutAfterBytes: Int = 1 << 31, maxReadBytes: Int = 1 << 30) {
        self.source = source
        self.fileIndex = fileIndex
        self.lineCapacity = lineCapacity
        self.cutAfterBytes = cutAfterBytes
        self.maxReadBytes = maxReadBytes
    }

    /// The next chunk of the input, in order; nil once the input is exhausted.
    ///
    /// `take` supplies empty chunks (it may block until one is free); a chunk
    /// left unused at the end goes to `recycle`. A returned chunk belongs to the
    /// caller, which must give `.lines` chunks back to the pool. The reader
    /// keeps one chunk between calls (the carried-over partial line) and takes
    /// at most one more during a call.
    ///
    /// `shouldYield` is asked after each quarter of a chunk's capacity of
    /// text (256 KiB in a 1 MiB chunk): when it says so (another worker waits
    /// to read this input), the chunk is handed over at its last line end
    /// before it is full, so that the input is free again sooner. Chunk
    /// boundaries never change the results.
    mutating func next(take: () -> Chunk, recycle: (Chunk) -> Void,
                       shouldYield: () -> Bool = { false }) throws(AnalyzeError) -> Chunk? {
        guard !finished else { return nil }
        let chunk: Chunk
        if let carried = pending {
            chunk = carried
            pending = nil
        } else {
            chunk = take()
            chunk.reset(fileIndex: fileIndex)
            chunk.checksTrailers = source.checksTrailersElsewhere
        }
        do {
            return try fill(chunk, take: take, recycle: recycle, shouldYield: shouldYield)
        } catch {
            // The input is done for; its chunk goes back (other inputs may
            // still be read from the same pool), its text's checksums kept.
            finished = true
            keepUnhanded(chunk)
            recycle(chunk)
            throw error
        }
    }

    /// The checksum segments of text read but handed out in no chunk, in
    /// input order after every chunk handed out; taken once the input ended,
    /// failed or was closed.
    mutating func takeUnhandedSegments() -> [ChecksumSegment] {
        defer { unhanded = [] }
        return unhanded
    }

    private mutating func keepUnhanded(_ chunk: Chunk) {
        guard chunk.checksTrailers else { return }
        unhanded += chunk.checksumSegments()
        chunk.memberEnds = []
    }

    /// Reads decoded text into `buffer`, which starts `offset` bytes into
    /// `chunk`'s storage, noting the members that end in it, also when the
    /// read fails (a member can end in a call that then meets damage: its
    /// trailer is still checked, and a failed check comes first).
    private func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int, of chunk: Chunk) throws(AnalyzeError) -> Int {
        defer {
            if chunk.checksTrailers {
                for var end in source.takeMemberEnds() {
                    end.position += offset
                    chunk.memberEnds.append(end)
                }
            }
        }
        return try source.read(into: buffer)
    }

    /// Fills `chunk` (which may hold a carried partial line) up to its last
    /// line end, or to an earlier one when asked to yield; see
    /// ``next(take:recycle:shouldYield:)``.
    private mutating func fill(
        _ chunk: Chunk, take: () -> Chunk, recycle: (Chunk) -> Void, shouldYield: () -> Bool
    ) throws(AnalyzeError) -> Chunk? {
        // The chunk holds no line end before this position (past its start):
        // a line end looked for after each read is looked for in the new
        // bytes only. (Looking through the whole chunk each time cost
        // O(line length²) where reads are short — a pipe's 64 KiB — and a
        // worker waits: 15 MB lines from a pipe ran at 20 MB/s.)
        var noLineEndBefore = chunk.start
        while true {
            let end = min(chunk.capacity, chunk.count + min(max(1, chunk.capacity / 4), maxReadBytes))
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: chunk.storage[chunk.count..<end]),
                             at: chunk.count, of: chunk)
            chunk.count += n
            if !checkedBOM && (chunk.count >= 3 || n == 0) {
                checkedBOM = true
                if chunk.count >= 3 && chunk.storage[0] == 0xEF && chunk.storage[1] == 0xBB && chunk.storage[2] == 0xBF {
                    chunk.start = 3
                }
            }
            if n == 0 {
                finished = true
                if chunk.count > chunk.start { return chunk }
                keepUnhanded(chunk)
                recycle(chunk)
                return nil
            }
            if chunk.count < chunk.capacity {
                guard shouldYield() || chunk.count >= cutAfterBytes else { continue }
                guard let lastNewline = Self.lastNewline(in: chunk, from: noLineEndBefore) else {
                    noLineEndBefore = chunk.count
                    continue
                }
                return cut(chunk, after: lastNewline, take: take)
            }
            if let lastNewline = Self.lastNewline(in: chunk, from: noLineEndBefore) {
                return cut(chunk, after: lastNewline, take: take)
            }
            if chunk.capacity < lineCapacity {
                // One line longer than the chunk, which the limit allows: room
                // for it, doubling (so its bytes are copied about once).
                noLineEndBefore = chunk.count
                chunk.grow(to: chunk.capacity <= lineCapacity / 2 ? 2 * chunk.capacity : lineCapacity)
                continue
            }
            // No line end in a whole chunk: one line longer than the limit.
            let (isBlank, streamed) = try skipOversizedLine(in: chunk)
            pending = chunk
            let marker = Chunk(capacity: 0)
            marker.kind = .oversizedLine(isBlank: isBlank)
            marker.fileIndex = fileIndex
            marker.checksTrailers = chunk.checksTrailers
            marker.streamedSegments = streamed
            return marker
        }
    }

    /// Ends `chunk` after its line end at `lastNewline`; the partial line
    /// after it moves to a new chunk, kept for the next call.
    private mutating func cut(_ chunk: Chunk, after lastNewline: Int, take: () -> Chunk) -> Chunk {
        // A line end among the text's first bytes: it does not start with a
        // BOM. Without this, a chunk handed over before 3 bytes were read (a
        // pipe's first read of "a\n") left the check to the next chunk, which
        // dropped a BOM at the start of the second line.
        checkedBOM = true
        let next = take()
        next.reset(fileIndex: fileIndex)
        next.checksTrailers = chunk.checksTrailers
        let tail = chunk.count - (lastNewline + 1)
        // After a line longer than a fresh chunk, the rest of the last read
        // (of a chunk grown for that line) may be longer too.
        if tail > next.capacity { next.grow(to: chunk.capacity) }
        if tail > 0 {
            next.storage.baseAddress!.copyMemory(from: chunk.storage.baseAddress! + lastNewline + 1, byteCount: tail)
        }
        next.count = tail
        chunk.count = lastNewline + 1
        next.memberEnds = Self.splitMemberEnds(&chunk.memberEnds, after: chunk.count)
        pending = next
        return chunk
    }

    /// Ends reading early (the input is abandoned): gives back the chunk
    /// carried between calls.
    mutating func close(recycle: (Chunk) -> Void) {
        if let pending {
            keepUnhanded(pending)
            recycle(pending)
        }
        pending = nil
        finished = true
    }

    /// Removes the member ends past `position` from `ends` and returns them
    /// counted from `position` (for text that moves to the front of a buffer).
    private static func splitMemberEnds(_ ends: inout [MemberEnd], after position: Int) -> [MemberEnd] {
        guard let first = ends.firstIndex(where: { $0.position > position }) else { return [] }
        defer { ends.removeSubrange(first...) }
        return ends[first...].map { end in
            var end = end
            end.position -= position
            return end
        }
    }

    /// Reads past the rest of a line that filled `chunk` entirely. On return
    /// `chunk` holds only the bytes after that line's `\n` (if any); the
    /// checksum segments of the text streamed past are returned with whether
    /// the line was blank.
    private mutating func skipOversizedLine(in chunk: Chunk) throws(AnalyzeError)
        -> (isBlank: Bool, streamed: [ChecksumSegment])
    {
        var isBlank = Self.isBlank(UnsafeRawBufferPointer(rebasing: chunk.storage[chunk.start..<chunk.count]))
        var streamed: [ChecksumSegment] = []
        /// The chunk's first `count` bytes are streamed past.
        func stream(_ count: Int) {
            guard chunk.checksTrailers else { return }
            let rest = Self.splitMemberEnds(&chunk.memberEnds, after: count)
            streamed += ChecksumSegment.segments(
                of: UnsafeRawBufferPointer(rebasing: chunk.storage[..<count]), ends: chunk.memberEnds)
            chunk.memberEnds = rest
        }
        stream(chunk.count)
        chunk.start = 0
        do {
            while true {
                chunk.count = 0
                let n = try read(into: chunk.storage, at: 0, of: chunk)
                if n == 0 {
                    stream(0)
                    return (isBlank, streamed)
                }
                let bytes = UnsafeRawBufferPointer(rebasing: chunk.storage[..<n])
                if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                    if isBlank { isBlank = Self.isBlank(UnsafeRawBufferPointer(rebasing: bytes[..<newline])) }
                    stream(newline + 1)
                    let rest = n - (newline + 1)
                    if rest > 0 {
                        chunk.storage.baseAddress!.copyMemory(
                            from: chunk.storage.baseAddress! + newline + 1, byteCount: rest)
                    }
                    chunk.count = rest
                    return (isBlank, streamed)
                }
                if isBlank { isBlank = Self.isBlank(bytes) }
                stream(n)
            }
        } catch {
            // What was streamed past precedes the failure in the input.
            unhanded += streamed
            throw error
        }
    }

    /// The last line end in `chunk`'s text, looked for from its end back to
    /// `from` (or its start, if later).
    private static func lastNewline(in chunk: Chunk, from: Int) -> Int? {
        let base = chunk.storage.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let stop = max(from, chunk.start)
        var i = chunk.count - 1
        while i >= stop {
            if base[i] == UInt8(ascii: "\n") { return i }
            i -= 1
        }
        return nil
    }

    /// Only space, tab and carriage return (SPEC §1's blank line).
    static func isBlank(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes where byte != 0x20 && byte != 0x09 && byte != 0x0D {
            return false
        }
        return true
    }
}
