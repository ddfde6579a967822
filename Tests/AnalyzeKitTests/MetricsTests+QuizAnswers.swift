import XCTest
@testable import AnalyzeKit

extension QuizAnswerRow {
    /// The share as `quiz_answers.csv` spells it: the row's ten-thousandths
    /// written by the CSV writer's fixed-point field.
    fileprivate var share: String {
        var csv = CSVWriter(header: [])
        let header = csv.bytes.count
        csv.field(shareInTenThousandths, decimals: 4)
        return String(decoding: csv.bytes[header...], as: UTF8.self)
    }
}

/// quiz_answers.csv (SPEC §4.3): final answers, selections, latest labels, shares.
extension MetricsTests {
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

    /// Rows are sorted by the ids' bytes, a proper prefix first, also where
    /// long ids differ only at their ends (compared with `memcmp`).
    func testQuizRowsSortByIDBytesWhereLongIDsDifferAtTheirEnds() throws {
        let long = String(repeating: "x", count: 1_000)
        func pick(_ id: String, _ onboarding: String, _ element: String, _ option: String) -> String {
            event(id, "onboarding_state_updated", "2026-11-01T00:00:0\(id)Z", profile: "p\(id)",
                  action: answer(onboarding, element, "select", [(option, "v", "L")]))
        }
        let lines = [
            pick("1", "oo", "q", "a"),
            pick("2", "o", long + "2", "b"),
            pick("3", "o", long + "1", "\u{E9}"),
            pick("4", "o", long + "1", "ab"),
            pick("5", "o", long + "1", "a"),
        ]
        XCTAssertEqual(try analyze(lines: lines).quizText, """
            onboarding_id,element_id,question_type,option_id,option_value,option_label,respondents,share,selections
            o,\(long)1,select,a,v,L,1,0.3333,1
            o,\(long)1,select,ab,v,L,1,0.3333,1
            o,\(long)1,select,\u{E9},v,L,1,0.3333,1
            o,\(long)2,select,b,v,L,1,1.0000,1
            oo,q,select,a,v,L,1,1.0000,1

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
            QuizAnswerRow(onboardingID: 0, elementID: 0, optionID: 0, optionValue: 0, optionLabel: 0,
                          respondents: UInt32(n), questionRespondents: UInt32(d), selections: 0, questionType: .select).share
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

    /// Answers of one instant whose `event_id`s share a long prefix, each
    /// selecting the same 300 options: each option's value and label come
    /// from the answer with the greatest id, and the question's type from it
    /// too. Regression (sixty-third session, found by a review of hostile
    /// inputs): the tally compared each option's latest answer with every
    /// answer selecting it, the two ids byte by byte, once per option — two
    /// such lines of 1 MB took 17.6 s. Answers are now ranked once per
    /// question, and the tally compares ranks.
    func testTiedAnswersWithLongIDsAndManyOptionsTakeTheGreatestID() throws {
        let prefix = String(repeating: "x", count: 2_000)
        let t = "2026-11-01T09:00:00Z"
        func pick(_ suffix: String, _ profile: String, _ type: String) -> String {
            let options = (0..<300).map { ("o\($0)", "v\(suffix)", "L\(suffix)") }
            return event(prefix + suffix, "onboarding_state_updated", t, profile: profile,
                         action: answer("o", "q", type, type == "select" ? [options[0]] : options))
        }
        let lines = [pick("1", "p1", "multiSelect"), pick("3", "p2", "multiSelect"), pick("2", "p3", "select")]
        for (threads, order) in [(1, lines), (2, lines.reversed()), (3, lines.shuffled())] {
            let text = try analyze(lines: order, threads: threads).quizText
            let rows = text.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
            XCTAssertEqual(rows.count, 300, text.prefix(300).description)
            let o0 = rows.first { $0[3] == "o0" }
            XCTAssertEqual(o0, ["o", "q", "multiSelect", "o0", "v3", "L3", "3", "1.0000", "3"])
            let o1 = rows.first { $0[3] == "o1" }
            XCTAssertEqual(o1, ["o", "q", "multiSelect", "o1", "v3", "L3", "2", "0.6667", "2"])
        }
    }
}
