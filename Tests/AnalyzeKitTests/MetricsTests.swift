import XCTest
@testable import AnalyzeKit
import EventGenerator

/// Metric definitions (SPEC §4) on small inputs with hand-computed results.
final class MetricsTests: XCTestCase {
    /// Two devices of user u1 and one of u2:
    /// - d1: activate p1 (anonymous), identify u1 (new id: same profile).
    /// - d2: activate p3, identify u1 → p1 (switch), logout → p4 (switch),
    ///   activate with u1 → p1 (switch).
    /// - d3: activate p5 as u2.
    private let story = [
        event("e1", "sdk_activate", "2026-11-01T10:00:00Z", device: "d1", profile: "p1"),
        event("e2", "identify", "2026-11-01T11:00:00Z", device: "d1", profile: "p1", cuid: "u1"),
        event("e3", "sdk_activate", "2026-11-02T09:00:00Z", device: "d2", profile: "p3"),
        event("e4", "identify", "2026-11-02T09:05:00Z", device: "d2", profile: "p1", cuid: "u1"),
        event("e5", "logout", "2026-11-03T08:00:00Z", device: "d2", profile: "p4"),
        event("e6", "sdk_activate", "2026-11-03T08:30:00Z", device: "d2", profile: "p1", cuid: "u1"),
        event("e7", "sdk_activate", "2026-11-05T00:00:00Z", device: "d3", profile: "p5", cuid: "u2"),
    ]

    func testInstallsUnderEachModeWithZeroFilledDays() throws {
        let result = try analyze(lines: story.shuffled())
        XCTAssertEqual(result.installsText, """
            date,by_device_id,by_customer_user_id,by_profile_id
            2026-11-01,1,1,1
            2026-11-02,1,0,1
            2026-11-03,0,0,1
            2026-11-04,0,0,0
            2026-11-05,1,1,1

            """)
    }

    func testInstallsAcrossTheWholeInstantRangeKeepOneRowPerInstallDay() throws {
        // A device clock at the ends of RFC 3339's years would list 3 652 059
        // days; until written they are the two days with an install.
        let result = try analyze(lines: [
            event("e1", "sdk_activate", "9999-12-31T23:59:59Z", device: "d2", profile: "p2"),
            event("e2", "identify", "0001-01-01T00:00:00Z", device: "d1", profile: "p1", cuid: "u1"),
        ])
        XCTAssertEqual(result.installs, [
            InstallsRow(day: CivilDate(year: 1, month: 1, day: 1).dayNumber, byDeviceID: 1, byCustomerUserID: 1, byProfileID: 1),
            InstallsRow(day: CivilDate(year: 9999, month: 12, day: 31).dayNumber, byDeviceID: 1, byCustomerUserID: 0, byProfileID: 1),
        ])
    }

    /// The latest instant's day east of UTC is in year 10 000: written with
    /// all five digits (regression, mutation testing: a digit loop that
    /// stopped below the year printed `0000-01-01`).
    func testALocalDateInYearTenThousandKeepsEveryDigit() throws {
        let result = try analyze(lines: [
            event("e1", "sdk_activate", "9999-12-31T23:00:00Z", device: "d1", profile: "p1"),
        ], timeZone: "+09:00")
        XCTAssertEqual(result.installsText, "date,by_device_id,by_customer_user_id,by_profile_id\n10000-01-01,1,0,1\n")
        XCTAssertEqual(CivilDate(year: 10_000, month: 1, day: 1).description, "10000-01-01")
    }

    func testInstallsOverFourCenturiesAreZeroFilledDayByDay() throws {
        // 1601-01-01 to 2000-12-31: one 400-year cycle of the calendar (146 097
        // days, centuries that are and are not leap years), far past the span
        // counted in an array.
        let result = try analyze(lines: [
            event("e1", "sdk_activate", "2000-12-31T23:59:59Z", device: "d2", profile: "p2"),
            event("e2", "identify", "1601-01-01T00:00:00Z", device: "d1", profile: "p1", cuid: "u1"),
        ])
        // Every row is `YYYY-MM-DD,n,n,n\n`, 17 bytes: row k starts at a known offset.
        let csv = result.installsCSV()
        let header = "date,by_device_id,by_customer_user_id,by_profile_id\n".utf8.count
        let days = 146_097
        XCTAssertEqual(csv.count, header + 17 * days)
        func row(_ k: Int) -> String { String(decoding: csv[(header + 17 * k)..<(header + 17 * k + 17)], as: UTF8.self) }
        XCTAssertEqual(row(0), "1601-01-01,1,1,1\n")
        XCTAssertEqual(row(1), "1601-01-02,0,0,0\n")
        XCTAssertEqual(row(365), "1602-01-01,0,0,0\n")
        XCTAssertEqual(row(99 * 365 + 24 + 31 + 28), "1700-03-01,0,0,0\n")  // 1700 has no Feb 29
        XCTAssertEqual(row(399 * 365 + 96 + 31 + 28), "2000-02-29,0,0,0\n")  // 2000 has one
        XCTAssertEqual(row(days - 2), "2000-12-30,0,0,0\n")
        XCTAssertEqual(row(days - 1), "2000-12-31,1,0,1\n")
    }

    /// Seeded random identity events over short and very long spans (both
    /// counting ways) against a reference model: each identity's earliest
    /// day per mode, counted per day. Ids repeat across events, so earlier
    /// and later events of one identity compete.
    func testInstallsMatchAReferenceModelOnRandomSpans() throws {
        var random = SplitMix64(0x1257_a115)
        let origin = CivilDate(year: 2026, month: 11, day: 1).dayNumber
        let earliestDay = CivilDate(year: 1, month: 1, day: 1).dayNumber
        let latestDay = CivilDate(year: 9999, month: 12, day: 31).dayNumber
        for (trial, span) in [Int64(40), InstallsTable.denseSpan - 1, InstallsTable.denseSpan + 1, latestDay - earliestDay].enumerated() {
            var lines: [String] = []
            var first: [Int: [String: Int64]] = [0: [:], 1: [:], 2: [:]]
            for index in 0..<400 {
                // The first two events at the span's ends: the span decides the way.
                let start = span > 1_000_000 ? earliestDay : origin
                let day = start + (index < 2 ? Int64(index) * span : Int64.random(in: 0...span, using: &random))
                let second = Int64.random(in: 0..<86_400, using: &random)
                let timestamp = "\(CivilDate(dayNumber: day))T\(pad(second / 3600)):\(pad(second / 60 % 60)):\(pad(second % 60))Z"
                let device = "d\(Int.random(in: 0..<60, using: &random))"
                let profile = "p\(Int.random(in: 0..<90, using: &random))"
                let cuid = Bool.random(using: &random) ? "u\(Int.random(in: 0..<40, using: &random))" : nil
                lines.append(event("e\(index)", cuid == nil ? "sdk_activate" : "identify", timestamp,
                                   device: device, profile: profile, cuid: cuid))
                let instant = day * 86_400 + second
                for (mode, id) in [(0, device), (1, cuid), (2, profile)] {
                    guard let id else { continue }
                    first[mode]![id] = min(first[mode]![id] ?? .max, instant)
                }
            }
            var expected: [Int64: InstallsRow] = [:]
            for mode in 0..<3 {
                for instant in first[mode]!.values {
                    let day = Int64((Double(instant) / 86_400).rounded(.down))
                    var row = expected[day] ?? InstallsRow(day: day)
                    switch mode {
                    case 0: row.byDeviceID += 1
                    case 1: row.byCustomerUserID += 1
                    default: row.byProfileID += 1
                    }
                    expected[day] = row
                }
            }
            let result = try analyze(lines: lines.shuffled(using: &random))
            XCTAssertEqual(result.installs, expected.values.sorted { $0.day < $1.day }, "trial \(trial), span \(span)")
        }
    }

    private func pad(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }

    func testInstallsCountedByArrayAndBySortingAgree() throws {
        // Spans on either side of the array's limit: the same installs, the
        // same zero-filled rows between them.
        for extraDays in [InstallsTable.denseSpan - 2, InstallsTable.denseSpan + 2] {
            let first = CivilDate(year: 2026, month: 11, day: 1).dayNumber
            let last = CivilDate(dayNumber: first + extraDays)
            let lastText = "\(last)T12:00:00Z"
            let result = try analyze(lines: [
                event("e1", "sdk_activate", "2026-11-01T10:00:00Z", device: "d1", profile: "p1"),
                event("e2", "sdk_activate", "2026-11-03T10:00:00Z", device: "d2", profile: "p2", cuid: "u2"),
                event("e3", "identify", "2026-11-03T11:00:00Z", device: "d1", profile: "p1", cuid: "u1"),
                event("e4", "sdk_activate", lastText, device: "d3", profile: "p3"),
                event("e5", "sdk_activate", lastText, device: "d4", profile: "p4"),
            ].shuffled())
            let context = "span \(extraDays + 1) days"
            XCTAssertEqual(result.installs, [
                InstallsRow(day: first, byDeviceID: 1, byCustomerUserID: 0, byProfileID: 1),
                InstallsRow(day: first + 2, byDeviceID: 1, byCustomerUserID: 2, byProfileID: 1),
                InstallsRow(day: first + extraDays, byDeviceID: 2, byCustomerUserID: 0, byProfileID: 2),
            ], context)
            let lines = result.installsText.split(separator: "\n")
            XCTAssertEqual(lines.count, 1 + Int(extraDays) + 1, context)
            XCTAssertEqual(Array(lines[1...4]), [
                "2026-11-01,1,0,1", "2026-11-02,0,0,0", "2026-11-03,1,2,1", "2026-11-04,0,0,0",
            ], context)
            XCTAssertEqual(lines.last.map(String.init), "\(last),2,0,2", context)
            XCTAssertEqual(lines.filter { !$0.hasSuffix(",0,0,0") }.count, 4, context)
        }
    }

    func testInstallsAndSwitchesFollowTheReportingTimeZone() throws {
        let result = try analyze(lines: story, timeZone: "-10:00")
        XCTAssertEqual(result.installsText, """
            date,by_device_id,by_customer_user_id,by_profile_id
            2026-11-01,2,1,2
            2026-11-02,0,0,1
            2026-11-03,0,0,0
            2026-11-04,1,1,1

            """)
        XCTAssertEqual(result.switchesText, """
            date,trigger,switches,devices
            2026-11-01,identify,1,1
            2026-11-02,logout,1,1
            2026-11-02,sdk_activate,1,1

            """)
    }

    /// Where a zone's local date steps back a day (America/Anchorage on
    /// 1867-10-19, from +14:00:24 to -09:59:36 at 00:31:13 UTC), a later
    /// instant can have an earlier day. Regression: the rows spanned the
    /// days of the earliest and latest install seconds, a range upside down
    /// here, and the run trapped. Hand-computed from the IANA offsets above
    /// (Python's `zoneinfo` gives the same days); the reference implementation
    /// gives these rows too.
    func testInstallsWhereTheLocalDateStepsBackADay() throws {
        let first = event("a", "sdk_activate", "1867-10-19T00:31:12Z", device: "d1", profile: "p1")  // 10-19 14:31:36
        let second = event("b", "sdk_activate", "1867-10-19T00:31:13Z", device: "d2", profile: "p2")  // 10-18 14:31:37
        let later = event("c", "sdk_activate", "1867-10-25T00:00:00Z", device: "d3", profile: "p3")  // 10-24 14:00:24
        let expected = """
            date,by_device_id,by_customer_user_id,by_profile_id
            1867-10-18,1,0,1
            1867-10-19,1,0,1

            """
        XCTAssertEqual(try analyze(lines: [first, second], timeZone: "America/Anchorage").installsText, expected)
        // A day before the earliest second's, inside the span of the others.
        XCTAssertEqual(try analyze(lines: [first, second, later], timeZone: "America/Anchorage").installsText, """
            date,by_device_id,by_customer_user_id,by_profile_id
            1867-10-18,1,0,1
            1867-10-19,1,0,1
            1867-10-20,0,0,0
            1867-10-21,0,0,0
            1867-10-22,0,0,0
            1867-10-23,0,0,0
            1867-10-24,1,0,1

            """)
    }

    /// Where a zone skips a whole local date (Pacific/Apia went from -10:00 to
    /// +14:00 at 2011-12-30 10:00 UTC, so 2011-12-30 never happened there),
    /// that date still gets its zero row: rows are calendar dates between the
    /// first and last install day, whether or not the zone lived through them
    /// (docs/data-model.md). Hand-computed: 12:00 UTC on the 29th is 02:00 on
    /// the 29th local, 12:00 UTC on the 31st is 02:00 on 2012-01-01 local.
    func testInstallsWhereTheZoneSkipsALocalDate() throws {
        let before = event("a", "sdk_activate", "2011-12-29T12:00:00Z", device: "d1", profile: "p1")
        let after = event("b", "sdk_activate", "2011-12-31T12:00:00Z", device: "d2", profile: "p2")
        XCTAssertEqual(try analyze(lines: [before, after], timeZone: "Pacific/Apia").installsText, """
            date,by_device_id,by_customer_user_id,by_profile_id
            2011-12-29,1,0,1
            2011-12-30,0,0,0
            2011-12-31,0,0,0
            2012-01-01,1,0,1

            """)
    }

    func testProfileSwitchesByTrigger() throws {
        let result = try analyze(lines: story.reversed())
        XCTAssertEqual(result.switchesText, """
            date,trigger,switches,devices
            2026-11-02,identify,1,1
            2026-11-03,logout,1,1
            2026-11-03,sdk_activate,1,1

            """)
    }

    /// An identity written with escapes is the identity it decodes to
    /// (regression guard for identities keyed by a hash of their bytes: the
    /// decoded bytes are hashed, never the escaped text).
    func testEscapedIdentitiesAreTheIdentitiesTheyDecodeTo() throws {
        let escaped = story.map { line in
            line.replacingOccurrences(of: "\"device_id\":\"d2\"", with: "\"device_id\":\"d\\u0032\"")
                .replacingOccurrences(of: "\"profile_id\":\"p1\",\"customer_user_id\":\"u1\"}",
                                      with: "\"profile_id\":\"\\u00701\",\"customer_user_id\":\"\\u00751\"}")
        }
        XCTAssertNotEqual(escaped, story)
        let plain = try analyze(lines: story)
        let result = try analyze(lines: escaped)
        XCTAssertEqual(result.installsText, plain.installsText)
        XCTAssertEqual(result.switchesText, plain.switchesText)
    }

    func testTimestampTiesAreBrokenByEventID() throws {
        // Same instant: "a" (identify → p8) sorts before "b" (activate → p7),
        // so the switch is the activation, whatever the line order.
        let lines = [
            event("z", "sdk_activate", "2026-11-01T00:00:00Z", device: "d9", profile: "p8"),
            event("b", "sdk_activate", "2026-11-01T12:00:00.5Z", device: "d9", profile: "p7"),
            event("a", "identify", "2026-11-01T12:00:00.500Z", device: "d9", profile: "p8", cuid: "u9"),
        ]
        try assertSwitchesInEitherOrder(lines, ["2026-11-01,sdk_activate,1,1"])
    }

    /// Quiz answers of one respondent at one instant: the final one has the
    /// greatest id by bytes, however each id is kept (a short id, an id
    /// ending in NUL kept as written, an upper-case UUID, a long plain id).
    func testQuizTiesAreBrokenByEventIDHoweverTheIDIsKept() throws {
        let t = "2026-11-01T09:00:00.25Z"
        func pick(_ id: String, _ profile: String, _ option: String) -> String {
            event(id, "onboarding_state_updated", t, profile: profile, action: answer("o", "q", "select", [(option, option, option)]))
        }
        let lines = [
            pick("q2", "p1", "b"),
            pick("q9", "p1", "g"),  // the greatest of p1's ids
            pick("q10", "p1", "c"),
            pick("q1\\u0000", "p1", "d"),
            pick("0A1B2C3D-0000-4000-8000-00000000000A", "p1", "e"),
            pick("q3-0123456789abcdef", "p1", "f"),
            pick("r10", "p2", "x"),
            pick("r2", "p2", "y"),  // the greatest of p2's ids
            pick("r1", "p2", "z"),
            // "s1" < "s1\0": a short id is only as long as its bytes, not its padding.
            pick("s1\\u0000", "p3", "n"),
            pick("s1", "p3", "m"),
        ]
        for (threads, order) in [(1, lines), (2, lines.reversed()), (3, lines.shuffled())] {
            let text = try analyze(lines: Array(order), threads: threads).quizText
            // Options with respondents (column 7): the final answers.
            let rows = text.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
            XCTAssertEqual(rows.filter { $0[6] != "0" }.map { $0[3] }.sorted(), ["g", "n", "y"], text)
            XCTAssertEqual(rows.count, 11, text)  // every option selected once
        }
    }

    /// A short id of 16 bytes and the UUID whose 16 packed bytes are those
    /// same bytes ("0123456789abcdef" and 3031…6566) are two ids: each kind
    /// of packed id is keyed with seeds of its own (SPEC §2: ids compare
    /// byte-wise on their text; found by mutation testing).
    func testAShortIDAndTheUUIDThatPacksToItsBytesAreTwoEvents() throws {
        let lines = [
            event("0123456789abcdef", "sdk_activate", "2026-11-01T10:00:00Z", device: "d1", profile: "p1"),
            event("30313233-3435-3637-3839-616263646566", "sdk_activate", "2026-11-02T10:00:00Z", device: "d2", profile: "p2"),
            event("0123456789ABCDEF", "logout", "2026-11-03T10:00:00Z", device: "d3", profile: "p3"),
            event("30313233-3435-3637-3839-414243444546", "logout", "2026-11-04T10:00:00Z", device: "d4", profile: "p4"),
        ]
        for threads in [1, 2] {
            let result = try analyze(lines: lines, threads: threads)
            XCTAssertEqual(result.quality("events"), "4")
            XCTAssertEqual(result.quality("duplicates"), "0")
        }
    }

    /// An identity decoded from escapes is not the "previous" identity the
    /// next line's raw bytes are compared with: a raw `d1` after an escaped
    /// `d\u0032` is `d1` again, not `d2` (found by mutation testing).
    func testARawIdentityAfterAnEscapedOneIsLookedUpAgain() throws {
        let lines = [
            event("a", "sdk_activate", "2026-11-01T10:00:00Z", device: "d1", profile: "p1"),
            event("b", "sdk_activate", "2026-11-02T10:00:00Z", device: "d\\u0032", profile: "p2"),
            event("c", "sdk_activate", "2026-11-03T10:00:00Z", device: "d1", profile: "p1"),
        ]
        let result = try analyze(lines: lines, threads: 1)
        XCTAssertEqual(result.switchesText, "date,trigger,switches,devices\n")
        XCTAssertEqual(result.installsText,
                       "date,by_device_id,by_customer_user_id,by_profile_id\n2026-11-01,1,0,1\n2026-11-02,1,0,1\n")
    }

    /// A tie between a lower-case and an upper-case UUID is broken by their
    /// text ("…0B" < "…0a": `B` is 0x42), not by the 16 bytes they pack to
    /// (0x0a < 0x0b; found by mutation testing).
    func testTiesBetweenUUIDsOfEitherCaseFollowTheirText() throws {
        let t = "2026-11-02T00:00:00Z"
        let lines = [
            event("e0", "sdk_activate", "2026-11-01T00:00:00Z", device: "d1", profile: "p1"),
            event("00000000-0000-0000-0000-00000000000a", "identify", t, device: "d1", profile: "p2", cuid: "u"),
            event("00000000-0000-0000-0000-00000000000B", "logout", t, device: "d1", profile: "p1"),
        ]
        try assertSwitchesInEitherOrder(lines, ["2026-11-02,identify,1,1"])
    }

    /// One respondent's answers to two questions, interleaved in time, stay
    /// each question's own: answers are ordered within (question, profile),
    /// never across questions (found by mutation testing).
    func testOneRespondentsInterleavedAnswersToTwoQuestionsStayApart() throws {
        func pick(_ id: String, _ second: Int, _ element: String, _ option: String) -> String {
            event(id, "onboarding_state_updated", "2026-11-01T10:00:0\(second)Z", profile: "p1",
                  action: answer("o", element, "select", [(option, option.uppercased(), option.uppercased())]))
        }
        let lines = [pick("a1", 0, "q0", "a"), pick("a2", 1, "q1", "x"), pick("a3", 2, "q0", "b")]
        XCTAssertEqual(try analyze(lines: lines, threads: 1).quizText,
                       "onboarding_id,element_id,question_type,option_id,option_value,option_label,respondents,share,selections\n"
                           + "o,q0,select,b,B,B,1,1.0000,1\no,q0,select,a,A,A,0,0.0000,1\no,q1,select,x,X,X,1,1.0000,1\n")
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

    func testQuizFinalAnswersSelectionsAndLatestLabels() throws {
        let lines = [
            event("q1", "onboarding_state_updated", "2026-11-01T00:00:01Z", profile: "p1",
                  action: answer("o1", "q1", "select", [("a", "a", "Alpha")])),
            event("q2", "onboarding_state_updated", "2026-11-01T00:00:02Z", profile: "p2",
                  action: answer("o1", "q1", "select", [("a", "a2", "Alpha v2")])),
            event("q3", "onboarding_state_updated", "2026-11-01T00:00:03Z", profile: "p1",
                  action: answer("o1", "q1", "select", [("b", "b", "Beta")])),
            event("q4", "onboarding_state_updated", "2026-11-01T00:00:04Z", profile: "p3",
                  action: answer("o1", "q1", "multiSelect", [("a", "a3", "Alpha, \\\"3\\\""), ("c", "c", "Gamma"), ("a", "dup", "ignored")])),
            event("q5", "onboarding_state_updated", "2026-11-01T00:00:05Z", profile: "p4",
                  action: "{\"elementId\":\"q1\",\"meta\":{\"onboardingId\":\"o1\"},\"params\":{\"type\":\"multiSelect\",\"value\":[]}}"),
            // Another type for the same element, later: ignored by the quiz metric.
            event("q6", "onboarding_state_updated", "2026-11-01T00:00:06Z", profile: "p1",
                  action: "{\"elementId\":\"q1\",\"meta\":{\"onboardingId\":\"o1\"},\"params\":{\"type\":\"input\",\"value\":{\"type\":\"text\",\"value\":\"hi\"}}}"),
        ]
        for threads in [1, 3] {
            XCTAssertEqual(try analyze(lines: lines.shuffled(), threads: threads).quizText, #"""
                onboarding_id,element_id,question_type,option_id,option_value,option_label,respondents,share,selections
                o1,q1,multiSelect,a,a3,"Alpha, ""3""",2,0.5000,3
                o1,q1,multiSelect,b,b,Beta,1,0.2500,1
                o1,q1,multiSelect,c,c,Gamma,1,0.2500,1

                """#)
        }
    }

    /// An id repeated inside one long multiSelect counts once, the first
    /// occurrence's value and label kept: the same rule as in a short one,
    /// where repeats are found by scanning (answers of more than 16 options
    /// find them in a set since a review found the scan quadratic).
    func testARepeatedIDInALongMultiSelectCountsOnceFirstWins() throws {
        // 40 options: ids o0…o29, then o0…o9 again with other labels.
        let options = (0..<40).map { k in ("o\(k % 30)", "v\(k)", k < 30 ? "first \(k)" : "again \(k)") }
        // A second respondent answers o5 alone, later.
        let lines = [
            event("m1", "onboarding_state_updated", "2026-11-01T00:00:01Z", profile: "p1",
                  action: answer("o1", "q1", "multiSelect", options)),
            event("m2", "onboarding_state_updated", "2026-11-01T00:00:02Z", profile: "p2",
                  action: answer("o1", "q1", "multiSelect", [("o5", "v5", "first 5")])),
        ]
        for threads in [1, 2] {
            let rows = try analyze(lines: lines, threads: threads).quizText.split(separator: "\n").map(String.init)
            XCTAssertEqual(rows.count, 1 + 30, "threads \(threads)")
            // Each id once per respondent: 1 respondent and 1 selection, o5 2 and 2.
            for k in 0..<30 {
                let expected = k == 5 ? "o1,q1,multiSelect,o5,v5,first 5,2,1.0000,2"
                    : "o1,q1,multiSelect,o\(k),v\(k),first \(k),1,0.5000,1"
                XCTAssertTrue(rows.contains(expected), "threads \(threads): no row \(expected)")
            }
            XCTAssertFalse(rows.contains { $0.contains("again") }, "threads \(threads): a repeat's label kept")
        }
    }

    /// Each long multiSelect (more than 16 options, whose repeats are found
    /// in a set) looks for repeats among its own options only: two
    /// respondents choosing the same 20 options each count for all 20, the
    /// later answer's labels kept. Regression (mutation testing): a set not
    /// emptied between answers dropped every option of the second answer.
    func testEachLongMultiSelectFindsRepeatsAmongItsOwnOptionsOnly() throws {
        func options(_ label: String) -> [(String, String, String)] { (0..<20).map { ("o\($0)", "v\($0)", "\(label) \($0)") } }
        let lines = [
            event("m1", "onboarding_state_updated", "2026-11-01T00:00:01Z", profile: "p1",
                  action: answer("o1", "q1", "multiSelect", options("first"))),
            event("m2", "onboarding_state_updated", "2026-11-01T00:00:02Z", profile: "p2",
                  action: answer("o1", "q1", "multiSelect", options("second"))),
        ]
        for threads in [1, 2] {
            let rows = try analyze(lines: lines, threads: threads).quizText.split(separator: "\n").map(String.init)
            XCTAssertEqual(rows, [rows[0]] + (0..<20).map { "o\($0)" }.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
                .map { id in "o1,q1,multiSelect,\(id),v\(id.dropFirst()),second \(id.dropFirst()),2,1.0000,2" }, "threads \(threads)")
        }
    }

    func testQuizSortsBytewiseAndKeepsNFCAndNFDApart() throws {
        let nfc = "\u{E9}", nfd = "e\u{301}"
        let lines = [
            event("1", "onboarding_state_updated", "2026-11-01T00:00:01Z", profile: "p1",
                  action: answer("o", "z", "select", [(nfc, "v", "NFC")])),
            event("2", "onboarding_state_updated", "2026-11-01T00:00:02Z", profile: "p2",
                  action: answer("o", "z", "select", [(nfd, "v", "NFD")])),
            event("3", "onboarding_state_updated", "2026-11-01T00:00:03Z", profile: "p3",
                  action: answer("o", "Z", "select", [("x", "x", "😀")])),
        ]
        XCTAssertEqual(try analyze(lines: lines).quizText, """
            onboarding_id,element_id,question_type,option_id,option_value,option_label,respondents,share,selections
            o,Z,select,x,x,😀,1,1.0000,1
            o,z,select,\(nfd),v,NFD,1,0.5000,1
            o,z,select,\(nfc),v,NFC,1,0.5000,1

            """)
    }

    func testQuizLabelsAreQuotedForCSV() throws {
        let lines = [
            event("1", "onboarding_state_updated", "2026-11-01T00:00:01Z", profile: "p1",
                  action: answer("o,1", "q\\\"x", "select", [("id\\nnl", "v\\r", "two\\nlines, \\\"quoted\\\" 🎉")])),
        ]
        XCTAssertEqual(try analyze(lines: lines).quizText,
                       "onboarding_id,element_id,question_type,option_id,option_value,option_label,respondents,share,selections\n"
                       + "\"o,1\",\"q\"\"x\",select,\"id\nnl\",\"v\r\",\"two\nlines, \"\"quoted\"\" 🎉\",1,1.0000,1\n")
    }

    func testShareRoundsHalfAwayFromZeroWithFourDecimals() {
        func share(_ n: Int, _ d: Int) -> String {
            QuizAnswerRow(onboardingID: [], elementID: [], questionType: "", optionID: [], optionValue: [],
                          optionLabel: [], respondents: n, questionRespondents: d, selections: 0).share
        }
        XCTAssertEqual(share(1, 32), "0.0313")
        XCTAssertEqual(share(31, 32), "0.9688")
        XCTAssertEqual(share(1, 3), "0.3333")
        XCTAssertEqual(share(2, 3), "0.6667")
        XCTAssertEqual(share(0, 7), "0.0000")
        XCTAssertEqual(share(7, 7), "1.0000")
        XCTAssertEqual(share(1, 20_000), "0.0001")   // 0.00005 rounds up
        XCTAssertEqual(share(1, 20_001), "0.0000")
    }

    func testDuplicatesAndConflicts() throws {
        let kept = event("x", "sdk_activate", "2026-11-01T00:00:00Z")
        let lines = [
            kept,
            // Same event: other spelling of the same instant, other key order, ignored key.
            "{\"device_id\":\"d1\",\"profile_id\":\"p1\",\"event_type\":\"sdk_activate\",\"event_id\":\"x\",\"timestamp\":1793491200000,\"extra\":1}",
            // Anonymous forms are equal.
            "{\"event_id\":\"x\",\"event_type\":\"sdk_activate\",\"timestamp\":\"2026-11-01T09:00:00+09:00\",\"device_id\":\"d1\",\"profile_id\":\"p1\",\"customer_user_id\":null}",
            event("x", "sdk_activate", "2026-11-01T00:00:00Z", profile: "p2"),
            event("x", "identify", "2026-11-01T00:00:00Z", cuid: "u"),
            event("y", "paywall_shown", "2026-11-02T00:00:00.123456Z"),
            "{\"event_id\":\"x\"", // rejected lines never claim an id
        ]
        let result = try analyze(lines: lines)
        XCTAssertEqual(result.quality("lines"), "7")
        XCTAssertEqual(result.quality("events"), "2")
        XCTAssertEqual(result.quality("duplicates"), "4")
        XCTAssertEqual(result.quality("conflicting_duplicates"), "2")
        XCTAssertEqual(result.quality("rejected"), "1")
        XCTAssertEqual(result.quality("unknown_event_type"), "1")
        XCTAssertEqual(result.quality("events_sdk_activate"), "1")
        XCTAssertEqual(result.quality("first_event"), "2026-11-01T00:00:00.000Z")
        XCTAssertEqual(result.quality("last_event"), "2026-11-02T00:00:00.123Z")
        // The kept copy is the first in input order, so p2 never installs.
        XCTAssertEqual(result.installsText, "date,by_device_id,by_customer_user_id,by_profile_id\n2026-11-01,1,0,1\n")
    }

    /// SPEC §2 and §4.4: `first_event` and `last_event` are over the kept
    /// events; dropped copies at other instants (conflicting duplicates) do
    /// not widen them.
    func testFirstAndLastEventCountKeptEventsOnly() throws {
        let lines = [
            event("x", "sdk_activate", "2026-11-01T00:00:00Z"),
            event("x", "sdk_activate", "2020-01-01T00:00:00Z"),
            event("y", "logout", "2026-11-03T12:00:00Z"),
            event("y", "logout", "2030-01-01T00:00:00Z"),
        ]
        let result = try analyze(lines: lines)
        XCTAssertEqual(result.quality("events"), "2")
        XCTAssertEqual(result.quality("conflicting_duplicates"), "2")
        XCTAssertEqual(result.quality("first_event"), "2026-11-01T00:00:00.000Z")
        XCTAssertEqual(result.quality("last_event"), "2026-11-03T12:00:00.000Z")
    }

    /// SPEC §4.4: each `events_<type>` row counts its own type (5, 7, 9, 11
    /// and 13 kept events of the five known types, 15 of unknown ones), and
    /// `first_event` / `last_event` are the earliest and latest instants to
    /// the millisecond, here 60 events within one second, the latest listed
    /// last. Regression (mutation testing): the analytics count left out of
    /// the known types, and the latest instant taken by its seconds alone
    /// (the first of them met), passed every test.
    func testQualityCountsEveryKnownTypeAndTheInstantsBelowASecond() throws {
        let analytics = "{\"name\":\"screen_presented\",\"meta\":{\"onboardingId\":\"o1\"}}"
        let counts = [("sdk_activate", 5), ("identify", 7), ("logout", 9), ("onboarding_state_updated", 11),
                      ("onboarding_analytics", 13), ("paywall_shown", 15)]
        var lines: [String] = []
        for (type, count) in counts {
            for _ in 0..<count {
                let k = lines.count
                let t = "2026-11-01T00:00:00.\(100 + 10 * k)Z"  // .100 … .690
                switch type {
                case "identify": lines.append(event("t\(k)", type, t, device: "d\(k)", profile: "p\(k)", cuid: "u\(k)"))
                case "onboarding_state_updated":
                    lines.append(event("t\(k)", type, t, profile: "p\(k)", action: answer("o1", "q1", "select", [("a", "a", "A")])))
                case "onboarding_analytics": lines.append(event("t\(k)", type, t, profile: "p\(k)", action: analytics))
                default: lines.append(event("t\(k)", type, t, device: "d\(k)", profile: "p\(k)"))
                }
            }
        }
        XCTAssertEqual(lines.count, 60)
        let result = try analyze(lines: lines)
        XCTAssertEqual(result.quality("rejected"), "0")
        XCTAssertEqual(result.quality("events"), "60")
        XCTAssertEqual(result.quality("unknown_event_type"), "15")
        for (type, count) in counts.dropLast() { XCTAssertEqual(result.quality("events_\(type)"), "\(count)", type) }
        XCTAssertEqual(result.quality("first_event"), "2026-11-01T00:00:00.100Z")
        XCTAssertEqual(result.quality("last_event"), "2026-11-01T00:00:00.690Z")
    }

    /// SPEC §2 Duplicates: a dropped copy that differs from the kept one in
    /// one envelope field the metrics read (event type, instant, device,
    /// profile, customer user) is a conflict, each field alone, whichever way
    /// the `event_id` is stored (a short id, a UUID, a longer id); the same
    /// instant spelled otherwise and the anonymous forms are not.
    /// Regression (mutation testing, fifty-sixth session): the record
    /// comparison could drop the type or the nanoseconds with no test failing.
    func testDuplicatesThatDifferInOneEnvelopeField() throws {
        func line(_ id: String, type: String = "sdk_activate", timestamp: String = "\"2026-11-01T00:00:00.1Z\"",
                  device: String? = "\"d1\"", profile: String? = "\"p1\"", cuid: String? = nil) -> String {
            var fields = ["\"event_id\":\"\(id)\"", "\"event_type\":\"\(type)\"", "\"timestamp\":\(timestamp)"]
            if let device { fields.append("\"device_id\":\(device)") }
            if let profile { fields.append("\"profile_id\":\(profile)") }
            if let cuid { fields.append("\"customer_user_id\":\(cuid)") }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let cases: [(String, (String) -> [String], Bool)] = [
            ("a tenth of a second", { [line($0), line($0, timestamp: "\"2026-11-01T00:00:00.2Z\"")] }, true),
            ("one nanosecond", { [line($0, timestamp: "\"2026-11-01T00:00:00.000000001Z\""),
                                  line($0, timestamp: "\"2026-11-01T00:00:00.000000002Z\"")] }, true),
            ("one second", { [line($0), line($0, timestamp: "\"2026-11-01T00:00:01.1Z\"")] }, true),
            ("the same instant spelled otherwise", { [line($0), line($0, timestamp: "\"2026-11-01T09:00:00.100+09:00\""),
                                                      line($0, timestamp: "1793491200100")] }, false),
            ("identity types", { [line($0), line($0, type: "logout")] }, true),
            ("an identity type and an unknown one", { [line($0, type: "logout"), line($0, type: "paywall_shown")] }, true),
            ("two unknown types", { [line($0, type: "a_thing"), line($0, type: "b_thing")] }, true),
            ("device", { [line($0), line($0, device: "\"d2\"")] }, true),
            ("profile", { [line($0), line($0, profile: "\"p2\"")] }, true),
            ("customer user", { [line($0, type: "identify", cuid: "\"u\""), line($0, type: "identify", cuid: "\"v\"")] }, true),
            ("customer user against anonymous", { [line($0, cuid: "\"u\""), line($0)] }, true),
            ("anonymous forms", { [line($0), line($0, cuid: "null"), line($0, cuid: "\"\"")] }, false),
            ("an unknown type's ignored device", { [line($0, type: "a_thing", device: nil), line($0, type: "a_thing", device: "7")] }, false),
        ]
        let ids = ["x", "6d15dece-4af8-4180-bf11-6bf5966b692f", "an-event-id-longer-than-sixteen-bytes"]
        for id in ids {
            for (what, lines, conflicts) in cases {
                let copies = lines(id)
                let result = try analyze(lines: copies)
                let message = "\(what), id \(id)"
                XCTAssertEqual(result.quality("rejected"), "0", message)
                XCTAssertEqual(result.quality("events"), "1", message)
                XCTAssertEqual(result.quality("duplicates"), "\(copies.count - 1)", message)
                XCTAssertEqual(result.quality("conflicting_duplicates"), conflicts ? "1" : "0", message)
            }
        }
    }

    /// SPEC §2 Duplicates: a dropped copy that differs from the kept one in
    /// one `action` field the metrics read is a conflict, each field alone;
    /// one that differs only in what they do not read (screen fields, the
    /// value of an input or datePicker, ignored keys, escapes, key order, an
    /// absent, `null` or empty option `value` or `label`) is a plain
    /// duplicate. The option list is compared as written, repeats included.
    func testDuplicatesThatDifferInOneActionField() throws {
        func state(element: String = "q", onboarding: String = "o", type: String = "select",
                   value: String = "{\"id\":\"a\",\"value\":\"A\",\"label\":\"Alpha\"}", screen: Int = 0) -> String {
            "{\"elementId\":\"\(element)\",\"meta\":{\"onboardingId\":\"\(onboarding)\",\"screenIndex\":\(screen)},"
                + "\"params\":{\"type\":\"\(type)\",\"value\":\(value)}}"
        }
        func copy(_ type: String, _ action: String) -> String {
            event("x", type, "2026-11-01T00:00:00Z", action: action)
        }
        let kept = state()
        let two = "[{\"id\":\"a\",\"value\":\"A\"},{\"id\":\"b\",\"value\":\"B\"}]"
        let cases: [(String, [String], Bool)] = [
            ("elementId", [copy("onboarding_state_updated", kept), copy("onboarding_state_updated", state(element: "q2"))], true),
            ("onboardingId", [copy("onboarding_state_updated", kept), copy("onboarding_state_updated", state(onboarding: "o2"))], true),
            ("params.type", [copy("onboarding_state_updated", state(type: "input", value: "{}")),
                             copy("onboarding_state_updated", state(type: "datePicker", value: "{}"))], true),
            ("params.type of an ignored type", [copy("onboarding_state_updated", state(type: "slider", value: "1")),
                                                copy("onboarding_state_updated", state(type: "Slider", value: "1"))], true),
            ("option id", [copy("onboarding_state_updated", kept),
                           copy("onboarding_state_updated", state(value: "{\"id\":\"b\",\"value\":\"A\",\"label\":\"Alpha\"}"))], true),
            ("option value", [copy("onboarding_state_updated", kept),
                              copy("onboarding_state_updated", state(value: "{\"id\":\"a\",\"value\":\"B\",\"label\":\"Alpha\"}"))], true),
            ("option label", [copy("onboarding_state_updated", kept),
                              copy("onboarding_state_updated", state(value: "{\"id\":\"a\",\"value\":\"A\",\"label\":\"Beta\"}"))], true),
            ("option order", [copy("onboarding_state_updated", state(type: "multiSelect", value: two)),
                              copy("onboarding_state_updated", state(type: "multiSelect", value: "[{\"id\":\"b\",\"value\":\"B\"},{\"id\":\"a\",\"value\":\"A\"}]"))], true),
            ("a repeated option", [copy("onboarding_state_updated", state(type: "multiSelect", value: "[{\"id\":\"a\"},{\"id\":\"a\"}]")),
                                   copy("onboarding_state_updated", state(type: "multiSelect", value: "[{\"id\":\"a\"}]"))], true),
            ("analytics name", [copy("onboarding_analytics", "{\"name\":\"screen_presented\",\"meta\":{\"onboardingId\":\"o\"}}"),
                                copy("onboarding_analytics", "{\"name\":\"screen_completed\",\"meta\":{\"onboardingId\":\"o\"}}")], true),
            ("analytics onboardingId", [copy("onboarding_analytics", "{\"name\":\"n\",\"meta\":{\"onboardingId\":\"o\"}}"),
                                        copy("onboarding_analytics", "{\"name\":\"n\",\"meta\":{\"onboardingId\":\"o2\"}}")], true),
            // Not read by the metrics: plain duplicates.
            ("screenIndex", [copy("onboarding_state_updated", kept), copy("onboarding_state_updated", state(screen: 2))], false),
            ("datePicker value", [copy("onboarding_state_updated", state(type: "datePicker", value: "{\"day\":1}")),
                                  copy("onboarding_state_updated", state(type: "datePicker", value: "{\"day\":2,\"year\":1990}"))], false),
            ("input value", [copy("onboarding_state_updated", state(type: "input", value: "{\"type\":\"text\",\"value\":\"x\"}")),
                             copy("onboarding_state_updated", state(type: "input", value: "{\"type\":\"text\",\"value\":\"y\"}"))], false),
            ("escapes, key order, ignored keys", [copy("onboarding_state_updated", kept), copy("onboarding_state_updated",
                "{ \"params\" : {\"value\":{\"label\":\"Alph\\u0061\",\"id\":\"\\u0061\",\"value\":\"A\",\"extra\":[1]},\"type\":\"select\"},"
                + "\"elementId\":\"q\",\"meta\":{\"screenClientId\":\"s\",\"onboardingId\":\"o\"},\"x\":null }")], false),
            // An absent option `value` or `label`, `null` and `""` are one and the same.
            ("absent and empty label", [copy("onboarding_state_updated", state(value: "{\"id\":\"a\",\"value\":\"A\"}")),
                                        copy("onboarding_state_updated", state(value: "{\"id\":\"a\",\"value\":\"A\",\"label\":\"\"}"))], false),
            ("null and absent label", [copy("onboarding_state_updated", state(value: "{\"id\":\"a\",\"value\":\"A\",\"label\":null}")),
                                       copy("onboarding_state_updated", state(value: "{\"id\":\"a\",\"value\":\"A\"}"))], false),
            ("null and empty value", [copy("onboarding_state_updated", state(value: "{\"id\":\"a\",\"value\":null,\"label\":\"Alpha\"}")),
                                      copy("onboarding_state_updated", state(value: "{\"id\":\"a\",\"value\":\"\",\"label\":\"Alpha\"}"))], false),
        ]
        for (what, lines, conflicts) in cases {
            let result = try analyze(lines: lines)
            XCTAssertEqual(result.quality("rejected"), "0", what)
            XCTAssertEqual(result.quality("events"), "1", what)
            XCTAssertEqual(result.quality("duplicates"), "1", what)
            XCTAssertEqual(result.quality("conflicting_duplicates"), conflicts ? "1" : "0", what)
        }
        // The kept copy (the first in input order) is the one the quiz reads.
        let result = try analyze(lines: cases[4].1)
        XCTAssertEqual(result.quizText, """
            onboarding_id,element_id,question_type,option_id,option_value,option_label,respondents,share,selections
            o,q,select,a,A,Alpha,1,1.0000,1

            """)
        // All of them in one input: the counts add up.
        let all = try analyze(lines: cases.enumerated().flatMap { k, c in
            c.1.map { $0.replacingOccurrences(of: "\"event_id\":\"x\"", with: "\"event_id\":\"x\(k)\"") }
        })
        XCTAssertEqual(all.quality("lines"), "\(2 * cases.count)")
        XCTAssertEqual(all.quality("events"), "\(cases.count)")
        XCTAssertEqual(all.quality("duplicates"), "\(cases.count)")
        XCTAssertEqual(all.quality("conflicting_duplicates"), "11")
    }

    /// SPEC §2 Order: instants are compared at full (nanosecond) precision,
    /// whatever the spelling; only equal instants fall back to event_id. The
    /// later event by time has the smaller id in each pair below, so an order
    /// that dropped the 7th–9th fraction digits would pick the other answer.
    func testNanosecondTimestampsOrderByTimeBeforeEventID() throws {
        func pick(_ id: String, _ timestamp: String, _ element: String, _ option: String) -> String {
            event(id, "onboarding_state_updated", timestamp, profile: "p1", action: answer("o", element, "select", [(option, option, option)]))
        }
        let lines = [
            // 7th digit: "a" is 100 ns later than "b".
            pick("b", "2026-11-01T09:00:00.1234567Z", "q1", "early"),
            pick("a", "2026-11-01T09:00:00.1234568Z", "q1", "late"),
            // 9th digit: "c" is 1 ns later than "d".
            pick("d", "2026-11-01T09:00:00.000000001Z", "q2", "early"),
            pick("c", "2026-11-01T09:00:00.000000002Z", "q2", "late"),
            // Across offsets and fraction lengths: "e" (…00.000000010 UTC) is 1 ns after "f".
            pick("f", "2026-11-01T18:00:00.000000009+09:00", "q3", "early"),
            pick("e", "2026-11-01T09:00:00.00000001Z", "q3", "late"),
            // Equal to the nanosecond, spelled three ways: the greatest id, "i", is latest.
            pick("h", "2026-11-01T09:00:00.5Z", "q4", "h"),
            pick("i", "2026-11-01T18:00:00.500000000+09:00", "q4", "i"),
            pick("g", "2026-11-01t09:00:00.50z", "q4", "g"),
            // An integer of milliseconds ties with the same instant as a string.
            "{\"event_id\":\"k\",\"event_type\":\"onboarding_state_updated\",\"timestamp\":1793523600500,\"device_id\":\"d1\",\"profile_id\":\"p1\","
                + "\"action\":\(answer("o", "q5", "select", [("k", "k", "k")]))}",
            pick("j", "2026-11-01T09:00:00.500000000Z", "q5", "j"),
        ]
        for order in [lines, lines.reversed()] {
            let result = try analyze(lines: Array(order))
            XCTAssertEqual(result.quizText, """
                onboarding_id,element_id,question_type,option_id,option_value,option_label,respondents,share,selections
                o,q1,select,late,late,late,1,1.0000,1
                o,q1,select,early,early,early,0,0.0000,1
                o,q2,select,late,late,late,1,1.0000,1
                o,q2,select,early,early,early,0,0.0000,1
                o,q3,select,late,late,late,1,1.0000,1
                o,q3,select,early,early,early,0,0.0000,1
                o,q4,select,i,i,i,1,1.0000,1
                o,q4,select,g,g,g,0,0.0000,1
                o,q4,select,h,h,h,0,0.0000,1
                o,q5,select,k,k,k,1,1.0000,1
                o,q5,select,j,j,j,0,0.0000,1

                """)
            XCTAssertEqual(result.quality("first_event"), "2026-11-01T09:00:00.000Z")
            XCTAssertEqual(result.quality("last_event"), "2026-11-01T09:00:00.500Z")
        }
        // Profile switches: "b" (identify, same profile) is 1 ns before "a"
        // (logout to a new profile): one logout switch. By id alone, "a"
        // would switch to p1 and "b" back to p0: two.
        let switches = [
            event("z", "sdk_activate", "2026-11-01T09:00:00Z", profile: "p0"),
            event("b", "identify", "2026-11-01T09:00:00.000000001Z", profile: "p0", cuid: "u"),
            event("a", "logout", "2026-11-01T09:00:00.000000002Z", profile: "p1"),
        ]
        try assertSwitchesInEitherOrder(switches, ["2026-11-01,logout,1,1"])
    }

    /// `lines` in their order and reversed give `profile_switches.csv` with
    /// these `rows` under its header.
    private func assertSwitchesInEitherOrder(_ lines: [String], _ rows: [String],
                                             file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = (["date,trigger,switches,devices"] + rows).map { $0 + "\n" }.joined()
        for order in [lines, lines.reversed()] {
            XCTAssertEqual(try analyze(lines: order).switchesText, expected, file: file, line: line)
        }
    }

    /// SPEC §2: ids are compared byte-wise on their UTF-8 (not by UTF-16
    /// code units, not by Swift's canonical-equivalence `String` order), for
    /// ties at one instant and for the order of quiz rows (SPEC §4.5).
    /// Bytes: "z" 7A < "é" C3 A9; "ｚ" (U+FF5A) EF BD 9A < "😀" F0 9F 98 80
    /// (in UTF-16 D83D < FF5A: the other way round); NFD "e\u{301}" 65 CC 81
    /// < NFC "é" C3 A9 (equal as Swift strings).
    func testNonASCIIIDsCompareByteWise() throws {
        let t = "2026-11-01T09:00:00.25Z"
        let nfc = "\u{E9}", nfd = "e\u{301}", fullZ = "\u{FF5A}", grin = "\u{1F600}"
        func pick(_ id: String, _ element: String, _ option: String, profile: String = "p1") -> String {
            event(id, "onboarding_state_updated", t, profile: profile, action: answer("o", element, "select", [(option, option, option)]))
        }
        let ties = [
            pick("1z", "q1", "by-z"),
            pick("1" + nfc, "q1", "by-e-acute"),              // latest: C3 > 7A
            pick("2" + fullZ, "q2", "by-fullwidth-z"),
            pick("2\\uD83D\\uDE00", "q2", "by-grin"),        // escaped 😀, latest: F0 > EF
            pick("3" + nfd, "q3", "by-nfd"),
            pick("3" + nfc, "q3", "by-nfc"),                  // latest: C3 > 65
        ]
        for order in [ties, ties.reversed()] {
            let result = try analyze(lines: Array(order))
            XCTAssertEqual(result.quality("events"), "6")  // NFC and NFD ids are two events
            XCTAssertEqual(result.quality("duplicates"), "0")
            XCTAssertEqual(result.quizText, """
                onboarding_id,element_id,question_type,option_id,option_value,option_label,respondents,share,selections
                o,q1,select,by-e-acute,by-e-acute,by-e-acute,1,1.0000,1
                o,q1,select,by-z,by-z,by-z,0,0.0000,1
                o,q2,select,by-grin,by-grin,by-grin,1,1.0000,1
                o,q2,select,by-fullwidth-z,by-fullwidth-z,by-fullwidth-z,0,0.0000,1
                o,q3,select,by-nfc,by-nfc,by-nfc,1,1.0000,1
                o,q3,select,by-nfd,by-nfd,by-nfd,0,0.0000,1

                """)
        }
        // Row order: element ids and, at equal respondents, option ids byte-wise.
        let rows = [
            pick("r1", grin, grin, profile: "p1"),
            pick("r2", grin, fullZ, profile: "p2"),
            pick("r3", grin, nfc, profile: "p3"),
            pick("r4", grin, "z", profile: "p4"),
            pick("r5", fullZ, "a", profile: "p1"),
            pick("r6", nfc, "a", profile: "p1"),
            pick("r7", "z", "a", profile: "p1"),
        ]
        XCTAssertEqual(try analyze(lines: rows.shuffled()).quizText, """
            onboarding_id,element_id,question_type,option_id,option_value,option_label,respondents,share,selections
            o,z,select,a,a,a,1,1.0000,1
            o,\(nfc),select,a,a,a,1,1.0000,1
            o,\(fullZ),select,a,a,a,1,1.0000,1
            o,\(grin),select,z,z,z,1,0.2500,1
            o,\(grin),select,\(nfc),\(nfc),\(nfc),1,0.2500,1
            o,\(grin),select,\(fullZ),\(fullZ),\(fullZ),1,0.2500,1
            o,\(grin),select,\(grin),\(grin),\(grin),1,0.2500,1

            """)
    }

    /// SPEC §2: an unknown event type is accepted and counts for installs
    /// through each of device_id / profile_id / customer_user_id that is a
    /// non-empty string (other values are ignored), but it is no identity
    /// event for profile switches (matching is case-sensitive: "Logout").
    func testUnknownEventTypesCountForInstalls() throws {
        let lines = [
            event("u1", "paywall_shown", "2026-11-02T10:00:00Z", device: "dA", profile: "pA", cuid: "uA"),
            event("k1", "sdk_activate", "2026-11-04T10:00:00Z", device: "dA", profile: "pA", cuid: "uA"),
            // Earlier than dB's known events: dB installs on its day, as does pC.
            event("u2", "Logout", "2026-11-03T10:00:00Z", device: "dB", profile: "pC"),
            event("k2", "sdk_activate", "2026-11-04T10:00:00Z", device: "dB", profile: "pB"),
            event("k3", "sdk_activate", "2026-11-05T10:00:00Z", device: "dB", profile: "pB"),
            // Only a string profile_id: a by_profile_id install alone.
            "{\"event_id\":\"u3\",\"event_type\":\"custom\",\"timestamp\":\"2026-11-05T00:00:00Z\",\"profile_id\":\"pD\",\"device_id\":5}",
            // Nothing usable: no install, and no row for its day.
            "{\"event_id\":\"u4\",\"event_type\":\"custom\",\"timestamp\":\"2026-10-30T00:00:00Z\",\"device_id\":\"\",\"profile_id\":null,\"customer_user_id\":7}",
            "{\"event_id\":\"u5\",\"event_type\":\"\",\"timestamp\":1793491200000,\"profile_id\":[\"pE\"],\"customer_user_id\":\"\"}",
        ]
        for threads in [1, 3] {
            let result = try analyze(lines: lines.shuffled(), threads: threads)
            XCTAssertEqual(result.quality("rejected"), "0")
            XCTAssertEqual(result.quality("events"), "8")
            XCTAssertEqual(result.quality("unknown_event_type"), "5")
            XCTAssertEqual(result.quality("first_event"), "2026-10-30T00:00:00.000Z")
            XCTAssertEqual(result.installsText, """
                date,by_device_id,by_customer_user_id,by_profile_id
                2026-11-02,1,1,1
                2026-11-03,1,0,1
                2026-11-04,0,0,1
                2026-11-05,0,0,1

                """)
            // dB: k2 and k3 on pB; "Logout" to pC before them is not a step.
            XCTAssertEqual(result.switchesText, "date,trigger,switches,devices\n")
        }
    }

    /// Regression (forty-first session, found by review): ids built against the
    /// hash's old constants were taken for one id — UUIDs whose last 8 bytes
    /// zeroed both lanes of the event key, and two device ids and two event ids
    /// longer than 16 bytes whose keys were made to collide. Byte-wise they are
    /// all distinct (SPEC §2).
    func testIDsWrittenAgainstTheHashAreStillDistinct() throws {
        let uuids = ["00000000-0000-0000-a5d9-f1e7b3c59d8a", "11111111-2222-3333-a5d9-f1e7b3c59d8a",
                     "DEADBEEF-0000-4000-A5D9-F1E7B3C59D8A", "01234567-89AB-4CDE-A5D9-F1E7B3C59D8A"]
        let lines = uuids.enumerated().map { k, id in
            event(id, "sdk_activate", "2026-11-0\(k + 1)T10:00:00Z", device: "d\(k)", profile: "p\(k)")
        }
        for threads in [1, 2] {
            let result = try analyze(lines: lines, threads: threads)
            XCTAssertEqual(result.quality("events"), "4")
            XCTAssertEqual(result.quality("duplicates"), "0")
            XCTAssertEqual(result.installsText, "date,by_device_id,by_customer_user_id,by_profile_id\n"
                + "2026-11-01,1,0,1\n2026-11-02,1,0,1\n2026-11-03,1,0,1\n2026-11-04,1,0,1\n")
        }
        let devices = [
            event("e1", "sdk_activate", "2026-11-01T10:00:00Z", device: "dev0000008b3fcfa$c8wnJ-1-SUFFIX-0123456789abcdef", profile: "p1"),
            event("e2", "sdk_activate", "2026-11-02T10:00:00Z", device: "dev000000a906a1c+N9&+g#q-SUFFIX-0123456789abcdef", profile: "p2"),
        ]
        let byDevice = try analyze(lines: devices)
        XCTAssertEqual(byDevice.installsText, "date,by_device_id,by_customer_user_id,by_profile_id\n"
            + "2026-11-01,1,0,1\n2026-11-02,1,0,1\n")
        XCTAssertEqual(byDevice.switchesText, "date,trigger,switches,devices\n")
        let events = [
            event("evt00000063f9b8cCVn#mb}c-SUFFIX-0123456789abcdef", "sdk_activate", "2026-11-01T10:00:00Z", device: "d1", profile: "p1"),
            event("evt000002b7b9164R[o[+lyT-SUFFIX-0123456789abcdef", "sdk_activate", "2026-11-02T10:00:00Z", device: "d2", profile: "p2"),
        ]
        let byEvent = try analyze(lines: events)
        XCTAssertEqual(byEvent.quality("events"), "2")
        XCTAssertEqual(byEvent.quality("duplicates"), "0")
    }

    func testQualityRowsInSpecOrder() throws {
        let result = try analyze(lines: ["", "   ", "[1]", event("a", "logout", "2026-11-01T00:00:00Z")])
        XCTAssertEqual(result.qualityText.split(separator: "\n").map { $0.split(separator: ",")[0] }, [
            "metric", "files", "bytes_read", "bytes_decoded", "lines", "events", "duplicates", "conflicting_duplicates",
            "rejected", "rejected_line_too_long", "rejected_invalid_json", "rejected_not_an_object",
            "rejected_missing_field", "rejected_wrong_type", "rejected_bad_timestamp", "rejected_bad_action",
            "unknown_event_type", "events_sdk_activate", "events_identify", "events_logout",
            "events_onboarding_state_updated", "events_onboarding_analytics", "first_event", "last_event",
        ])
        XCTAssertEqual(result.quality("lines"), "2")
        XCTAssertEqual(result.quality("rejected_not_an_object"), "1")
        XCTAssertEqual(result.rejectsText, "file,line,reason\n\(result.rejects[0].file),3,not_an_object\n")
    }

    /// SPEC §4.5: `rejects.csv` holds the first `--max-reject-rows` rejects
    /// in input order, and no more, while quality.csv counts them all.
    /// Regression (mutation testing): a cut that kept one row too many
    /// passed every test.
    func testRejectsKeepAtMostMaxRejectRowsInInputOrder() throws {
        let good = (0..<4).map { event("e\($0)", "sdk_activate", "2026-11-01T00:00:00Z") }
        let lines = [good[0], "x", "[]", good[1], "{", good[2], "1", "{}", good[3]]
        let all = [2, 3, 5, 7, 8]
        for rows in [0, 1, 2, 4, 5, 6, Int.max] {
            for threads in [1, 2] {
                let result = try analyze(lines: lines, threads: threads, maxRejectRows: rows)
                XCTAssertEqual(result.quality.rejected, 5, "rows \(rows)")
                XCTAssertEqual(result.rejects.map(\.line), Array(all.prefix(rows)), "rows \(rows), threads \(threads)")
                let csv = result.rejectsText.split(separator: "\n")
                XCTAssertEqual(csv.count, 1 + min(rows, all.count), "rows \(rows), threads \(threads)")
            }
        }
    }

    /// A reject's line number is its chunk's first line plus its place in
    /// the chunk, which passes 65 535 in a chunk of short lines (here blank
    /// ones, a byte each, all in one chunk: one worker, so no chunk is cut
    /// early for a waiting one; with two the test caught the change only in
    /// some runs). Regression (mutation testing): a place cut to 16 bits
    /// (line 4 465 here) passed every test.
    func testARejectPastLine65536OfAChunkKeepsItsLineNumber() throws {
        let result = try analyze(lines: Array(repeating: "", count: 70_000) + ["x"], threads: 1)
        XCTAssertEqual(result.quality("lines"), "1")
        XCTAssertEqual(result.rejects.map(\.line), [70_001])
        XCTAssertEqual(result.rejectsText, "file,line,reason\n\(result.rejects[0].file),70001,invalid_json\n")
    }

    func testEmptyInputGivesHeadersOnly() throws {
        let result = try analyze(lines: [])
        XCTAssertEqual(result.installsText, "date,by_device_id,by_customer_user_id,by_profile_id\n")
        XCTAssertEqual(result.switchesText, "date,trigger,switches,devices\n")
        XCTAssertEqual(result.quality("first_event"), "")
    }
}
