import Foundation

/// Hands out the chunks of all inputs, in input order, to whichever worker
/// asks next: the worker that asks inflates (or reads) the chunk itself.
///
/// Reading is serial — one input, one inflate stream — so ``next()`` holds a
/// lock while it fills a chunk; parsing the chunk happens outside it. There
/// is no separate reader thread: with one thread per core and every thread
/// either reading or parsing, no core waits for the scheduler to move a
/// runnable thread onto it (docs/architecture.md, "Who inflates").
///
/// Chunks are numbered here, in input order; the SPEC's order rules use that
/// number, never the order in which workers finish. The first read error
/// ends the feed for every worker and is kept for the caller to throw.
final class ChunkFeed: @unchecked Sendable {
    private let lock = NSLock()
    private let files: [InputFile]
    private let pool: BlockingPool<Chunk>
    private let progress: Analyzer.Progress?
    private var fileIndex = 0
    private var reader: ChunkReader?
    private var nextSequence = 0
    private var done = false
    /// Stored bytes read from the inputs finished so far (all of them once
    /// the feed is exhausted).
    private(set) var bytesRead = 0
    /// Decoded bytes of the inputs finished so far.
    private(set) var bytesDecoded = 0
    private(set) var error: AnalyzeError?

    /// A feed over `files`, filling chunks from `pool`, which must hold at
    /// least two more chunks than there are workers (each worker holds one
    /// while it parses; the reader keeps one and may take another).
    init(files: [InputFile], pool: BlockingPool<Chunk>, progress: Analyzer.Progress?) {
        self.files = files
        self.pool = pool
        self.progress = progress
    }

    /// The next chunk in input order, or nil when every input is read or a
    /// read failed (see ``error``).
    func next() -> Chunk? {
        lock.lock()
        defer { lock.unlock() }
        while !done {
            do throws(AnalyzeError) {
                if reader == nil {
                    guard fileIndex < files.count else {
                        done = true
                        return nil
                    }
                    reader = ChunkReader(source: try DecodedTextSource(files[fileIndex]), fileIndex: fileIndex)
                }
                let source = reader!.source
                if let chunk = try reader!.next(take: pool.take, recycle: pool.give) {
                    chunk.sequence = nextSequence
                    nextSequence += 1
                    if let progress {
                        progress.storedBytes.store(bytesRead + source.bytesRead, ordering: .relaxed)
                        progress.decodedBytes.store(bytesDecoded + source.bytesDecoded, ordering: .relaxed)
                    }
                    return chunk
                }
                bytesRead += source.bytesRead
                bytesDecoded += source.bytesDecoded
                reader = nil
                fileIndex += 1
            } catch {
                self.error = error
                done = true
            }
        }
        return nil
    }

    /// Returns a parsed chunk's buffer to the pool (markers own no buffer).
    func recycle(_ chunk: Chunk) {
        if chunk.capacity > 0 { pool.give(chunk) }
    }
}
