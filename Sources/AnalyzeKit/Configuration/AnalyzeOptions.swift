/// A validated configuration for one run (SPEC §5).
public struct AnalyzeOptions: Sendable, Equatable {
    /// The input paths as the command line gave them: bytes, which on Linux
    /// need not be UTF-8 (a file named `caf\xe9.ndjson`).
    public var pathBytes: [[UInt8]]
    /// The input paths as text (a byte that is not UTF-8 reads as U+FFFD);
    /// setting them sets ``pathBytes`` to their UTF-8.
    public var paths: [String] {
        get { pathBytes.map { String(decoding: $0, as: UTF8.self) } }
        set { pathBytes = newValue.map { Array($0.utf8) } }
    }
    public var outputDirectory = "analyze-out"
    public var timeZone = ReportingTimeZone.utc
    public var threads: Int
    public var maxRejectRate = RejectRate.never
    public var maxRejectRows = 10_000
    public var maxLineBytes = 1 << 20
    public var quiet = false
    /// The most worker partials a run uses, whatever `threads` asks for. More
    /// partials than cores never run at once (Dispatch's pool runs about as
    /// many tasks as there are cores), and each one
    /// more is another interner to fill and another partial to merge: on two
    /// cores `--threads 8` took 8 % longer than `--threads 2` before this cap.
    /// Tests raise it to drive many-partial merges through the whole pipeline.
    var maximumWorkers = AnalyzeOptions.activeCores
    /// The workers a run uses: `threads`, at most ``maximumWorkers``.
    var workers: Int { min(threads, maximumWorkers) }
    /// What one run can hold before it stops with exit 2 (``RunCapacity``):
    /// the record layout's limits. Tests lower them to reach them.
    var capacity = RunCapacity.standard

    public init(paths: [String], threads: Int? = nil) {
        pathBytes = paths.map { Array($0.utf8) }
        self.threads = threads ?? AnalyzeOptions.activeCores
    }

    /// The cores this process can use at once (the default for `--threads`,
    /// and its cap): the machine's online CPUs, fewer when its affinity mask or
    /// its cgroup's CPU quota allows fewer (``UsableCores``).
    public static var activeCores: Int { UsableCores.count }
}
