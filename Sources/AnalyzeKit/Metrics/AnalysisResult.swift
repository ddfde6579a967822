import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Everything a run computed, ready to be written as the SPEC's CSV files.
public struct AnalysisResult: Sendable {
    public var quality: QualityReport
    public var rejects: [RejectRow]
    var installs: [InstallsRow]
    var profileSwitches: [ProfileSwitchRow]
    var quizAnswers: QuizAnswers
    /// The inputs in a format analyze does not read (``ForeignFormat``), in
    /// input order.
    public internal(set) var foreignInputs: [(file: String, format: ForeignFormat)] = []
    /// Per input directory, the names it skipped that look like exports in
    /// another form (``InputFile/isLookalike(_:)``).
    public internal(set) var skippedLookalikes: [(directory: String, names: [String])] = []

    /// What the user should be told about this run beyond its results: see
    /// ``Analyzer/run(progress:warn:)``.
    public var warnings: [String] {
        Analyzer.warnings(
            skippedLookalikes: skippedLookalikes, foreignInputs: foreignInputs, quality: quality, rejectRowsListed: rejects.count)
    }

    /// Computes every metric from the merged partial of a whole run. Its
    /// duplicates are settled first (which copy of each event is kept, and
    /// which dropped copies conflict) and the lookup indexes freed. The tables
    /// only read the partial and are independent, so they are computed
    /// concurrently (the quiz table, the longest, starts first). The partial
    /// is then freed on a background thread.
    init(
        merged partial: consuming PartialAggregate, files: [InputFile], bytesRead: Int, bytesDecoded: Int,
        timeZone: ReportingTimeZone
    ) {
        let box = PartialBox(partial)
        box.partial!.settle()
        let tables = Tables()
        do {
            nonisolated(unsafe) let shared = box.partial!
            DispatchQueue.concurrentPerform(iterations: 4) { task in
                switch task {
                case 0: tables.quizAnswers = QuizAnswersTable.rows(from: shared)
                case 1: tables.profileSwitches = ProfileSwitchesTable.rows(from: shared, days: timeZone.makeDayResolver())
                case 2: tables.installs = InstallsTable.rows(from: shared, days: timeZone.makeDayResolver())
                default:
                    tables.quality = QualityReport(
                        partial: shared, files: files.count, bytesRead: bytesRead,
                        bytesDecoded: bytesDecoded)
                    tables.rejects = RejectRow.rows(from: shared, files: files)
                }
            }
        }
        quality = tables.quality!
        rejects = tables.rejects
        installs = tables.installs
        profileSwitches = tables.profileSwitches
        quizAnswers = tables.quizAnswers
        // Freeing the partial (hundreds of MB in thousands of segments at 5 M
        // events: about 70 ms) is left to a background thread, while the CSVs
        // are written. `shared`'s copy ended with its scope, so the box holds the last.
        box.releaseOnAThreadOfItsOwn()
    }
}

/// Holds the merged partial so that the last reference to it can be dropped
/// on another thread.
private final class PartialBox: @unchecked Sendable {
    var partial: PartialAggregate?

    init(_ partial: consuming PartialAggregate) { self.partial = partial }

    func release() { partial = nil }

    /// Drops the partial on a detached thread of its own, or here when no
    /// thread can be started. Not on a Dispatch queue: under a tight limit on
    /// tasks (`pids.max` 4 with two workers) `async` found no thread to start
    /// and retried for ever in the calling thread, and the run never ended.
    func releaseOnAThreadOfItsOwn() {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { context in
            Unmanaged<PartialBox>.fromOpaque(context!).takeRetainedValue().release()
            return nil
        }, context)
        guard started != 0 else { return }
        Unmanaged<PartialBox>.fromOpaque(context).release()
        release()
    }
}

/// Results of the concurrent table computations; each field is written by one task.
private final class Tables: @unchecked Sendable {
    var quality: QualityReport?
    var rejects: [RejectRow] = []
    var installs: [InstallsRow] = []
    var profileSwitches: [ProfileSwitchRow] = []
    var quizAnswers = QuizAnswers()
}
