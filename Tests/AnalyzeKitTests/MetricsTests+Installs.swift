import XCTest
@testable import AnalyzeKit
import EventGenerator

/// installs.csv (SPEC §4.1) under each mode, across spans, days and time zones.
extension MetricsTests {
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
}
