import Foundation  // `TimeZone` (names, and the built-in ICU zone data) and `ProcessInfo` (`TZDIR`).

/// The reporting time zone of SPEC §3 (`--timezone`): the zone whose
/// calendar dates the metrics are counted in.
///
/// It is either an IANA time zone name such as `Asia/Tokyo` or
/// `America/New_York`, with its full history of offsets and daylight saving
/// time, or a fixed UTC offset such as `+09:00`. The default is `UTC`.
///
/// The zone itself is immutable and shared by all threads; per-event work goes
/// through a `DayResolver` (see `makeDayResolver()`), one per thread.
///
/// Two values are equal when they were given the same spelling: `UTC`,
/// `+00:00` and `-00:00` resolve every instant to the same day but are three
/// different values.
///
/// - Note: An IANA zone's offsets come from the host's compiled zone file
///   (`$TZDIR/NAME`, by default `/usr/share/zoneinfo/NAME`; `ZoneInfoFile`)
///   when there is a readable one, since that is the copy of the IANA database
///   the host keeps current, and from the ICU copy built into the toolchain's
///   Foundation otherwise (a machine without the `tzdata` package). The ICU
///   copy is as old as the toolchain: Swift 6.3.1's is IANA 2025b, which does
///   not know that British Columbia, Alberta, Manitoba, the Northwest
///   Territories and Cuba stopped falling back on 2026-11-01. Which names are
///   accepted is decided by Foundation either way.
///
/// - Performance: Parsing an IANA name reads the zone's every offset change
///   from year 1 to 9999 once, into a sorted table: about 16 000 changes for a
///   zone that still observes daylight saving time (`America/New_York`: about
///   8 ms out of Foundation, under 1 ms from a zone file, besides about 1 ms for
///   Foundation's check of the name), a handful for one that does not
///   (`Asia/Tokyo`). After that no zone data is read again.
public struct ReportingTimeZone: Sendable, Equatable {
    /// The zone as given on the command line (`UTC`, `Asia/Tokyo`, `+09:00`).
    public let name: String

    /// The zone's UTC offsets over the supported range of instants.
    let offsets: OffsetTable

    /// Coordinated Universal Time, the default reporting zone.
    public static let utc = ReportingTimeZone(name: "UTC", offsets: OffsetTable(fixed: 0))

    private init(name: String, offsets: OffsetTable) {
        self.name = name
        self.offsets = offsets
    }

    /// Parses a `--timezone` value.
    ///
    /// Accepted spellings:
    ///
    /// * `UTC`.
    /// * A fixed offset exactly `+HH:MM` or `-HH:MM`, `HH` at most 23 and `MM`
    ///   at most 59 (`+05:30`, `-03:00`; `-00:00` is UTC).
    /// * An IANA time zone name, case-sensitive, exactly as the database spells
    ///   it: canonical names (`Asia/Kolkata`, `Etc/UTC`, `Etc/GMT-9`) and the
    ///   database's backward-compatible links (`Asia/Calcutta`, `US/Eastern`).
    ///
    /// Rejected: `asia/tokyo` (wrong case), unknown names (`Mars/Base`), other
    /// offset spellings (`+0900`, `+9:00`, `+24:00`, `GMT+9`, `UTC+09:00`), the
    /// empty string, and names that ICU knows but that are not IANA zones (the
    /// Java-compatibility abbreviations such as `JST`, `IST` or `CST`, which
    /// are also ambiguous, `SystemV/...`, and names IANA removed).
    ///
    /// Foundation's `TimeZone(identifier:)` is lenient on Linux (it maps
    /// `GMT+9` to `GMT+0900` and `UTC` to `GMT`, and ICU ignores anything
    /// after an embedded NUL), so a name is only accepted when it consists of
    /// IANA name characters and Foundation resolves it to an identifier equal
    /// to the input. `TimeZone.knownTimeZoneIdentifiers` is deliberately not
    /// used as a whitelist: on Linux it leaves out valid names such as
    /// `Asia/Kolkata`, `UTC` and all of `Etc/`.
    ///
    /// - Complexity: O(*n*) in the length of `text` for `UTC` and offsets; for
    ///   IANA names, the table construction described in the type's
    ///   performance note.
    public init?(parsing text: String) {
        self.init(parsing: text, zoneDirectory: Self.hostZoneDirectory)
    }

    /// The host's compiled zone files: `$TZDIR` when set and not empty (as for
    /// the C library), else `/usr/share/zoneinfo`.
    static var hostZoneDirectory: String {
        if let directory = ProcessInfo.processInfo.environment["TZDIR"], !directory.isEmpty { return directory }
        return "/usr/share/zoneinfo"
    }

    /// Where IANA zones' offsets come from, for `--version`: the host's zone
    /// directory with its IANA release (from its `tzdata.zi`) when it exists,
    /// and the built-in ICU data's release, e.g.
    /// `/usr/share/zoneinfo (2026f), else built-in (2025b)`.
    public static var dataDescription: String {
        let builtIn = "built-in (\(TimeZone.timeZoneDataVersion))"
        let directory = hostZoneDirectory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
        else { return builtIn }
        var release = "release unknown"
        if let handle = FileHandle(forReadingAtPath: directory + "/tzdata.zi") {
            defer { try? handle.close() }
            // Its first line is "# version 2026f".
            if let head = try? handle.read(upToCount: 64),
               let line = String(decoding: head, as: UTF8.self).split(separator: "\n").first,
               line.hasPrefix("# version "), line.count <= 30 {
                release = String(line.dropFirst("# version ".count))
            }
        }
        return "\(directory) (\(PrintableText.escaped(release))), else \(builtIn)"
    }

    /// Parses a `--timezone` value, reading an IANA zone's offsets from
    /// `zoneDirectory/NAME` when that is a TZif file of version 2 or later
    /// (`ZoneInfoFile`), else, and always when `zoneDirectory` is `nil`, from
    /// the ICU data built into Foundation. Which names are accepted does not
    /// depend on the directory.
    init?(parsing text: String, zoneDirectory: String?) {
        if text == "UTC" {
            self = .utc
            return
        }
        var utf8 = text
        if let offset = utf8.withUTF8({ TimestampParser.parseNumericOffset(UnsafeRawBufferPointer($0)) }) {
            self.init(name: text, offsets: OffsetTable(fixed: offset))
            return
        }
        // IANA links to Etc/GMT whose spelling the prefix rule below refuses
        // (and Foundation renames).
        if text == "GMT+0" || text == "GMT-0", let zone = TimeZone(identifier: "GMT") {
            self.init(name: text, offsets: OffsetTable(zone: zone))
            return
        }
        guard Self.mayBeIANAName(text),
              let zone = TimeZone(identifier: text), zone.identifier == text
        else { return nil }
        if let zoneDirectory, let table = ZoneInfoFile.offsetTable(atPath: zoneDirectory + "/" + text) {
            self.init(name: text, offsets: table)
        } else {
            self.init(name: text, offsets: OffsetTable(zone: zone))
        }
    }

    /// Equal when spelled the same (the offsets follow from the name).
    public static func == (lhs: ReportingTimeZone, rhs: ReportingTimeZone) -> Bool {
        lhs.name == rhs.name
    }

    /// Makes a resolver of instants to days in this zone.
    ///
    /// A resolver caches its last lookup and is not thread-safe: make one per
    /// thread. Making one is cheap (one small allocation; the offset table is
    /// shared, not copied).
    func makeDayResolver() -> DayResolver {
        DayResolver(offsets)
    }

    /// Whether `text` could be an IANA name at all: only the characters the
    /// database uses in names (`A-Z a-z 0-9 / _ - + .`), and not one of the
    /// spellings that Foundation or ICU accept but that are no IANA zones.
    private static func mayBeIANAName(_ text: String) -> Bool {
        let allowed = text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "a") ... UInt8(ascii: "z"),
                 UInt8(ascii: "0") ... UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "_"),
                 UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."):
                true
            default:
                false
            }
        }
        return allowed && !text.isEmpty
            && !["GMT+", "GMT-", "UTC+", "UTC-"].contains(where: text.hasPrefix)
            && !text.hasPrefix("SystemV/")
            && !nonIANAIDs.contains(text)
    }

    /// ICU's zone ids that the IANA database (2025b, backward links included)
    /// does not have, `SystemV/` aside: those inherited from Java's
    /// `TimeZone`, and two names IANA removed (`US/Pacific-New` in 2020b,
    /// `Canada/East-Saskatchewan` in 2017c). Found by trying every string of
    /// ICU's data that looks like a zone name against Foundation, and
    /// comparing with `tzdata.zi`'s zones and links.
    private static let nonIANAIDs: Set<String> = [
        "ACT", "AET", "AGT", "ART", "AST", "BET", "BST", "CAT", "CNT", "CST", "CTT", "EAT",
        "ECT", "IET", "IST", "JST", "MIT", "NET", "NST", "PLT", "PNT", "PRT", "PST", "SST", "VST",
        "Canada/East-Saskatchewan", "US/Pacific-New",
    ]
}

/// A zone's UTC offset as a step function of time: the instants at which it
/// changes, and the offset in effect in each interval between them.
///
/// A fixed offset is the table with no changes.
struct OffsetTable: Sendable {
    /// The seconds at which the offset changes, strictly ascending, all in
    /// `Instant.minimum.seconds ... Instant.maximum.seconds`.
    let changes: [Int64]
    /// `offsets[0]` is in effect before `changes[0]`, and `offsets[i + 1]`
    /// from `changes[i]` on (seconds east of UTC); one more than `changes`.
    let offsets: [Int64]

    /// The table of these changes and offsets (`offsets.count == changes.count + 1`).
    init(changes: [Int64], offsets: [Int64]) {
        precondition(offsets.count == changes.count + 1)
        self.changes = changes
        self.offsets = offsets
    }

    /// A constant offset, in seconds east of UTC.
    init(fixed offset: Int32) {
        changes = []
        offsets = [Int64(offset)]
    }

    /// Reads every offset change of `zone` between year 1 and year 9999.
    ///
    /// `TimeZone.nextDaylightSavingTimeTransition(after:)` reports every change
    /// of the UTC offset, not only daylight saving ones (it also reports
    /// changes of standard time, such as local mean time ending, at whatever
    /// second they happened), and `secondsFromGMT(for:)` at a change gives the
    /// new offset. This is exact: it does not assume that offsets change on
    /// whole hours (`Africa/Monrovia` changed at 00:44:30 UTC in 1972).
    ///
    /// - Complexity: O(*k*) Foundation calls for *k* changes, about 1 µs each.
    init(zone: TimeZone) {
        func offset(at seconds: Int64) -> Int64 {
            Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
        }
        var changes: [Int64] = []
        var offsets = [offset(at: Instant.minimum.seconds)]
        var after = Date(timeIntervalSince1970: Double(Instant.minimum.seconds))
        while let next = zone.nextDaylightSavingTimeTransition(after: after),
              next.timeIntervalSince1970 <= Double(Instant.maximum.seconds) {
            // IANA changes fall on whole seconds; rounding up keeps a
            // (hypothetical) fractional one from taking effect early.
            let change = Int64(next.timeIntervalSince1970.rounded(.up))
            let newOffset = offset(at: change)
            if newOffset != offsets[offsets.count - 1] {   // skip changes of the DST/standard split only
                changes.append(change)
                offsets.append(newOffset)
            }
            after = next
        }
        self.changes = changes
        self.offsets = offsets
    }
}

/// Maps instants to calendar days (days since 1970-01-01) in one reporting
/// time zone, fast enough to be called once per event.
///
/// Get one from `ReportingTimeZone.makeDayResolver()`, one per thread: the
/// resolver remembers the interval of its last lookup, which makes it
/// mutable, and it is deliberately not `Sendable`.
///
/// The offsets come from the zone's `OffsetTable`, the complete list of its
/// offset changes from year 1 to 9999, read from Foundation once when the zone
/// was parsed. A lookup first checks the interval between two changes that
/// answered the previous lookup (input is mostly in time order, and offsets
/// change twice a year at most); otherwise it binary-searches the table and
/// remembers the new interval. A fixed offset is a table without changes, so
/// its interval is all of time and every lookup hits.
///
/// - Performance: A lookup in the remembered interval is two comparisons, an
///   add and a floor division (about 3 ns in a release build). Any other
///   lookup adds a binary search over at most about 16 000 changes (14 steps;
///   30–60 ns for input shuffled over years), whatever the order and time span
///   of the input. No locks, no allocation and no Foundation calls.
final class DayResolver {
    private let offsets: OffsetTable
    /// The remembered interval `lowerBound ..< upperBound` of seconds, in
    /// which the offset is `offset`. Starts empty.
    private var lowerBound: Int64 = .max
    private var upperBound: Int64 = .min
    private var offset: Int64 = 0

    init(_ offsets: OffsetTable) {
        self.offsets = offsets
    }

    /// The calendar day (days since 1970-01-01, negative before) that contains
    /// `instant` in the zone.
    ///
    /// - Complexity: O(1) in the remembered interval, else O(log *k*) for *k*
    ///   offset changes in the zone's history.
    @inline(__always)
    func day(of instant: Instant) -> Int64 {
        // Offsets are whole seconds and change on whole seconds, so the
        // nanoseconds never matter.
        CivilDate.floorDivide(instant.seconds + utcOffset(atSecond: instant.seconds), 86_400)
    }

    /// The zone's offset from UTC, in seconds east, during the second that
    /// starts `seconds` after the epoch.
    ///
    /// - Complexity: As `day(of:)`.
    @inline(__always)
    func utcOffset(atSecond seconds: Int64) -> Int64 {
        if seconds >= lowerBound && seconds < upperBound { return offset }
        return lookUp(seconds)
    }

    /// Binary-searches the table and remembers the interval found.
    private func lookUp(_ seconds: Int64) -> Int64 {
        let changes = offsets.changes
        // The number of changes at or before `seconds`.
        var low = 0
        var high = changes.count
        while low < high {
            let middle = low + (high - low) / 2
            if changes[middle] <= seconds { low = middle + 1 } else { high = middle }
        }
        lowerBound = low == 0 ? .min : changes[low - 1]
        upperBound = low == changes.count ? .max : changes[low]
        offset = offsets.offsets[low]
        return offset
    }
}

/// A `DayResolver` remembers its last lookup without locking; give each
/// thread its own.
@available(*, unavailable)
extension DayResolver: Sendable {}
