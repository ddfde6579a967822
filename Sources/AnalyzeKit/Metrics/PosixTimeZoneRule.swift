/// The POSIX TZ string at the end of a TZif file (RFC 8536 §3.3, with its
/// version 3 extension of hours from -167 to 167), such as `PST8PDT,M3.2.0,M11.1.0`
/// or `<+1030>-10:30<+11>-11,M10.1.0,M4.1.0`: the zone's offsets after the
/// last transition the file lists.
///
/// Offsets here are seconds east of UTC (POSIX writes them west, `PST8` is
/// UTC-8).
struct PosixTimeZoneRule {
    /// Standard time's offset.
    let standardOffset: Int64
    /// Daylight time: its offset and the yearly dates and local times it
    /// starts (in standard time) and ends (in daylight time); `nil` for a zone
    /// without daylight saving.
    let daylight: (offset: Int64, start: DateRule, end: DateRule)?

    /// A day of the year and a local time of day, in seconds (may be negative
    /// or past 24 hours).
    struct DateRule {
        enum Day {
            /// `Jn`: day 1–365, February 29 never counted.
            case julianSkippingLeapDay(Int64)
            /// `n`: day 0–365, February 29 counted.
            case zeroBasedDay(Int64)
            /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (1–5, 5 = last) of month `m`.
            case monthWeekDay(month: Int64, week: Int64, weekday: Int64)
        }
        let day: Day
        let time: Int64

        /// The day number (days since 1970-01-01) of this rule's day in `year`.
        func dayNumber(in year: Int64) -> Int64 {
            switch day {
            case .julianSkippingLeapDay(let n):
                let leap = CivilDate.daysInMonth(year: Int32(year), month: 2) == 29
                return CivilDate.dayNumber(year: year, month: 1, day: 1) + n - 1 + (leap && n >= 60 ? 1 : 0)
            case .zeroBasedDay(let n):
                return CivilDate.dayNumber(year: year, month: 1, day: 1) + n
            case .monthWeekDay(let month, let week, let weekday):
                let first = CivilDate.dayNumber(year: year, month: month, day: 1)
                let firstWeekday = (first % 7 + 7 + 4) % 7            // 1970-01-01 was a Thursday
                var day = first + (weekday - firstWeekday + 7) % 7 + 7 * (week - 1)
                let last = first + Int64(CivilDate.daysInMonth(year: Int32(year), month: UInt8(month))) - 1
                while day > last { day -= 7 }                           // week 5: the last one
                return day
            }
        }
    }

    /// Parses a TZ string; `nil` when it is not one this type can follow.
    init?(_ text: String) {
        var scanner = TZStringScanner(Array(text.utf8))
        guard scanner.name(), let standardWest = scanner.offset(), ZoneInfoFile.offsetRange.contains(standardWest)
        else { return nil }
        standardOffset = -standardWest
        if scanner.atEnd {
            daylight = nil
            return
        }
        guard scanner.name() else { return nil }
        var daylightOffset = standardOffset + 3600
        if !scanner.peek(UInt8(ascii: ",")) {
            guard let west = scanner.offset(), ZoneInfoFile.offsetRange.contains(west) else { return nil }
            daylightOffset = -west
        }
        guard scanner.take(UInt8(ascii: ",")), let start = scanner.dateRule(),
              scanner.take(UInt8(ascii: ",")), let end = scanner.dateRule(), scanner.atEnd
        else { return nil }
        daylight = (daylightOffset, start, end)
    }

    /// The rule's offset changes whose local dates fall in `firstYear ... lastYear`.
    func changes(fromYear firstYear: Int64, throughYear lastYear: Int64) -> [(instant: Int64, offset: Int64)] {
        guard let daylight, firstYear <= lastYear else { return [] }
        var changes: [(instant: Int64, offset: Int64)] = []
        changes.reserveCapacity(Int(lastYear - firstYear + 1) * 2)
        for year in firstYear...lastYear {
            // Daylight time starts at a local standard time and ends at a local daylight time.
            let start = daylight.start.dayNumber(in: year) * 86_400 + daylight.start.time - standardOffset
            let end = daylight.end.dayNumber(in: year) * 86_400 + daylight.end.time - daylight.offset
            if start <= end {
                changes.append((start, daylight.offset))
                changes.append((end, standardOffset))
            } else {                                   // southern hemisphere: daylight time spans the new year
                changes.append((end, standardOffset))
                changes.append((start, daylight.offset))
            }
        }
        return changes
    }
}

/// The pieces of a TZ string.
private struct TZStringScanner {
    let bytes: [UInt8]
    var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { at == bytes.count }

    func peek(_ byte: UInt8) -> Bool { at < bytes.count && bytes[at] == byte }

    mutating func take(_ byte: UInt8) -> Bool {
        guard peek(byte) else { return false }
        at += 1
        return true
    }

    /// A zone abbreviation: three or more letters, or `<...>` of letters, digits, `+` and `-`.
    mutating func name() -> Bool {
        let start = at
        if take(UInt8(ascii: "<")) {
            while at < bytes.count, bytes[at] != UInt8(ascii: ">") { at += 1 }
            guard at - start >= 4, take(UInt8(ascii: ">")) else { return false }
            return true
        }
        while at < bytes.count, (bytes[at] | 0x20) >= UInt8(ascii: "a"), (bytes[at] | 0x20) <= UInt8(ascii: "z") { at += 1 }
        return at - start >= 3
    }

    /// An unsigned number of at most three digits.
    mutating func number() -> Int64? {
        let start = at
        var value: Int64 = 0
        while at < bytes.count, at - start < 3, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9") {
            value = value * 10 + Int64(bytes[at] - UInt8(ascii: "0"))
            at += 1
        }
        return at > start ? value : nil
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, hours up to 167 (RFC 8536's extension).
    mutating func offset() -> Int64? {
        var sign: Int64 = 1
        if take(UInt8(ascii: "-")) { sign = -1 } else { _ = take(UInt8(ascii: "+")) }
        guard let hours = number(), hours <= 167 else { return nil }
        var seconds = hours * 3600
        if take(UInt8(ascii: ":")) {
            guard let minutes = number(), minutes <= 59 else { return nil }
            seconds += minutes * 60
            if take(UInt8(ascii: ":")) {
                guard let secs = number(), secs <= 59 else { return nil }
                seconds += secs
            }
        }
        return sign * seconds
    }

    /// `Jn`, `n` or `Mm.w.d`, then `/time` (default 02:00:00).
    mutating func dateRule() -> PosixTimeZoneRule.DateRule? {
        let day: PosixTimeZoneRule.DateRule.Day
        if take(UInt8(ascii: "J")) {
            guard let n = number(), (1...365).contains(n) else { return nil }
            day = .julianSkippingLeapDay(n)
        } else if take(UInt8(ascii: "M")) {
            guard let month = number(), (1...12).contains(month), take(UInt8(ascii: ".")),
                  let week = number(), (1...5).contains(week), take(UInt8(ascii: ".")),
                  let weekday = number(), (0...6).contains(weekday)
            else { return nil }
            day = .monthWeekDay(month: month, week: week, weekday: weekday)
        } else {
            guard let n = number(), (0...365).contains(n) else { return nil }
            day = .zeroBasedDay(n)
        }
        var time: Int64 = 7200
        if take(UInt8(ascii: "/")) {
            guard let value = offset() else { return nil }
            time = value
        }
        return PosixTimeZoneRule.DateRule(day: day, time: time)
    }
}
