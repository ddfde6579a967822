import XCTest
@testable import AnalyzeKit

/// Metric definitions (SPEC §4) on small inputs with hand-computed results.
///
/// The cases are in `MetricsTests+CONCERN.swift`, one file per output or concern;
/// this file holds what they share, and the case of an empty input.
final class MetricsTests: XCTestCase {
    /// Two devices of user u1 and one of u2:
    /// - d1: activate p1 (anonymous), identify u1 (new id: same profile).
    /// - d2: activate p3, identify u1 → p1 (switch), logout → p4 (switch),
    ///   activate with u1 → p1 (switch).
    /// - d3: activate p5 as u2.
    let story = [
        event("e1", "sdk_activate", "2026-11-01T10:00:00Z", device: "d1", profile: "p1"),
        event("e2", "identify", "2026-11-01T11:00:00Z", device: "d1", profile: "p1", cuid: "u1"),
        event("e3", "sdk_activate", "2026-11-02T09:00:00Z", device: "d2", profile: "p3"),
        event("e4", "identify", "2026-11-02T09:05:00Z", device: "d2", profile: "p1", cuid: "u1"),
        event("e5", "logout", "2026-11-03T08:00:00Z", device: "d2", profile: "p4"),
        event("e6", "sdk_activate", "2026-11-03T08:30:00Z", device: "d2", profile: "p1", cuid: "u1"),
        event("e7", "sdk_activate", "2026-11-05T00:00:00Z", device: "d3", profile: "p5", cuid: "u2"),
    ]

    func testEmptyInputGivesHeadersOnly() throws {
        let result = try analyze(lines: [])
        XCTAssertEqual(result.installsText, "date,by_device_id,by_customer_user_id,by_profile_id\n")
        XCTAssertEqual(result.switchesText, "date,trigger,switches,devices\n")
        XCTAssertEqual(result.quality("first_event"), "")
    }
}
