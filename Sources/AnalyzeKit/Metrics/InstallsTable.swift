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
        // The earliest instant per identity id, per mode.
        var firstSeen = [[Instant?]](repeating: [Instant?](repeating: nil, count: count), count: 3)
        for record in partial.store.records {
            for (mode, identity) in [record.device, record.customerUser, record.profile].enumerated() where identity != 0 {
                let id = Int(identity - 1)
                if let seen = firstSeen[mode][id], seen <= record.instant { continue }
                firstSeen[mode][id] = record.instant
            }
        }
        var perDay: [Int64: InstallsRow] = [:]
        for mode in 0..<3 {
            for instant in firstSeen[mode] {
                guard let instant else { continue }
                let day = days.day(of: instant)
                var row = perDay[day] ?? InstallsRow(day: day)
                switch mode {
                case 0: row.byDeviceID += 1
                case 1: row.byCustomerUserID += 1
                default: row.byProfileID += 1
                }
                perDay[day] = row
            }
        }
        guard let first = perDay.keys.min(), let last = perDay.keys.max() else { return [] }
        return (first...last).map { perDay[$0] ?? InstallsRow(day: $0) }
    }
}
