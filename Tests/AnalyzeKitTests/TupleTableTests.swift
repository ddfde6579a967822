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

    /// Absorbing a table of thousands of options, whose strings map to other
    /// ids here (several of the other's to one of ours, so that distinct
    /// triples there can be one triple here), grows this table during the
    /// merge and gives each the id that interning its mapped triple one by
    /// one gives (named as untested by a review).
    func testAbsorbingALargeTableMapsLikeInterningOneByOne() {
        var rng = SplitMix64(41)
        var mine = OptionTable(), other = OptionTable()
        for _ in 0..<100 {
            _ = mine.intern(AnswerOption(id: UInt32(rng.next() % 40), value: UInt32(rng.next() % 40), label: UInt32(rng.next() % 40)))
        }
        for _ in 0..<8_000 {
            _ = other.intern(AnswerOption(id: UInt32(rng.next() % 60), value: UInt32(rng.next() % 60), label: UInt32(rng.next() % 60)))
        }
        let strings = (0..<60).map { UInt32($0 * 7 % 50) }  // 60 strings there, 50 here
        var model = mine
        let before = (0..<mine.count).map { mine[UInt32($0)] }
        let map = mine.absorb(other, strings: strings)
        XCTAssertEqual(map.count, other.count)
        for id in 0..<other.count {
            let option = other[UInt32(id)]
            let mapped = AnswerOption(id: strings[Int(option.id)], value: strings[Int(option.value)], label: strings[Int(option.label)])
            XCTAssertEqual(map[id], model.intern(mapped), "id \(id)")
            XCTAssertEqual(mine[map[id]], mapped, "id \(id)")
        }
        XCTAssertEqual(mine.count, model.count)
        XCTAssertLessThan(mine.count, 100 + other.count, "some triples there are one triple here")
        XCTAssertEqual((0..<before.count).map { mine[UInt32($0)] }, before)
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
