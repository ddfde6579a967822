import CSupport
import Dispatch
import Synchronization

/// Runs the pipeline: read → cut into chunks → parse and aggregate in parallel
/// → merge → compute metrics → write CSVs.
///
/// The calling thread reads: it inflates each input into newline-aligned
/// chunks and hands each chunk, with a free worker partial, to a Dispatch
/// task. Chunks and partials come from fixed pools, so memory for text stays
/// bounded whatever the input size, and a partial is used by one task at a
/// time (no locks per event). Chunks carry their input-order sequence number;
/// the SPEC's order rules use it, never arrival order. After the last chunk
/// the partials are merged and the metrics computed from the merged whole.
public struct Analyzer: Sendable {
    public static let version = "0.1.0"

    /// The gzip inflater this build uses.
    public static var inflaterDescription: String { DefaultInflateBackend.name }

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
    @discardableResult
    public func run(progress: Progress? = nil) throws(AnalyzeError) -> AnalysisResult {
        let output = OutputDirectory(path: options.outputDirectory)
        try output.checkWritable()
        let result = try analyze(progress: progress)
        let quality = result.quality
        if quality.lines > 0 && Double(quality.rejected) / Double(quality.lines) > options.maxRejectRate {
            throw .rejectRateExceeded(
                "\(quality.rejected) of \(quality.lines) lines rejected, more than --max-reject-rate \(options.maxRejectRate); no output written")
        }
        try output.write(result.csvFiles())
        return result
    }

    /// Reads and aggregates every input; writes nothing.
    public func analyze(progress: Progress? = nil) throws(AnalyzeError) -> AnalysisResult {
        analyze_return_large_blocks_to_the_system()
        let files = try InputFile.expand(options.paths)
        // More partials than can run at once would only cost memory and merge
        // time: Dispatch runs at most one task per core, and tasks never block.
        let workers = min(options.threads, options.maximumWorkers)
        let capacity = max(4 << 20, min(options.maxLineBytes, 1 << 30) + 64)
        let chunkCount = workers + 2
        let chunks = BlockingPool((0..<chunkCount).map { _ in Chunk(capacity: capacity) })
        let slots = BlockingPool((0..<workers).map { _ in
            WorkerSlot(PartialAggregate(maxLineBytes: options.maxLineBytes, maxRejectRows: options.maxRejectRows))
        })
        let group = DispatchGroup()
        let queue = DispatchQueue.global(qos: .userInitiated)
        var sequence = 0
        var bytesRead = 0
        var bytesDecoded = 0

        do throws(AnalyzeError) {
            if let progress { progress.totalBytes.store(Self.totalSize(of: files), ordering: .relaxed) }
            for (fileIndex, file) in files.enumerated() {
                let source = try DecodedTextSource(file)
                var reader = ChunkReader(source: source, fileIndex: fileIndex)
                try reader.run(take: chunks.take, recycle: chunks.give) { chunk in
                    chunk.sequence = sequence
                    sequence += 1
                    let slot = slots.take()
                    let pooled = chunk.capacity > 0
                    queue.async(group: group) {
                        let before = slot.partial.lines
                        slot.partial.consume(chunk)
                        progress?.lines.add(slot.partial.lines - before, ordering: .relaxed)
                        if pooled { chunks.give(chunk) }
                        slots.give(slot)
                    }
                    if let progress {
                        progress.storedBytes.store(bytesRead + source.bytesRead, ordering: .relaxed)
                        progress.decodedBytes.store(bytesDecoded + source.bytesDecoded, ordering: .relaxed)
                    }
                }
                bytesRead += source.bytesRead
                bytesDecoded += source.bytesDecoded
            }
        } catch {
            group.wait()
            throw error
        }
        group.wait()

        // Merge the partials pairwise (the merge is associative and commutative).
        var partials = slots.drain(count: workers).map(\.partial)
        partials.sort { $0.store.count > $1.store.count }
        var merged = partials.removeFirst()
        while let partial = partials.popLast() { merged.merge(partial) }  // each freed once merged
        return AnalysisResult(
            merged: consume merged, files: files, bytesRead: bytesRead, bytesDecoded: bytesDecoded,
            timeZone: options.timeZone)
    }

    private static func totalSize(of files: [InputFile]) -> Int {
        var total = 0
        for file in files {
            guard case .path(let path) = file.location, let size = fileSize(path) else { return -1 }
            total += size
        }
        return total
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

private func fileSize(_ path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return Int(info.st_size)
}
