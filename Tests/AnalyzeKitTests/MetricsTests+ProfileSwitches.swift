import XCTest
@testable import AnalyzeKit
import EventGenerator

/// profile_switches.csv (SPEC §4.2): triggers, distinct devices, a model on thousands of devices.
extension MetricsTests {
    func testProfileSwitchesByTrigger() throws {
        let result = try analyze(lines: story.reversed())
        XCTAssertEqual(result.switchesText, """
            date,trigger,switches,devices
            2026-11-02,identify,1,1
            2026-11-03,logout,1,1
            2026-11-03,sdk_activate,1,1

            """)
    }

    func testSwitchDevicesCountsDistinctDevices() throws {
        let lines = [
            event("1", "sdk_activate", "2026-11-01T01:00:00Z", device: "d1", profile: "a"),
            event("2", "logout", "2026-11-01T02:00:00Z", device: "d1", profile: "b"),
            event("3", "logout", "2026-11-01T03:00:00Z", device: "d1", profile: "c"),
            event("4", "sdk_activate", "2026-11-01T01:00:00Z", device: "d2", profile: "x"),
            event("5", "logout", "2026-11-01T04:00:00Z", device: "d2", profile: "y"),
            // Same profile again: no switch.
            event("6", "sdk_activate", "2026-11-01T05:00:00Z", device: "d2", profile: "y"),
        ]
        XCTAssertEqual(try analyze(lines: lines).switchesText, """
            date,trigger,switches,devices
            2026-11-01,logout,3,2

            """)
    }

    /// Seeded, against a simple model: 30 000 identity events of 5 000 devices,
    /// in shuffled lines, with instant ties broken by event id. One device in
    /// three stays on one profile (the table skips those devices' timelines),
    /// the others take one of three at each event.
    func testProfileSwitchesAgainstAModelOnThousandsOfDevices() throws {
        var rng = SplitMix64(21)
        let types = ["sdk_activate", "identify", "logout"]
        struct Step { var seconds: Int; var id: String; var type: String; var profile: Int }
        var byDevice: [Int: [Step]] = [:]
        var lines: [String] = []
        for k in 0..<30_000 {
            let device = Int(rng.next() % 5_000)
            // Whole minutes over ten days: some instants tie on a device.
            let seconds = Int(rng.next() % (10 * 1_440)) * 60
            let type = types[Int(rng.next() % 3)]
            let profile = device * 4 + (device % 3 == 0 ? 0 : Int(rng.next() % 3))
            let id = "e" + String(100_000 + k)
            byDevice[device, default: []].append(Step(seconds: seconds, id: id, type: type, profile: profile))
            func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
            let timestamp = "2026-11-\(two(1 + seconds / 86_400))T\(two(seconds % 86_400 / 3_600)):\(two(seconds % 3_600 / 60)):00Z"
            lines.append(event(id, type, timestamp, device: "d\(device)", profile: "p\(profile)",
                               cuid: type == "identify" ? "u\(profile)" : nil))
        }
        // The model: each device's events by instant, then event id; a profile
        // change is a switch on the later event's day, triggered by its type.
        struct Bucket: Hashable, Comparable {
            var day: Int
            var trigger: String
            static func < (a: Bucket, b: Bucket) -> Bool { (a.day, a.trigger) < (b.day, b.trigger) }
        }
        var switches: [Bucket: Int] = [:]
        var devices: [Bucket: Set<Int>] = [:]
        for (device, steps) in byDevice {
            let ordered = steps.sorted { ($0.seconds, $0.id) < ($1.seconds, $1.id) }
            for (previous, step) in zip(ordered, ordered.dropFirst()) where previous.profile != step.profile {
                let bucket = Bucket(day: 1 + step.seconds / 86_400, trigger: step.type)
                switches[bucket, default: 0] += 1
                devices[bucket, default: []].insert(device)
            }
        }
        let expected = "date,trigger,switches,devices\n" + switches.keys.sorted().map { bucket in
            "2026-11-\(bucket.day < 10 ? "0" : "")\(bucket.day),\(bucket.trigger),\(switches[bucket]!),\(devices[bucket]!.count)\n"
        }.joined()
        XCTAssertEqual(try analyze(lines: lines.shuffled(using: &rng)).switchesText, expected)
    }
}
