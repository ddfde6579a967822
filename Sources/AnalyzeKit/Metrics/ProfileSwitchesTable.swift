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
/// Memory: 24 bytes per identity event (its record, placed by
/// ``RadixSort/grouped(largestKey:by:from:)`` as the store is read).
enum ProfileSwitchesTable {
    static func rows(from partial: PartialAggregate, days: DayResolver) -> [ProfileSwitchRow] {
        // The identity events' records themselves (24 bytes each), each
        // device's together (a radix sort by device id, placed as they are
        // read from the store), then each device's few events by ordering key.
        var timeline: [EventRecord] = RadixSort.grouped(
            largestKey: UInt64(partial.identities.count), by: { UInt64($0.device) }
        ) { body in
            partial.store.forEachRecord { record in
                if record.type.isIdentityEvent && record.device != 0 { body(copy record) }
            }
        }
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
        var previous: EventRecord?
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
