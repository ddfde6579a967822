import CSupport

/// One row of `installs.csv`: installs first seen on `day` under each mode.
struct InstallsRow: Equatable, Sendable {
    var day: Int64
    var byDeviceID = 0
    var byCustomerUserID = 0
    var byProfileID = 0
}

/// Installs per reporting day under the three installs-definition modes (SPEC §4.1).
///
/// An identity installs on the day of its earliest kept event (by instant; an
/// `event_id` tie cannot change the day). Days between the first and last
/// install day are present with zeros.
enum InstallsTable {
    static func rows(from partial: PartialAggregate, days: DayResolver) -> [InstallsRow] {
        let count = partial.identities.count
        // The earliest second per identity id, per mode (device, customer user,
        // profile at mode × count + id). A day depends on whole seconds only,
        // and days never decrease as seconds grow, so the earliest second gives
        // the day of the earliest instant.
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
        // The rows run from the first install day to the last (zero-filled),
        // so they are counted in place, one array slot per day: no hashing per
        // identity. Days never decrease as seconds grow, so the earliest and
        // latest seconds give the first and last days.
        var earliest = Int64.max, latest = Int64.min
        for seconds in firstSecond where seconds != .max {
            earliest = min(earliest, seconds)
            latest = max(latest, seconds)
        }
        guard earliest <= latest else { return [] }
        let firstDay = days.day(of: Instant(seconds: earliest, nanoseconds: 0))
        let lastDay = days.day(of: Instant(seconds: latest, nanoseconds: 0))
        var rows = (firstDay...lastDay).map { InstallsRow(day: $0) }
        for mode in 0..<3 {
            for seconds in firstSecond[(mode * count)..<((mode + 1) * count)] where seconds != .max {
                let slot = Int(days.day(of: Instant(seconds: seconds, nanoseconds: 0)) - firstDay)
                switch mode {
                case 0: rows[slot].byDeviceID += 1
                case 1: rows[slot].byCustomerUserID += 1
                default: rows[slot].byProfileID += 1
                }
            }
        }
        return rows
    }
}
