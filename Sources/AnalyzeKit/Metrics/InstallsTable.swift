import CSupport

/// One row of `installs.csv`: installs first seen on `day` under each mode.
struct InstallsRow: Equatable, Sendable {
    var day: Int64
    var byDeviceID = 0
    var byCustomerUserID = 0
    var byProfileID = 0

    /// Counts `installs` more under `mode` (0 device, 1 customer user, 2 profile).
    mutating func add(_ installs: Int, mode: Int) {
        switch mode {
        case 0: byDeviceID += installs
        case 1: byCustomerUserID += installs
        default: byProfileID += installs
        }
    }
}

/// Installs per reporting day under the three installs-definition modes (SPEC §4.1).
///
/// An identity installs on the day of its earliest kept event (by instant; an
/// `event_id` tie cannot change the day). The rows are the days with an
/// install, in order; the days between them, which `installs.csv` lists with
/// zeros, are filled in when it is written (`AnalysisResult.installsCSV()`), so
/// that memory grows with the identities, not with the span of their days.
///
/// Memory: 24 bytes per identity (its earliest second per mode), plus the
/// rows (32 bytes per day with an install), plus 2 MiB at most for counting:
/// spans of up to ``denseSpan`` days are counted in an array of a row per day;
/// longer ones (a device clock in year 1 or 9999) by sorting each mode's
/// install days in place, in the earliest seconds' own array (the sort's
/// scratch: 4 bytes per identity at most).
enum InstallsTable {
    /// Spans of up to this many days are counted in an array of one row per
    /// day (about 180 years, 2 MiB of rows), longer ones by sorting the days.
    static let denseSpan: Int64 = 1 << 16

    static func rows(from partial: PartialAggregate, days: DayResolver) -> [InstallsRow] {
        let count = partial.identities.count
        // The earliest second per identity id, per mode (device, customer user,
        // profile at mode × count + id). A day depends on whole seconds only
        // (offsets change on whole seconds), so the earliest second gives the
        // day of the earliest instant.
        var firstSecond = [Int64](repeating: .max, count: 3 * count)
        firstSecond.withUnsafeMutableBufferPointer { first in
            guard let base = first.baseAddress else { return }  // no identities
            @inline(__always) func see(_ mode: Int, _ identity: UInt32, _ seconds: Int64) {
                guard identity != 0 else { return }
                let index = mode * count + Int(identity - 1)
                if seconds < base[index] { base[index] = seconds }
            }
            @inline(__always) func prefetch(_ mode: Int, _ identity: UInt32) {
                if identity != 0 { analyze_prefetch(base + mode * count + Int(identity - 1)) }
            }
            partial.store.forEachSegment { segment in
                for index in segment.indices {
                    // Identities do not follow record order, so each slot is a
                    // cache miss: ask for a record's slots a few places ahead.
                    if index + 8 < segment.count {
                        let ahead = segment[index + 8]
                        prefetch(0, ahead.device)
                        prefetch(1, ahead.customerUser)
                        prefetch(2, ahead.profile)
                    }
                    let record = segment[index]
                    guard !record.isRemoved else { continue }
                    see(0, record.device, record.seconds)
                    see(1, record.customerUser, record.seconds)
                    see(2, record.profile, record.seconds)
                }
            }
        }
        // Counted in place, one array slot per day from the first install day
        // to the last, when that span is at most `denseSpan` days; a far-away
        // instant (a device clock in year 9999) would make it millions of
        // slots, and then the days are sorted instead. The earliest and latest
        // seconds give the first and last days where local dates never step
        // back. Where they do (an offset lowered by more than the time since
        // local midnight: America/Anchorage in 1867, a day back), an install
        // outside that span sends the count to the sorted way.
        var earliest = Int64.max, latest = Int64.min
        for seconds in firstSecond where seconds != .max {
            earliest = min(earliest, seconds)
            latest = max(latest, seconds)
        }
        guard earliest <= latest else { return [] }
        let firstDay = days.day(of: Instant(seconds: earliest, nanoseconds: 0))
        let lastDay = days.day(of: Instant(seconds: latest, nanoseconds: 0))
        /// Calls `body` with each install's mode and day.
        func forEachInstall(_ body: (_ mode: Int, _ day: Int64) -> Void) {
            for mode in 0..<3 {
                for seconds in firstSecond[(mode * count)..<((mode + 1) * count)] where seconds != .max {
                    body(mode, days.day(of: Instant(seconds: seconds, nanoseconds: 0)))
                }
            }
        }
        if firstDay <= lastDay && lastDay - firstDay < denseSpan {
            var rows = (firstDay...lastDay).map { InstallsRow(day: $0) }
            var inSpan = true
            forEachInstall { mode, day in
                guard day >= firstDay && day <= lastDay else { return inSpan = false }
                rows[Int(day - firstDay)].add(1, mode: mode)
            }
            if inSpan { return rows.filter { $0.byDeviceID + $0.byCustomerUserID + $0.byProfileID > 0 } }
        }
        return rowsBySorting(&firstSecond, count: count, days: days)
    }

    /// The rows from each mode's install days sorted: the earliest seconds
    /// (`count` per mode, `.max` where an identity has none in that mode) are
    /// turned into days and sorted in place, mode by mode, then the three
    /// sorted runs are counted in one merge.
    ///
    /// Performance: O(n log n) in the installs, where the array of days is
    /// O(n); memory: beyond `firstSecond` and the rows, only the sort's
    /// scratch (the standard library's stable sort: at most half a run, 4
    /// bytes per identity). (Until the
    /// forty-second session such spans were counted by hashing the days, or,
    /// when shorter than three slots per identity, in an array of a row per
    /// day: up to 96 bytes per identity more, 47 MiB on one export.)
    private static func rowsBySorting(_ firstSecond: inout [Int64], count: Int, days: DayResolver) -> [InstallsRow] {
        var runs: [Range<Int>] = []
        firstSecond.withUnsafeMutableBufferPointer { values in
            for mode in 0..<3 {
                let start = mode * count
                var end = start
                for index in start..<(start + count) where values[index] != .max {
                    values[end] = days.day(of: Instant(seconds: values[index], nanoseconds: 0))
                    end += 1
                }
                var run = UnsafeMutableBufferPointer(rebasing: values[start..<end])
                run.sort()
                runs.append(start..<end)
            }
        }
        var rows: [InstallsRow] = []
        var next = runs.map(\.lowerBound)
        while true {
            var day = Int64.max
            for mode in 0..<3 where next[mode] < runs[mode].upperBound {
                day = min(day, firstSecond[next[mode]])
            }
            guard day != .max else { return rows }
            var row = InstallsRow(day: day)
            for mode in 0..<3 {
                var installs = 0
                while next[mode] < runs[mode].upperBound && firstSecond[next[mode]] == day {
                    installs += 1
                    next[mode] += 1
                }
                row.add(installs, mode: mode)
            }
            rows.append(row)
        }
    }
}
