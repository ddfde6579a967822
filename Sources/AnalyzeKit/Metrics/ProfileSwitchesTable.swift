/// One row of `profile_switches.csv`.
struct ProfileSwitchRow: Equatable, Sendable {
    var day: Int64
    var trigger: EventType
    var switches: Int
    var devices: Int
}

/// Profile switches per day and trigger (SPEC §4.2).
///
/// Each device's `sdk_activate` / `identify` / `logout` events are put in
/// ordering-key order (instant, then `event_id` bytes); an event whose profile
/// differs from the device's previous such event is a switch, triggered by
/// the event's type. Sorting all identity events by (device, ordering key) once
/// gives every device's timeline.
///
/// Memory: one 4-byte index per identity event during the sort.
enum ProfileSwitchesTable {
    static func rows(from partial: PartialAggregate, days: DayResolver) -> [ProfileSwitchRow] {
        let records = partial.store.records
        var timeline = records.indices.filter { records[$0].type.isIdentityEvent && records[$0].device != 0 }
        timeline.sort { a, b in
            let x = records[a], y = records[b]
            if x.device != y.device { return x.device < y.device }
            return partial.orderedBefore(x, y)
        }
        struct Bucket: Hashable { var day: Int64; var trigger: EventType }
        var switches: [Bucket: Int] = [:]
        var devices: [Bucket: Set<UInt32>] = [:]
        var previous: EventRecord?
        for index in timeline {
            let record = records[index]
            defer { previous = record }
            guard let previous, previous.device == record.device, previous.profile != record.profile else { continue }
            let bucket = Bucket(day: days.day(of: record.instant), trigger: record.type)
            switches[bucket, default: 0] += 1
            devices[bucket, default: []].insert(record.device)
        }
        return switches.map { bucket, count in
            ProfileSwitchRow(day: bucket.day, trigger: bucket.trigger, switches: count, devices: devices[bucket]!.count)
        }.sorted { a, b in
            if a.day != b.day { return a.day < b.day }
            return a.trigger.name.utf8.lexicographicallyPrecedes(b.trigger.name.utf8)
        }
    }
}
