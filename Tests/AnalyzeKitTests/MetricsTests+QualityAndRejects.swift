import XCTest
@testable import AnalyzeKit

/// quality.csv and rejects.csv (SPEC §4.4, §4.5).
extension MetricsTests {
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
}
