import XCTest
@testable import AnalyzeKit

/// Identities and ordering ties (SPEC §2, "Order"): escapes, id spellings, byte order, the ordering key.
extension MetricsTests {
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
        // Two printable ids whose first 16 bytes are each other's words
        // swapped and XOR-ed with a constant of their length (329 bytes): one
        // hash whatever the key until the sixty-third session
        // (`HashingAndInterningTests.testSwappedWordsDoNotCollideWhateverTheKey`).
        // As customer user ids, device ids and event ids.
        let swapped = ["AAAAAA``aaa   aa", "xPAL]]4;Xpa-<<5:"].map { $0 + String(repeating: "x", count: 313) }
        let users = [
            event("u1", "identify", "2026-11-01T10:00:00Z", device: "d1", profile: "p1", cuid: swapped[0]),
            event("u2", "identify", "2026-11-02T10:00:00Z", device: "d2", profile: "p2", cuid: swapped[1]),
        ]
        XCTAssertEqual(try analyze(lines: users).installsText, "date,by_device_id,by_customer_user_id,by_profile_id\n"
            + "2026-11-01,1,1,1\n2026-11-02,1,1,1\n")
        let swappedDevices = [
            event("v1", "sdk_activate", "2026-11-01T10:00:00Z", device: swapped[0], profile: "p1"),
            event("v2", "sdk_activate", "2026-11-02T10:00:00Z", device: swapped[1], profile: "p2"),
        ]
        XCTAssertEqual(try analyze(lines: swappedDevices).installsText, "date,by_device_id,by_customer_user_id,by_profile_id\n"
            + "2026-11-01,1,0,1\n2026-11-02,1,0,1\n")
        let swappedEvents = [
            event(swapped[0], "sdk_activate", "2026-11-01T10:00:00Z", device: "d1", profile: "p1"),
            event(swapped[1], "sdk_activate", "2026-11-02T10:00:00Z", device: "d2", profile: "p2"),
        ]
        let bySwappedEvent = try analyze(lines: swappedEvents)
        XCTAssertEqual(bySwappedEvent.quality("events"), "2")
        XCTAssertEqual(bySwappedEvent.quality("duplicates"), "0")
    }

    /// Whether an event's identity is the previous event's is decided by
    /// comparing bytes within one chunk only: a worker reuses its chunk
    /// buffers, so the previous line's bytes may have been overwritten. Two
    /// chunks filled in turn into one buffer, with `d1` and then `d2` at the
    /// same place, are two devices. (Without the reset at each chunk, the
    /// second line's `d2` was compared with what now stands where `d1` was —
    /// `d2` itself — and took `d1`'s id: one install day lost. Named as
    /// untested by a review.)
    func testTheLastIdentityIsForgottenWhenAChunkBufferIsReused() {
        let chunk = Chunk(capacity: 4096)
        var partial = PartialAggregate(maxLineBytes: 1 << 20, maxRejectRows: 10)
        for (k, device) in ["d1", "d2"].enumerated() {
            let line = Array((event("e\(k)", "sdk_activate", "2026-11-0\(k + 1)T10:00:00Z", device: device, profile: "p1") + "\n").utf8)
            line.withUnsafeBytes { chunk.storage.copyMemory(from: $0) }
            chunk.count = line.count
            chunk.sequence = k
            partial.consume(chunk)
        }
        let result = AnalysisResult(merged: partial, files: [InputFile(displayName: "x", location: .standardInput)],
                                    bytesRead: 0, bytesDecoded: 0, timeZone: .utc)
        XCTAssertEqual(result.installsText, "date,by_device_id,by_customer_user_id,by_profile_id\n"
            + "2026-11-01,1,0,1\n2026-11-02,1,0,0\n")
    }
}
