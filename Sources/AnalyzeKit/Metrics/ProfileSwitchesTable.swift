import CSupport

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
/// the event's type. A device whose events all name one profile never
/// switches, so only the other devices' timelines are built.
///
/// Memory: 8 bytes per identity (``DeviceSlot``), then 24 bytes per identity
/// event of a device that sees more than one profile (its record).
///
/// Performance: two passes over the store, each with a prefetched slot per
/// identity event. The first counts each device's events and finds the
/// devices that see a second profile; the second puts each of those
/// devices' events straight into the device's own stretch of the timeline
/// (a counting sort by device), which leaves only each device's few events
/// to order. On identity-heavy exports about a fifth of the devices see a
/// second profile, with about a third of the identity events: on two million
/// such events the table takes 70–80 ms, about as long as the installs table
/// computed beside it, against 110–120 for a radix sort of every identity
/// event by device.
enum ProfileSwitchesTable {
    static func rows(from partial: PartialAggregate, days: DayResolver) -> [ProfileSwitchRow] {
        var timeline = timelinesThatCanSwitch(in: partial)
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

    /// What the timelines need to know of a device (an identity id plus one).
    private struct DeviceSlot {
        /// The one profile its identity events name so far (identity id plus
        /// one, 0 for none), or ``unseen`` or ``several``.
        var profile = DeviceSlot.unseen
        /// Its identity events; then, for a device that sees several
        /// profiles, where its next event goes in the timeline.
        var position: UInt32 = 0

        static let unseen = UInt32.max
        /// Identity ids are below 2³⁰, so no profile is this.
        static let several = UInt32.max - 1
    }

    /// The kept identity events of every device that sees more than one
    /// profile, each device's together (in no order inside), for
    /// ``rows(from:days:)``.
    static func timelinesThatCanSwitch(in partial: PartialAggregate) -> [EventRecord] {
        var slots = [DeviceSlot](repeating: DeviceSlot(), count: partial.identities.count + 1)
        return slots.withUnsafeMutableBufferPointer { slots in
            let base = slots.baseAddress!
            /// Calls `body` with each kept identity event that has a device,
            /// and its device's slot, asked for a few records ahead (devices
            /// do not follow record order, so each slot is a cache miss).
            func forEachIdentityEvent(_ body: (EventRecord, UnsafeMutablePointer<DeviceSlot>) -> Void) {
                partial.store.forEachSegment { segment in
                    for index in segment.indices {
                        if index + 8 < segment.count { analyze_prefetch(base + Int(segment[index + 8].device)) }
                        let record = segment[index]
                        guard record.device != 0, record.type.isIdentityEvent, !record.isRemoved else { continue }
                        body(record, base + Int(record.device))
                    }
                }
            }
            forEachIdentityEvent { record, slot in
                slot.pointee.position += 1
                if slot.pointee.profile == DeviceSlot.unseen {
                    slot.pointee.profile = record.profile
                } else if slot.pointee.profile != record.profile {
                    slot.pointee.profile = DeviceSlot.several
                }
            }
            // Each switching device's stretch starts where the previous ends.
            var total = 0
            for device in slots.indices where slots[device].profile == DeviceSlot.several {
                let events = Int(slots[device].position)
                slots[device].position = UInt32(total)
                total += events
            }
            precondition(total < Int(UInt32.max), "more than 2³² identity events")
            guard total > 0 else { return [] }
            return [EventRecord](unsafeUninitializedCapacity: total) { timeline, initialized in
                let start = timeline.baseAddress!
                forEachIdentityEvent { record, slot in
                    guard slot.pointee.profile == DeviceSlot.several else { return }
                    (start + Int(slot.pointee.position)).initialize(to: record)
                    slot.pointee.position += 1
                }
                initialized = total
            }
        }
    }
}
