import CSupport
import Dispatch
import Foundation
import Synchronization

/// Runs the pipeline: read → cut into chunks → parse and aggregate in parallel
/// → merge → compute metrics → write CSVs.
///
/// One worker per thread (`--threads`, at most one per core, the calling
/// thread included) loops: take the next newline-aligned chunk from the
/// ``ChunkFeed`` — inflating it itself, from an input no other worker is
/// reading (several inputs are inflated at once) — then parse and record it
/// into the worker's own partial (no locks per event). Chunk buffers come
/// from a fixed pool, so memory for text stays bounded whatever the input
/// size. Chunks carry their input-order sequence number; the SPEC's order
/// rules use it, never arrival order. After the last chunk the partials are
/// merged and the metrics computed from the merged whole.
public struct Analyzer: Sendable {
    public static let version = "0.1.0"

    /// The gzip inflater this build uses.
    public static var inflaterDescription: String { DefaultInflateBackend.name }

    /// Where `--timezone`'s IANA zones get their offsets (``ReportingTimeZone/dataDescription``).
    public static var timeZoneDataDescription: String { ReportingTimeZone.dataDescription }

    /// Whether `ANALYZE_HASH_SEED` (docs/data-model.md) is set but malformed:
    /// the hashes then use a random key, which the caller should not let pass.
    public static var hashSeedIsMalformed: Bool { ByteHash.seedOverrideIsMalformed }

    /// Live counters for a progress display (read from any thread).
    public final class Progress: Sendable {
        public let storedBytes = Atomic<Int>(0)
        public let decodedBytes = Atomic<Int>(0)
        public let lines = Atomic<Int>(0)
        /// Total stored size of the inputs, when all are regular files.
        public let totalBytes = Atomic<Int>(-1)
        public init() {}
    }

    public let options: AnalyzeOptions

    public init(options: AnalyzeOptions) {
        self.options = options
    }

    /// Analyzes the inputs and, when the reject rate allows, writes every CSV.
    /// Throws without touching `--out` on any input error.
    ///
    /// `warn` is given each warning about the inputs (``warnings``), on the
    /// calling thread, once they are read: before the CSVs are written, or
    /// before the run fails for its reject rate. `beforeReading`: see
    /// ``analyze(progress:beforeReading:)``.
    @discardableResult
    public func run(progress: Progress? = nil, beforeReading: () -> Void = {},
                    warn: (String) -> Void = { _ in }) throws(AnalyzeError) -> AnalysisResult {
        let output = OutputDirectory(path: options.outputDirectory)
        try output.checkWritable()
        try ThreadHeadroom.check(workers: options.workers)
        let result = try analyze(progress: progress, beforeReading: beforeReading)
        let quality = result.quality
        if options.maxRejectRate.isExceeded(rejected: quality.rejected, lines: quality.lines) {
            // Its message gives the rejections, so only the inputs are warned about.
            for warning in Self.warnings(
                skippedLookalikes: result.skippedLookalikes, foreignInputs: result.foreignInputs, quality: nil) { warn(warning) }
            throw .rejectRateExceeded(Self.rejectRateMessage(quality: quality, limit: options.maxRejectRate))
        }
        for warning in result.warnings { warn(warning) }
        if try output.write(result.csvOutputs) == .givenUp {
            warn("another process held a lock on '\(options.outputDirectory)' for more than "
                 + "\(Int(output.lockPatience)) seconds (a reader's flock -s?); the outputs were replaced without it")
        }
        return result
    }

    /// Reads and aggregates every input; writes nothing.
    ///
    /// `beforeReading` is called once the checks before reading have passed
    /// (inputs found, descriptors free), just before the first input is
    /// read: the place to start a progress display's timer. Started earlier,
    /// the timer's Dispatch descriptors could be half opened while the
    /// descriptor check counts them, and a run with just enough of them was
    /// refused (``FileDescriptorHeadroom``).
    public func analyze(progress: Progress? = nil, beforeReading: () -> Void = {}) throws(AnalyzeError) -> AnalysisResult {
        analyze_return_large_blocks_to_the_system()
        var lookalikes: [(directory: String, names: [String])] = []
        let files = try InputFile.expand(options.pathBytes, lookalikes: &lookalikes)
        try FileDescriptorHeadroom.check(inputsAtOnce: min(options.workers, files.count))
        beforeReading()
        let (partials, bytesRead, bytesDecoded, foreignInputs) = try parse(files, progress: progress)
        // Merge into the largest partial (the merge is associative and
        // commutative). The partials are consumed, not copied: a second
        // reference to their segments would make the merge copy them.
        var all = consume partials
        all.sort { $0.store.count > $1.store.count }
        var merged = all.removeFirst()
        while let partial = all.popLast() { merged.merge(partial) }  // each freed once merged
        // Before settling numbers anything: more than a run can hold stops
        // it here (the merge stopped at the first limit passed).
        if let limit = merged.exceededLimit { throw .input(limit.message) }
        var result = AnalysisResult(
            merged: consume merged, files: files, bytesRead: bytesRead, bytesDecoded: bytesDecoded,
            timeZone: options.timeZone)
        result.foreignInputs = foreignInputs
        result.skippedLookalikes = lookalikes
        return result
    }

    /// Parses every input into one partial per worker. The chunk buffers
    /// are freed when it returns, before the partials merge.
    private func parse(_ files: [InputFile], progress: Progress?) throws(AnalyzeError)
        -> (partials: [PartialAggregate], bytesRead: Int, bytesDecoded: Int,
            foreignInputs: [(file: String, format: ForeignFormat)])
    {
        // More workers than cores would only cost memory and merge time.
        let workers = options.workers
        let poolSize = ChunkFeed.poolSize(workers: workers, files: files.count)
        let chunks = BlockingPool((0..<poolSize).map { _ in Chunk(capacity: Chunk.defaultCapacity) })
        if let progress { progress.totalBytes.store(Self.totalSize(of: files), ordering: .relaxed) }
        // A chunk grows for a line longer than itself, up to the longest line
        // allowed and its line end (no limit: as far as memory allows).
        let (lineCapacity, overflow) = options.maxLineBytes.addingReportingOverflow(64)
        // A worker waiting for the input spins only when every worker has a
        // core of its own (tests run more to drive many-partial merges).
        let feed = ChunkFeed(
            files: files, workers: workers, pool: chunks, progress: progress,
            spinNanoseconds: workers <= AnalyzeOptions.activeCores ? ChunkFeed.defaultSpinNanoseconds : 0,
            lineCapacity: overflow ? Int.max : lineCapacity)
        let partials = WorkerPartials(count: workers)
        let maxLineBytes = options.maxLineBytes, maxRejectRows = options.maxRejectRows, capacity = options.capacity
        // Set by a worker whose partial passed a limit of `capacity`: every
        // worker stops after its current chunk, and the run fails after merging.
        let limitPassed = Atomic<Bool>(false)

        // One worker per thread, the calling thread included; each owns its
        // partial, so events are recorded without locks.
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var partial = PartialAggregate(maxLineBytes: maxLineBytes, maxRejectRows: maxRejectRows, capacity: capacity)
            while !limitPassed.load(ordering: .relaxed), let chunk = feed.next() {
                let before = partial.lines
                partial.consume(chunk)
                feed.recycle(chunk)
                progress?.lines.add(partial.lines - before, ordering: .relaxed)
                if partial.exceededLimit != nil { limitPassed.store(true, ordering: .relaxed) }
            }
            partial.releaseParser()
            partials.store(partial, at: worker)
        }
        if let error = feed.error { throw error }
        return (partials.take(), feed.bytesRead, feed.bytesDecoded, feed.foreignInputs)
    }

    private static func totalSize(of files: [InputFile]) -> Int {
        var total = 0
        for file in files {
            guard case .file(let path) = file.location, let size = fileSize(path) else { return -1 }
            total += size
        }
        return total
    }
}

/// The workers' finished partials, each stored once by its own worker.
private final class WorkerPartials: @unchecked Sendable {
    private let lock = NSLock()
    private var partials: [PartialAggregate?]

    init(count: Int) { partials = Array(repeating: nil, count: count) }

    /// Stores worker `index`'s partial (once per run, so the lock costs nothing).
    func store(_ partial: consuming PartialAggregate, at index: Int) {
        lock.lock()
        partials[index] = partial
        lock.unlock()
    }

    /// Every stored partial, moved out.
    func take() -> [PartialAggregate] {
        lock.lock()
        defer { lock.unlock() }
        let all = partials.compactMap { $0 }
        partials = []
        return all
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

private func fileSize(_ path: [UInt8]) -> Int? {
    var info = stat()
    guard InputFile.withCPath(path, { stat($0, &info) }) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return Int(info.st_size)
}
