/// The counts of `quality.csv` (SPEC §4.4).
///
/// `events_<type>` and `unknown_event_type` count kept events (after
/// de-duplication), so `events` = Σ `events_<type>` + `unknown_event_type`.
public struct QualityReport: Equatable, Sendable {
    public var files = 0
    public var bytesRead = 0
    public var bytesDecoded = 0
    public var lines = 0
    public var events = 0
    public var duplicates = 0
    public var conflictingDuplicates = 0
    /// Per ``RejectReason``, in its order.
    public var rejectedByReason = [Int](repeating: 0, count: RejectReason.allCases.count)
    public var unknownEventTypes = 0
    /// Per known event type, in the SPEC table's order.
    public var eventsByType = [Int](repeating: 0, count: EventType.known.count)
    var firstEvent: Instant?
    var lastEvent: Instant?

    public var rejected: Int { rejectedByReason.reduce(0, +) }

    /// The report of no input.
    init() {}

    /// From a settled partial (``PartialAggregate/settle()``).
    init(partial: PartialAggregate, files: Int, bytesRead: Int, bytesDecoded: Int) {
        self.files = files
        self.bytesRead = bytesRead
        self.bytesDecoded = bytesDecoded
        lines = partial.lines
        rejectedByReason = partial.rejectCounts
        let store = partial.store
        events = store.count
        duplicates = store.droppedCount
        conflictingDuplicates = store.conflictingDuplicates
        var byType = [Int](repeating: 0, count: EventType.allCases.count)
        var first: Instant?, last: Instant?
        store.forEachRecord { record in
            byType[Int(record.type.rawValue)] += 1
            let instant = record.instant
            if first.map({ instant < $0 }) ?? true { first = instant }
            if last.map({ instant > $0 }) ?? true { last = instant }
        }
        unknownEventTypes = byType[Int(EventType.unknown.rawValue)]
        for type in EventType.known { eventsByType[Int(type.rawValue)] = byType[Int(type.rawValue)] }
        (firstEvent, lastEvent) = (first, last)
    }

    /// The `metric,value` rows in the SPEC's order.
    var rows: [(String, String)] {
        var rows: [(String, String)] = [
            ("files", "\(files)"), ("bytes_read", "\(bytesRead)"), ("bytes_decoded", "\(bytesDecoded)"),
            ("lines", "\(lines)"), ("events", "\(events)"), ("duplicates", "\(duplicates)"),
            ("conflicting_duplicates", "\(conflictingDuplicates)"), ("rejected", "\(rejected)"),
        ]
        for reason in RejectReason.allCases {
            rows.append(("rejected_\(reason.name)", "\(rejectedByReason[Int(reason.rawValue)])"))
        }
        rows.append(("unknown_event_type", "\(unknownEventTypes)"))
        for type in EventType.known {
            rows.append(("events_\(type.name)", "\(eventsByType[Int(type.rawValue)])"))
        }
        rows.append(("first_event", firstEvent.map(TimestampParser.formatUTCMilliseconds) ?? ""))
        rows.append(("last_event", lastEvent.map(TimestampParser.formatUTCMilliseconds) ?? ""))
        return rows
    }
}
