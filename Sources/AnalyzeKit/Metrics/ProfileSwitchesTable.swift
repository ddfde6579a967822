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
/// the event's type. Grouping all identity events by device (a radix sort)
/// and ordering each device's few events by ordering key gives every device's
/// timeline.
///
/// Memory: 32 bytes per identity event (the radix sort works in place).
enum ProfileSwitchesTable {
    static func rows(from partial: PartialAggregate, days: DayResolver) -> [ProfileSwitchRow] {
        /// What the timeline needs of an identity event (32 bytes).
        struct Step {
            var seconds: Int64
            var nanoseconds: UInt32
            var extra: Int32
            var device: UInt32
            var profile: UInt32
            var type: EventType
            var hasBareID: Bool
            var instant: Instant { Instant(seconds: seconds, nanoseconds: nanoseconds) }
            var orderingKey: OrderingKey {
                OrderingKey(seconds: seconds, nanoseconds: nanoseconds, extra: extra, hasBareID: hasBareID)
            }
        }
        var timeline: [Step] = []
        // Identity events all have an extra: an upper bound, reserved up front
        // (pages never written cost no memory; regrowth would copy).
        timeline.reserveCapacity(partial.extras.count + partial.bareIDs.count)
        partial.store.forEachRecord { record in
            guard record.type.isIdentityEvent && record.device != 0 else { return }
            timeline.append(Step(seconds: record.seconds, nanoseconds: record.nanoseconds, extra: record.extra,
                                 device: record.device, profile: record.profile, type: record.type,
                                 hasBareID: record.hasBareID))
        }
        // Each device's events together (a radix sort by device id), then
        // each device's few events by ordering key.
        RadixSort.group(&timeline) { UInt64($0.device) }
        RadixSort.sortRuns(&timeline, sameGroup: { $0.device == $1.device }) { x, y in
            partial.orderedBefore(x.orderingKey, y.orderingKey)
        }
        struct Bucket: Hashable { var day: Int64; var trigger: EventType }
        /// Switches in a bucket, distinct devices, and the last device counted
        /// (devices come one after another, so a device is new to a bucket
        /// when it is not the last one counted there).
        struct Tally { var switches = 0; var devices = 0; var lastDevice: UInt32 = 0 }
        var tallies: [Bucket: Tally] = [:]
        func count(_ device: UInt32, in tally: inout Tally) {
            tally.switches += 1
            if tally.lastDevice != device {
                tally.devices += 1
                tally.lastDevice = device
            }
        }
        var previous: Step?
        for record in timeline {
            defer { previous = record }
            guard let previous, previous.device == record.device, previous.profile != record.profile else { continue }
            let bucket = Bucket(day: days.day(of: record.instant), trigger: record.type)
            count(record.device, in: &tallies[bucket, default: Tally()])
        }
        return tallies.map { bucket, tally in
            ProfileSwitchRow(day: bucket.day, trigger: bucket.trigger, switches: tally.switches, devices: tally.devices)
        }.sorted { a, b in
            if a.day != b.day { return a.day < b.day }
            return a.trigger.name.utf8.lexicographicallyPrecedes(b.trigger.name.utf8)
        }
    }
}
