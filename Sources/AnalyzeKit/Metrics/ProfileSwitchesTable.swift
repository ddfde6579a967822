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
/// Memory: 24 bytes per identity event during the sort.
enum ProfileSwitchesTable {
    static func rows(from partial: PartialAggregate, days: DayResolver) -> [ProfileSwitchRow] {
        /// What the timeline needs of an identity event (24 bytes).
        struct Step {
            var seconds: Int64
            var nanoseconds: UInt32
            var extra: Int32
            var device: UInt32
            var profile: UInt32
            var type: EventType
            var instant: Instant { Instant(seconds: seconds, nanoseconds: nanoseconds) }
        }
        var timeline: [Step] = []
        // Identity events all have an extra: an upper bound, reserved up front
        // (pages never written cost no memory; regrowth would copy).
        timeline.reserveCapacity(partial.extras.count)
        partial.store.forEachRecord { record in
            guard record.type.isIdentityEvent && record.device != 0 else { return }
            timeline.append(Step(seconds: record.seconds, nanoseconds: record.nanoseconds, extra: record.extra,
                                 device: record.device, profile: record.profile, type: record.type))
        }
        timeline.sort { x, y in
            if x.device != y.device { return x.device < y.device }
            return partial.orderedBefore((x.seconds, x.nanoseconds, x.extra), (y.seconds, y.nanoseconds, y.extra))
        }
        struct Bucket: Hashable { var day: Int64; var trigger: EventType }
        var switches: [Bucket: Int] = [:]
        var devices: [Bucket: Set<UInt32>] = [:]
        var previous: Step?
        for record in timeline {
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
