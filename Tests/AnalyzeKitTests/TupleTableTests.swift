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

    /// Regression (sixty-third session): the options' hash was fixed, and quiz
    /// strings get dense ids in the order they are first met, so anyone could
    /// compute triples of ids whose slots fall together and write answers with
    /// them: linear probing then took time quadratic in their number (52 000
    /// such options, 2.4 MB of input, 3 s instead of 0.04). These 64 triples
    /// had home slots 0 and 1 of a 2²⁰-slot table under that hash; under the
    /// run's keyed hash they land apart. (The tuples' ids need not be interned:
    /// only where the table would put them is checked.)
    func testTriplesWrittenAgainstTheHashDoNotCrowdOneStretch() {
        let crafted: [(UInt32, UInt32, UInt32)] = [
            (2, 228, 479), (3, 363, 442), (4, 19, 488), (4, 330, 384), (7, 23, 121), (9, 74, 453), (9, 585, 69), (13, 587, 5),
            (22, 351, 115), (24, 175, 66), (27, 480, 466), (31, 42, 334), (32, 555, 142), (34, 139, 583), (34, 213, 254), (36, 411, 474),
            (40, 350, 213), (43, 75, 169), (44, 177, 165), (48, 92, 275), (49, 272, 592), (49, 351, 433), (52, 310, 305), (54, 139, 521),
            (56, 16, 177), (56, 83, 310), (56, 172, 311), (57, 355, 445), (58, 383, 178), (58, 529, 495), (64, 438, 539), (65, 226, 209),
            (65, 430, 293), (65, 538, 494), (68, 102, 128), (68, 348, 262), (71, 48, 238), (72, 392, 318), (73, 244, 553), (74, 397, 459),
            (75, 105, 23), (75, 446, 460), (78, 394, 245), (78, 454, 523), (79, 256, 398), (82, 89, 509), (83, 244, 584), (84, 161, 397),
            (86, 150, 338), (88, 353, 267), (89, 418, 573), (89, 427, 438), (89, 492, 37), (90, 240, 88), (91, 488, 125), (93, 374, 225),
            (94, 48, 449), (94, 163, 192), (95, 206, 145), (96, 25, 281), (99, 134, 44), (99, 230, 471), (104, 209, 4), (109, 27, 13),
        ]
        let mask = (1 << 20) - 1
        let homes = Set(crafted.map { Int(truncatingIfNeeded: OptionTable.hash(AnswerOption(id: $0.0, value: $0.1, label: $0.2))) & mask })
        XCTAssertGreaterThan(homes.count, 56, "64 crafted triples in \(homes.count) slots")
        // Likewise 64 questions whose home slot was 0 of a 2¹⁶-slot table.
        let craftedQuestions: [(UInt32, UInt32)] = [
            (0, 0), (126, 197), (127, 2005), (128, 3813), (131, 1690), (132, 3498), (135, 1375), (136, 3183),
            (139, 1060), (140, 2868), (269, 942), (270, 2750), (273, 627), (274, 2435), (277, 312), (278, 2120),
            (279, 3928), (282, 1805), (407, 194), (408, 2002), (409, 3810), (412, 1687), (413, 3495), (416, 1372),
            (417, 3180), (420, 1057), (421, 2865), (550, 939), (551, 2747), (554, 624), (555, 2432), (558, 309),
            (559, 2117), (560, 3925), (563, 1802), (564, 3610), (688, 191), (689, 1999), (690, 3807), (693, 1684),
            (694, 3492), (697, 1369), (698, 3177), (701, 1054), (702, 2862), (831, 936), (832, 2744), (835, 621),
            (836, 2429), (839, 306), (840, 2114), (841, 3922), (844, 1799), (845, 3607), (969, 188), (970, 1996),
            (971, 3804), (974, 1681), (975, 3489), (978, 1366), (979, 3174), (982, 1051), (983, 2859), (1112, 933),
        ]
        let questionHomes = Set(craftedQuestions.map { Int(truncatingIfNeeded: QuestionTable.hash(Question(onboarding: $0.0, element: $0.1))) & 0xFFFF })
        XCTAssertGreaterThan(questionHomes.count, 56, "64 crafted questions in \(questionHomes.count) slots")
    }

    /// Two triples whose hashes agree in the 32 bits a slot keeps (its tag,
    /// since the sixty-fifth session) get two ids, before and after the
    /// table grows: a matching tag is only a reason to compare the tuples.
    /// The pair is found by a birthday search under this run's hash key
    /// (about 80 000 triples on average).
    func testTriplesWhoseSlotTagsAgreeGetTheirOwnIDs() throws {
        var byTag: [UInt32: AnswerOption] = [:]
        var pair: (AnswerOption, AnswerOption)?
        var n: UInt32 = 0
        while pair == nil && n < 4_000_000 {
            let option = AnswerOption(id: n, value: n / 3, label: 7)
            let tag = UInt32(truncatingIfNeeded: OptionTable.hash(option))
            if let other = byTag[tag] { pair = (other, option) } else { byTag[tag] = option }
            n += 1
        }
        let (a, b) = try XCTUnwrap(pair, "no two of 4 million triples share a tag")
        var table = OptionTable()
        let (idA, idB) = (table.intern(a), table.intern(b))
        XCTAssertNotEqual(idA, idB)
        for i in 0..<5_000 { _ = table.intern(AnswerOption(id: UInt32(i), value: 1 << 30, label: 0)) }  // grows 64 → 16 384 slots
        XCTAssertEqual(table.intern(a), idA)
        XCTAssertEqual(table.intern(b), idB)
        XCTAssertEqual(table[idA], a)
        XCTAssertEqual(table[idB], b)
        XCTAssertEqual(table.count, 5_002)
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
