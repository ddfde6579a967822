import Foundation  // FileHandle only.

/// A zone's offsets read from a compiled IANA time zone file (TZif, RFC 8536),
/// such as `/usr/share/zoneinfo/America/Vancouver`.
///
/// The host's files are the zone data its administrator keeps current: IANA
/// publishes several releases a year, and a release can change the offsets of
/// the weeks just exported (IANA 2026b–2026f moved British Columbia, Alberta,
/// Manitoba and the Northwest Territories to permanent daylight time and kept
/// Cuba on it, all from 2026-11-01). `ReportingTimeZone` reads a zone from here
/// when the host has it and falls back to the ICU copy built into Foundation.
///
/// Only version 2 and later files are read (their 64-bit data block and the
/// POSIX TZ string after it, which gives the offsets after the last listed
/// transition); version 1 files and files with leap seconds (`right/...`)
/// are refused, and so is anything malformed: the caller then uses ICU's data.
///
/// - Performance: one file read of a few KiB and, for a zone that still
///   observes daylight saving time, about 16 000 changes generated from its
///   TZ string up to year 9999: well under a millisecond, once per run.
enum ZoneInfoFile {
    /// The largest file read; real ones are under 4 KiB.
    static let maximumSize = 1 << 20

    /// The UTC offsets accepted, in seconds east (RFC 8536 §3.2: -25:59:59 to +25:59:59).
    static let offsetRange: ClosedRange<Int64> = -93_599...93_599

    /// The table of the file at `path`, or `nil` when there is none or it is
    /// not a usable TZif file.
    static func offsetTable(atPath path: String) -> OffsetTable? {
        guard let bytes = readFile(path) else { return nil }
        return offsetTable(bytes)
    }

    /// The table of a TZif file's bytes, or `nil` when they are not a usable
    /// TZif file (version 2 or later, no leap seconds).
    static func offsetTable(_ bytes: [UInt8]) -> OffsetTable? {
        var reader = ByteReader(bytes)
        guard let first = reader.header(), first.version >= 2 else { return nil }
        // Skip the version 1 data block (32-bit times), then read the second header.
        guard reader.skip(first.counts.dataSize(timeSize: 4)),
              let second = reader.header(), second.counts.leapCount == 0, second.counts.typeCount > 0
        else { return nil }
        let counts = second.counts
        var times: [Int64] = []
        for _ in 0..<counts.timeCount {
            guard let time = reader.int64(), times.last.map({ $0 < time }) ?? true else { return nil }
            times.append(time)
        }
        var typeIndexes: [Int] = []
        for _ in 0..<counts.timeCount {
            guard let index = reader.byte(), Int(index) < counts.typeCount else { return nil }
            typeIndexes.append(Int(index))
        }
        var typeOffsets: [Int64] = []
        for _ in 0..<counts.typeCount {
            // utoff, then isdst and desigidx; RFC 8536 asks for offsets within -25:59:59 ... +25:59:59.
            guard let offset = reader.int32(), Self.offsetRange.contains(Int64(offset)), reader.skip(2) else { return nil }
            typeOffsets.append(Int64(offset))
        }
        guard reader.skip(counts.characterCount + counts.standardCount + counts.universalCount),
              let footer = reader.footer()
        else { return nil }

        // RFC 8536: local time type 0 is in effect before the first transition.
        var builder = OffsetTableBuilder(initialOffset: typeOffsets[0])
        for (time, index) in zip(times, typeIndexes) {
            builder.add(change: time, offset: typeOffsets[index])
        }
        if !footer.isEmpty {
            guard let rule = PosixTimeZoneRule(footer) else { return nil }
            let after = times.last ?? Instant.minimum.seconds - 1
            // From the year before the last transition's (a rule's local date can
            // fall days from its UTC one), within years 1–9999: a file whose only
            // transition is at -2^59 would otherwise ask for billions of years.
            let last = min(max(times.last ?? Instant.minimum.seconds, Instant.minimum.seconds), Instant.maximum.seconds)
            let firstYear = max(Int64(CivilDate(dayNumber: CivilDate.floorDivide(last, 86_400)).year) - 1, 1)
            if times.isEmpty, rule.daylight == nil {   // the rule is the whole zone
                builder.add(change: Instant.minimum.seconds, offset: rule.standardOffset)
            }
            builder.add(changes: rule.changes(fromYear: firstYear, throughYear: 9999), after: after)
        }
        return builder.table
    }

    private static func readFile(_ path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maximumSize + 1), data.count <= maximumSize else { return nil }
        return [UInt8](data)
    }
}

/// The six counts of a TZif header.
private struct TZifCounts {
    var universalCount = 0, standardCount = 0, leapCount = 0
    var timeCount = 0, typeCount = 0, characterCount = 0

    /// The size of the data block that follows the header.
    func dataSize(timeSize: Int) -> Int {
        timeCount * (timeSize + 1) + typeCount * 6 + characterCount + leapCount * (timeSize + 4)
            + standardCount + universalCount
    }
}

/// A bounds-checked big-endian reader over a TZif file.
private struct ByteReader {
    let bytes: [UInt8]
    var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= bytes.count - at else { return false }
        at += count
        return true
    }

    mutating func byte() -> UInt8? {
        guard at < bytes.count else { return nil }
        defer { at += 1 }
        return bytes[at]
    }

    mutating func uint32() -> UInt32? {
        guard bytes.count - at >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 8 | UInt32(bytes[at]); at += 1 }
        return value
    }

    mutating func int32() -> Int32? { uint32().map { Int32(bitPattern: $0) } }

    mutating func int64() -> Int64? {
        guard let high = uint32(), let low = uint32() else { return nil }
        return Int64(bitPattern: UInt64(high) << 32 | UInt64(low))
    }

    /// The magic, the version (0 for version 1) and the counts.
    mutating func header() -> (version: Int, counts: TZifCounts)? {
        guard bytes.count - at >= 44, Array(bytes[at..<at + 4]) == Array("TZif".utf8) else { return nil }
        let versionByte = bytes[at + 4]
        at += 20
        let version = versionByte == 0 ? 1 : Int(versionByte) - Int(UInt8(ascii: "0"))
        guard version >= 1, version <= 9 else { return nil }
        var counts = TZifCounts()
        var values: [Int] = []
        for _ in 0..<6 {
            guard let value = uint32(), value <= 1 << 20 else { return nil }
            values.append(Int(value))
        }
        (counts.universalCount, counts.standardCount, counts.leapCount) = (values[0], values[1], values[2])
        (counts.timeCount, counts.typeCount, counts.characterCount) = (values[3], values[4], values[5])
        return (version, counts)
    }

    /// The TZ string between the two newlines that end a version 2+ file.
    mutating func footer() -> String? {
        guard byte() == UInt8(ascii: "\n") else { return nil }
        guard let end = bytes[at...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        defer { at = end + 1 }
        return String(decoding: bytes[at..<end], as: UTF8.self)
    }
}

/// Collects offset changes in time order into an `OffsetTable` over the
/// instants timestamps can have (years 1–9999).
struct OffsetTableBuilder {
    private var changes: [Int64] = []
    private var offsets: [Int64]

    init(initialOffset: Int64) { offsets = [initialOffset] }

    /// Adds a change to `offset` at `change`, which must not precede the
    /// changes added before. Changes before the supported range set the
    /// initial offset; changes after it are dropped; a change at the instant
    /// of the previous one replaces it; a change to the offset already in
    /// effect is no change.
    mutating func add(change: Int64, offset: Int64) {
        if change <= Instant.minimum.seconds {
            if changes.isEmpty { offsets[0] = offset }
            return
        }
        guard change <= Instant.maximum.seconds else { return }
        if let last = changes.last, change <= last {
            guard change == last else { return }
            offsets[offsets.count - 1] = offset
            if offsets[offsets.count - 1] == offsets[offsets.count - 2] {
                changes.removeLast()
                offsets.removeLast()
            }
            return
        }
        if offset != offsets[offsets.count - 1] {
            changes.append(change)
            offsets.append(offset)
        }
    }

    /// Adds the changes strictly after `after`, in time order (stable for ties).
    mutating func add(changes more: [(instant: Int64, offset: Int64)], after: Int64) {
        let ordered = more.enumerated().sorted { ($0.element.instant, $0.offset) < ($1.element.instant, $1.offset) }
        for (_, change) in ordered where change.instant > after {
            add(change: change.instant, offset: change.offset)
        }
    }

    var table: OffsetTable { OffsetTable(changes: changes, offsets: offsets) }
}
