import XCTest
@testable import AnalyzeKit

/// Duplicates and conflicting duplicates (SPEC §2).
extension MetricsTests {
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
}
