import Foundation
import Synchronization

/// Hands out the chunks of all inputs to whichever worker asks next: the
/// worker that asks inflates (or reads) the chunk itself.
///
/// One input is one stream, read in order, so at most one worker reads a
/// given input at a time; several inputs are read at once, one per worker
/// (a *lane* per open input, at most one per worker). Reading happens outside
/// the feed's lock; the lock only hands out lanes. With one input, a worker
/// that finds its lane busy waits for it, as with a plain lock. There is no
/// separate reader thread: with one thread per core and every thread either
/// reading or parsing, no core waits for the scheduler to move a runnable
/// thread onto it (docs/architecture.md, "Who inflates").
///
/// A worker that finds every open input being read spins for the lane before
/// it blocks: see ``waitForALane()``.
///
/// Chunks are numbered in input order: input `f`'s `k`-th chunk is
/// `f << chunkBits | k`, with just enough bits for the input's index, so
/// numbers sort by input, then by position in it. The SPEC's order rules use
/// that number, never the order in which workers finish.
///
/// The first failing input in input order ends the run: after an input fails,
/// later inputs are abandoned, while earlier ones are read on (one of them
/// may fail too, and its error comes first); ``error`` is then that error.
///
/// A gzip member's CRC-32 is computed outside the input's turn: the worker
/// that read a chunk computes the CRC-32 of its text once the input is free
/// again, while the text is still in its cache, and ``ChecksumLedger``
/// checks the trailers from those. A failed check names an earlier point of
/// its input than any failure of the inflate there, so it comes first within
/// that input.
final class ChunkFeed: @unchecked Sendable {
    /// An open input and its reader; `busy` while a worker reads it.
    private final class Lane {
        let fileIndex: Int
        var reader: ChunkReader?
        var busy = true
        var chunks = 0
        /// The reader's byte counts as of its last chunk (for progress).
        var bytesRead = 0
        var bytesDecoded = 0

        init(fileIndex: Int) { self.fileIndex = fileIndex }
    }

    private let condition = NSCondition()
    /// How long a worker that finds every input being read spins before it
    /// blocks (0: it blocks at once).
    private let spinNanoseconds: UInt64
    /// Changes a waiting worker must see (a lane released, opened or closed),
    /// each counted under the lock just before its `broadcast`.
    private let changes = Atomic<Int>(0)
    /// Waits left to block at once, after a spin that ran out.
    private var waitsWithoutSpinning = 0
    /// Chunks handed out so far, of all inputs.
    private var chunksHandedOut = 0
    /// Whether the machine had no more threads ready to run than it has CPUs
    /// at the last count (``RunnableThreads``), and the waits until the next.
    private var machineHasSpareCores = true
    private var waitsUntilLoadCount = 0
    private let files: [InputFile]
    private let pool: BlockingPool<Chunk>
    /// What a chunk may grow to for one long line (``ChunkReader``).
    private let lineCapacity: Int
    private let progress: Analyzer.Progress?
    private let maxLanes: Int
    /// Bits of a chunk number for the chunk's place in its input.
    private let chunkBits: Int
    /// Open inputs, in input order.
    private var lanes: [Lane] = []
    private var nextFile = 0
    /// Workers waiting because every open input is being read: readers then
    /// hand their chunks over early (``ChunkReader/next(take:recycle:shouldYield:)``).
    private let waiters = Atomic<Int>(0)
    /// The earliest input (in input order) that failed, and why; `checksum`
    /// when a member's trailer disagreed with its text.
    private var failure: (fileIndex: Int, error: AnalyzeError, checksum: Bool)?
    private var checksums = ChecksumLedger()
    private var foreign: [(fileIndex: Int, format: ForeignFormat)] = []
    /// Whether gzip trailers are checked from the chunks (else by the
    /// inflater, while inflating: tests compare the two).
    private let checksTrailersFromChunks: Bool
    /// Stored bytes read from the inputs finished so far (all of them once
    /// the feed is exhausted).
    private(set) var bytesRead = 0
    /// Decoded bytes of the inputs finished so far.
    private(set) var bytesDecoded = 0

    /// The error that ended the feed, if an input failed.
    var error: AnalyzeError? {
        condition.lock()
        defer { condition.unlock() }
        return failure?.error
    }

    /// How many chunks the pool must hold for `workers` workers over `files`
    /// inputs: one per worker (the chunk it parses, or the next one it fills
    /// while reading), one carried over per open input, and one spare.
    static func poolSize(workers: Int, files: Int) -> Int {
        workers + min(workers, max(files, 1)) + 1
    }

    /// How long a waiting worker spins by default: more than a handoff takes
    /// with zlib (about 0.2 ms on average on the shape check), so that a spin
    /// seldom runs out.
    static let defaultSpinNanoseconds: UInt64 = 1_000_000

    /// Waits that block at once after a spin that ran out (a slow input).
    static let waitsBlockingAfterASpinRunsOut = 16

    /// Waits between two counts of the machine's ready threads.
    static let waitsBetweenLoadCounts = 32

    /// A feed over `files` for up to `workers` concurrent workers, filling
    /// chunks from `pool`, which must hold ``poolSize(workers:files:)`` chunks.
    /// `chunkBits` lowers the bits for a chunk's place (tests reach the limit
    /// with it); `spinNanoseconds` is how long a worker spins for a lane before
    /// it blocks; `checksTrailersFromChunks` false leaves the trailers to the
    /// inflater (tests compare the two); `lineCapacity` is what a chunk may
    /// grow to for one long line (0: never grows).
    init(files: [InputFile], workers: Int, pool: BlockingPool<Chunk>, progress: Analyzer.Progress?, chunkBits: Int = 32,
         spinNanoseconds: UInt64 = ChunkFeed.defaultSpinNanoseconds, checksTrailersFromChunks: Bool = true,
         lineCapacity: Int = 0) {
        self.lineCapacity = lineCapacity
        self.spinNanoseconds = spinNanoseconds
        self.checksTrailersFromChunks = checksTrailersFromChunks
        self.files = files
        self.pool = pool
        self.progress = progress
        maxLanes = max(1, min(workers, files.count))
        self.chunkBits = min(chunkBits, 32 - (files.count <= 1 ? 0 : Int.bitWidth - (files.count - 1).leadingZeroBitCount))
    }

    /// The next chunk, or nil when every input is read or one failed (see
    /// ``error``). The trailers its text reaches are checked first.
    func next() -> Chunk? {
        guard let chunk = nextChunk() else { return nil }
        if chunk.checksTrailers {
            let segments = chunk.checksumSegments()  // unlocked: the input is already free again
            condition.lock()
            fold(segments, file: chunk.fileIndex, chunk: chunk.sequence & ((1 << chunkBits) - 1))
            condition.unlock()
        }
        return chunk
    }

    private func nextChunk() -> Chunk? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            // Inputs after a failed one are dropped as soon as no one reads
            // them (and the failed one, when a checksum failed with its lane open).
            if let failure {
                lanes.removeAll { lane in
                    guard !lane.busy && (lane.fileIndex > failure.fileIndex
                        || (lane.fileIndex == failure.fileIndex && failure.checksum)) else { return false }
                    close(lane)
                    return true
                }
            }
            if let lane = lanes.first(where: { !$0.busy }) {
                if let chunk = read(lane) { return chunk }
                continue
            }
            if lanes.count < maxLanes && nextFile < files.count && nextFile < (failure?.fileIndex ?? Int.max) {
                open()
                continue
            }
            if lanes.isEmpty { return nil }
            waitForALane()
        }
    }

    /// Waits, locked, until a lane is released, opened or closed (or,
    /// rarely, for no reason: callers check again): spinning first, unlocked,
    /// then blocking on the condition. Called and returns locked.
    ///
    /// Performance: a thread blocked here and woken by `broadcast` took about
    /// 65 µs to run again on the benchmark machine (a wakeup across cores of a
    /// virtual machine). With zlib, whose inflate is the critical path, a worker
    /// finds the lane busy at nearly every handoff — about 2 000 times on the
    /// shape check, 100–150 ms in all during which no one inflated. Spinning on
    /// the core that would otherwise sleep took that to about 20 ms and the run
    /// 6–11 % shorter (docs/benchmark.md). A spin that runs out (a slow
    /// input) makes the next 16 waits block at once, so a slow input costs at
    /// most one spin in 17 waits. Before the first chunk is handed out a wait
    /// blocks at once: the first read opens the input and may be all of a small
    /// one, so a spin through it would mostly run out (the end-to-end tests run
    /// hundreds of small inputs, two at a time).
    ///
    /// A spin is free only on a core no one else wants. With one more busy
    /// thread on the machine (a loop on the benchmark machine's two cores), the
    /// spinning worker took time from the inflating one: runs 8–11 % slower
    /// than blocking, with zlib and with ISA-L. So every 32 waits the feed
    /// counts the machine's ready threads (``RunnableThreads``), and workers
    /// spin only while they are no more than its CPUs.
    private func waitForALane() {
        waiters.add(1, ordering: .relaxed)
        defer { waiters.subtract(1, ordering: .relaxed) }
        let seen = changes.load(ordering: .relaxed)
        if mayAffordASpin() {
            condition.unlock()
            let changed = SpinWait.until(nanoseconds: spinNanoseconds) { changes.load(ordering: .relaxed) != seen }
            condition.lock()
            if !changed { waitsWithoutSpinning = Self.waitsBlockingAfterASpinRunsOut }
        }
        // Every change is counted under the lock, so an unchanged count means
        // the broadcast of the next change is still to come.
        if changes.load(ordering: .relaxed) == seen { condition.wait() }
    }

    /// Whether this wait may spin (see ``waitForALane()``): spinning is on, a
    /// chunk has been handed out, no spin ran out in the last 16 waits, and at
    /// the last count (every 32 such waits) the machine had no more ready
    /// threads than CPUs. Called locked.
    private func mayAffordASpin() -> Bool {
        guard spinNanoseconds > 0 && chunksHandedOut > 0 else { return false }
        if waitsWithoutSpinning > 0 {
            waitsWithoutSpinning -= 1
            return false
        }
        if waitsUntilLoadCount == 0 {
            waitsUntilLoadCount = Self.waitsBetweenLoadCounts
            machineHasSpareCores = (RunnableThreads.now() ?? 0) <= UsableCores.onlineCPUs
        } else {
            waitsUntilLoadCount -= 1
        }
        return machineHasSpareCores
    }

    /// Tells waiting workers that something changed; called locked.
    private func announceChange() {
        changes.add(1, ordering: .relaxed)
        condition.broadcast()
    }

    /// Reads `lane`'s next chunk with the lock released; nil when the input
    /// ended or failed (the lane is then closed). Called and returns locked.
    private func read(_ lane: Lane) -> Chunk? {
        lane.busy = true
        condition.unlock()
        var reader = lane.reader!
        let result = Result { () throws(AnalyzeError) in
            try reader.next(take: pool.take, recycle: pool.give, shouldYield: { waiters.load(ordering: .relaxed) > 0 })
        }
        let (read, decoded) = (reader.source.bytesRead, reader.source.bytesDecoded)
        condition.lock()
        lane.reader = reader
        lane.busy = false
        lane.bytesRead = read
        lane.bytesDecoded = decoded
        announceChange()  // the lane is free again, or closing
        switch result {
        case .success(let chunk?):
            guard lane.chunks < (1 << chunkBits) - 1 else {
                // Its text is folded with what the reader holds after it, as
                // the input's last chunk number: folded apart, both would
                // take that number.
                let segments = chunk.checksTrailers ? chunk.checksumSegments() : []
                if chunk.capacity > 0 { pool.give(chunk) }
                fail(lane, .input("'\(files[lane.fileIndex].displayName)' has too many chunks to number beside \(files.count) inputs; analyze fewer files per run"),
                     after: segments)
                return nil
            }
            chunk.sequence = lane.fileIndex << chunkBits | lane.chunks
            lane.chunks += 1
            chunksHandedOut += 1
            if let progress {
                progress.storedBytes.store(bytesRead + lanes.reduce(0) { $0 + $1.bytesRead }, ordering: .relaxed)
                progress.decodedBytes.store(bytesDecoded + lanes.reduce(0) { $0 + $1.bytesDecoded }, ordering: .relaxed)
            }
            return chunk
        case .success(nil):
            bytesRead += read
            bytesDecoded += decoded
            if let format = reader.source.foreignFormat { foreign.append((lane.fileIndex, format)) }
            lanes.removeAll { $0 === lane }
            foldUnhanded(of: lane)
        case .failure(let error):
            fail(lane, error)
        }
        return nil
    }

    /// Opens the next input in a new lane, with the lock released while the
    /// file is opened. Called and returns locked.
    private func open() {
        let index = nextFile
        nextFile += 1
        let lane = Lane(fileIndex: index)
        lanes.append(lane)  // inputs open in input order, so `lanes` stays sorted
        condition.unlock()
        let source = Result { () throws(AnalyzeError) in try DecodedTextSource(files[index], defersTrailerCheck: checksTrailersFromChunks) }
        condition.lock()
        lane.busy = false
        announceChange()
        switch source {
        case .success(let source): lane.reader = ChunkReader(source: source, fileIndex: index, lineCapacity: lineCapacity)
        case .failure(let error): fail(lane, error)
        }
    }

    /// Closes `lane` after its input failed; keeps the earliest failure.
    /// `segments`: a chunk's text read but not handed out, before the
    /// reader's own (``close(_:after:)``).
    private func fail(_ lane: Lane, _ error: AnalyzeError, after segments: [ChecksumSegment] = []) {
        close(lane, after: segments)
        lanes.removeAll { $0 === lane }
        record(error, of: lane.fileIndex, checksum: false)
    }

    /// Keeps the earliest failure: inputs in input order, and within one
    /// input a failed checksum before a failed inflate (it names an earlier
    /// member). Called locked.
    private func record(_ error: AnalyzeError, of fileIndex: Int, checksum: Bool) {
        if let failure, failure.fileIndex < fileIndex || (failure.fileIndex == fileIndex && (failure.checksum || !checksum)) {
            return
        }
        failure = (fileIndex, error, checksum)
    }

    /// Closes `lane`'s reader, folding the checksums of the text it read but
    /// handed out in no chunk, after `segments` (text before it, also not
    /// handed out). Called locked.
    private func close(_ lane: Lane, after segments: [ChecksumSegment] = []) {
        lane.reader?.close(recycle: pool.give)
        foldUnhanded(of: lane, after: segments)
    }

    /// Folds the checksums of the text `lane`'s reader read after its last
    /// chunk handed out (``ChunkReader/takeUnhandedSegments()``), after
    /// `earlier`, as the input's last chunk number. Called locked.
    private func foldUnhanded(of lane: Lane, after earlier: [ChecksumSegment] = []) {
        let segments = earlier + (lane.reader?.takeUnhandedSegments() ?? [])
        guard !segments.isEmpty else { return }
        fold(segments, file: lane.fileIndex, chunk: lane.chunks)
    }

    private func fold(_ segments: [ChecksumSegment], file: Int, chunk: Int) {
        if let error = checksums.fold(segments, file: file, chunk: chunk, name: files[file].displayName) {
            record(error, of: file, checksum: true)
            announceChange()  // a waiting worker may now drop lanes
        }
    }

    /// The inputs read to their end that are in a format analyze does not
    /// read (``ForeignFormat``), in input order: names and formats.
    var foreignInputs: [(file: String, format: ForeignFormat)] {
        condition.lock()
        defer { condition.unlock() }
        return foreign.sorted { $0.fileIndex < $1.fileIndex }.map { (files[$0.fileIndex].displayName, $0.format) }
    }

    /// Returns a parsed chunk's buffer to the pool (markers own no buffer).
    func recycle(_ chunk: Chunk) {
        if chunk.capacity > 0 { pool.give(chunk) }
    }

    /// Decoded bytes whose checksums were not checked against a trailer
    /// (for tests: 0 after a feed that ended with no input failing).
    var bytesUnchecked: Int {
        condition.lock()
        defer { condition.unlock() }
        return checksums.bytesUnchecked
    }
}
