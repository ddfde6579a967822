@testable import AnalyzeKit
import EventGenerator
import XCTest

/// The tuple tables (options, questions) against a dictionary: one dense id
/// per distinct tuple, through growth, and absorbing another table maps its
/// strings first.
final class TupleTableTests: XCTestCase {
    func testInternGivesOneDenseIDPerDistinctTriple() {
        var rng = SplitMix64(3)
        var table = OptionTable()
        var model: [[UInt32]: UInt32] = [:]
        for _ in 0..<20_000 {
            // Few values per field, so triples repeat and differ in one field only.
            let triple = (0..<3).map { _ in UInt32(rng.next() % 24) }
            let id = table.intern(AnswerOption(id: triple[0], value: triple[1], label: triple[2]))
            if let known = model[triple] {
                XCTAssertEqual(id, known, "the same triple gets the same id")
            } else {
                XCTAssertEqual(Int(id), model.count, "a new triple gets the next id")
                model[triple] = id
            }
        }
        XCTAssertEqual(table.count, model.count)
        for (triple, id) in model {
            XCTAssertEqual(table[id], AnswerOption(id: triple[0], value: triple[1], label: triple[2]))
        }
    }

    func testAbsorbMapsTheOtherTablesStringsThenInterns() {
        var mine = OptionTable()
        let shared = mine.intern(AnswerOption(id: 10, value: 11, label: 12))
        var other = OptionTable()
        _ = other.intern(AnswerOption(id: 0, value: 1, label: 2))  // its strings 0, 1, 2 are mine 10, 11, 12
        _ = other.intern(AnswerOption(id: 0, value: 1, label: 3))  // 3 is mine 13: a new triple
        let strings: [UInt32] = [10, 11, 12, 13]
        let map = mine.absorb(other, strings: strings)
        XCTAssertEqual(map, [shared, 1])
        XCTAssertEqual(mine[1], AnswerOption(id: 10, value: 11, label: 13))
        XCTAssertEqual(mine.count, 2)
    }

    func testQuestionsAreInternedAsPairs() {
        var table = QuestionTable()
        let a = table.intern(Question(onboarding: 1, element: 2))
        let b = table.intern(Question(onboarding: 2, element: 1))
        XCTAssertNotEqual(a, b, "the pair is ordered")
        XCTAssertEqual(table.intern(Question(onboarding: 1, element: 2)), a)
        var other = QuestionTable()
        _ = other.intern(Question(onboarding: 0, element: 1))
        XCTAssertEqual(table.absorb(other, strings: [2, 1]), [b])
    }
}
