/// Public configuration and the ground-truth report of a generated export.
///
/// The world (people, devices, profiles, answers — see World.swift) depends only on
/// `seed`, `events`, `startDate` and `days`. Noise (`noise`, `crlf`, `bom`,
/// `includeHugeLine`) only adds or re-spells lines on top of the same world, so the
/// installs, profile switches and quiz answers an analyzer computes from a noisy export
/// equal those of the clean export with the same world parameters (redeliveries and
/// conflicting copies always come after the event they repeat; rejected lines never carry
/// a real event's content except its `event_id`).

public struct GeneratorConfiguration: Sendable, Equatable {
    /// The seed; same configuration → same bytes.
    public var seed: UInt64
    /// Approximate number of real events (≈ lines of a clean export). Noise lines come on top.
    public var events: Int
    /// First day of the export window, `YYYY-MM-DD` (UTC midnight).
    public var startDate: String
    /// Length of the window in days.
    public var days: Int
    /// Probability per real event of one noise card (a redelivery, a conflicting copy, a
    /// late arrival, a rejected line, a blank line, a re-spelling, …); 0 = clean.
    public var noise: Double
    /// Every line ends with CRLF.
    public var crlf: Bool
    /// A UTF-8 byte order mark at the start.
    public var bom: Bool
    /// Two ~1 MiB lines: one exactly 1,048,576 bytes (accepted, the limit is inclusive)
    /// and one of 1,048,577 bytes (`line_too_long` at the default `--max-line-bytes`).
    public var includeHugeLine: Bool

    /// The rate `--noise` uses when given without a value.
    public static let defaultNoise = 0.02

    public init(seed: UInt64 = 1, events: Int = 10_000, startDate: String = "2026-11-01", days: Int = 30,
                noise: Double = 0, crlf: Bool = false, bom: Bool = false, includeHugeLine: Bool = false) {
        self.seed = seed
        self.events = events
        self.startDate = startDate
        self.days = days
        self.noise = noise
        self.crlf = crlf
        self.bom = bom
        self.includeHugeLine = includeHugeLine
    }

    /// Nil when valid, else what is wrong.
    public var problem: String? {
        if events < 0 { return "--events must be >= 0" }
        if days < 1 || days > 3650 { return "--days must be between 1 and 3650" }
        if !(noise >= 0 && noise <= 1) { return "--noise must be between 0 and 1" }
        guard let d = parseISODate(startDate) else { return "--start must be a date YYYY-MM-DD" }
        // instants are Int64 nanoseconds internally
        let (y0, _, _) = civilFromDays(d)
        let (y1, _, _) = civilFromDays(d + Int64(days))
        if y0 < 1900 || y1 > 2200 { return "the window must lie within the years 1900-2200" }
        return nil
    }
}

/// What the generator wrote, counted the way SPEC §4.4 counts it (at the default
/// `--max-line-bytes`), so end-to-end tests can compare `quality.csv` against it.
public struct GenerationReport: Sendable, Equatable {
    /// SPEC §2 reject reasons, in order.
    public static let rejectReasons = [
        "line_too_long", "invalid_json", "not_an_object", "missing_field", "wrong_type",
        "bad_timestamp", "bad_action",
    ]
    /// SPEC §2 known event types, in table order.
    public static let knownEventTypes = [
        "sdk_activate", "identify", "logout", "onboarding_state_updated", "onboarding_analytics",
    ]

    /// Bytes of NDJSON text (plain, before any gzip).
    public var bytes = 0
    /// Non-blank lines (SPEC `lines`).
    public var lines = 0
    public var blankLines = 0
    /// Kept events: first occurrence of each `event_id` among accepted lines.
    public var events = 0
    /// Kept events by known type, in `knownEventTypes` order.
    public var eventsByType = [0, 0, 0, 0, 0]
    public var unknownEventType = 0
    public var duplicates = 0
    public var conflictingDuplicates = 0
    /// Rejected lines by reason, in `rejectReasons` order.
    public var rejectedByReason = [0, 0, 0, 0, 0, 0, 0]
    /// Earliest / latest kept instant (ns since the epoch).
    public var firstEventNanoseconds: Int64? = nil
    public var lastEventNanoseconds: Int64? = nil
    /// People simulated.
    public var people = 0
    /// Noise cards drawn, by kind (see `NoiseKind` names).
    public var noise: [String: Int] = [:]

    public var rejected: Int { rejectedByReason.reduce(0, +) }

    /// Noise kinds with counts, sorted by name (dictionary order is not stable).
    public var noiseSorted: [(kind: String, count: Int)] {
        noise.keys.sorted().map { ($0, noise[$0]!) }
    }

    public init() {}
}

/// Streams a deterministic synthetic export (NDJSON text).
public struct EventGenerator {
    public let configuration: GeneratorConfiguration
    /// Filled in by `write(to:)`.
    public private(set) var report = GenerationReport()

    public init(_ configuration: GeneratorConfiguration) {
        if let p = configuration.problem { preconditionFailure("GeneratorConfiguration: \(p)") }
        self.configuration = configuration
    }

    /// Produces the whole export, handing it to `sink` in pieces (≤ ~1 MiB each, except
    /// around a huge line). The buffer is only valid during the call. Each call produces
    /// the same bytes.
    public mutating func write(to sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var engine = Engine(configuration)
        defer { engine.release() }
        while true {
            let more = engine.fill(threshold: 512 * 1024)
            if !more { engine.finishText() }
            // Hold back the last line end until we know whether the text ends there.
            let n = more ? engine.out.count - engine.lastLineEndLength : engine.out.count
            if n > 0 { try sink(UnsafeRawBufferPointer(start: engine.out.base, count: n)) }
            engine.out.keepTail(from: n)
            if !more { break }
        }
        report = engine.report
    }

    /// Total size of the export in bytes (generates it once, discarding the text).
    public func measure() -> Int {
        var copy = self
        var total = 0
        copy.write { total += $0.count }
        return total
    }
}

/// The whole export in memory (for small tests).
public func generateExport(_ configuration: GeneratorConfiguration) -> [UInt8] {
    var generator = EventGenerator(configuration)
    var bytes: [UInt8] = []
    generator.write { bytes.append(contentsOf: $0) }
    return bytes
}

/// The export and its report, in memory.
public func generateExportWithReport(_ configuration: GeneratorConfiguration) -> ([UInt8], GenerationReport) {
    var generator = EventGenerator(configuration)
    var bytes: [UInt8] = []
    generator.write { bytes.append(contentsOf: $0) }
    return (bytes, generator.report)
}
