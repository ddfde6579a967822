import XCTest
import EventGenerator
@testable import AnalyzeKit

/// Memory per event is a documented property (docs/architecture.md): keep it.
final class LayoutTests: XCTestCase {
    func testPerEventStructuresHaveTheDocumentedSizes() {
        XCTAssertEqual(MemoryLayout<EventRecord>.stride, 24)
        XCTAssertEqual(MemoryLayout<EventCopy>.stride, 16)
        XCTAssertEqual(MemoryLayout<EventExtra>.stride, 20)
        XCTAssertEqual(MemoryLayout<PackedID>.stride, 16)
    }

    /// The per-worker working sets the architecture page lists.
    func testPerWorkerBuffersHaveTheDocumentedSizes() {
        XCTAssertEqual(MemoryLayout<ActionTape.Entry>.stride, 56)
        XCTAssertEqual(MemoryLayout<PendingEvent>.stride, 88)
        XCTAssertEqual(MemoryLayout<AnswerRecord>.stride, 12)
        XCTAssertEqual(MemoryLayout<AnswerOption>.stride, 12)
    }
}

/// The packed per-event structures give back every value they were given,
/// at the ends of each field's range, and setting one field leaves the
/// others as they were.
final class PackedFieldTests: XCTestCase {
    func testEventRecordKeepsEveryFieldAtItsLimits() {
        var rng = SplitMix64(5)
        let seconds: [Int64] = [Instant.minimum.seconds, -1, 0, 1_795_857_302, Instant.maximum.seconds]
        let nanoseconds: [UInt32] = [0, 1, 31, 32, 999_999_999, EventRecord.removedNanoseconds]
        let ids: [UInt32] = [0, 1, 0x2AAA_AAAA, EventRecord.identityLimit - 1]
        let extras: [Int32] = [-1, 0, 12_345, EventRecord.extraLimit - 1]
        for _ in 0..<2_000 {
            func pick<T>(_ values: [T]) -> T { values[Int(rng.next() % UInt64(values.count))] }
            let fields = (seconds: pick(seconds), nanoseconds: pick(nanoseconds), extra: pick(extras),
                          device: pick(ids), profile: pick(ids), customerUser: pick(ids), type: pick(EventType.allCases),
                          hasBareID: pick([false, true]))
            var record = EventRecord(seconds: fields.seconds, nanoseconds: fields.nanoseconds, extra: fields.extra,
                                     device: fields.device, profile: fields.profile,
                                     customerUser: fields.customerUser, type: fields.type, hasBareID: fields.hasBareID)
            func check(_ context: String) {
                XCTAssertEqual(record.seconds, fields.seconds, context)
                XCTAssertEqual(record.nanoseconds, fields.nanoseconds, context)
                XCTAssertEqual(record.extra, fields.extra, context)
                XCTAssertEqual(record.device, fields.device, context)
                XCTAssertEqual(record.profile, fields.profile, context)
                XCTAssertEqual(record.customerUser, fields.customerUser, context)
                XCTAssertEqual(record.type, fields.type, context)
                XCTAssertEqual(record.hasBareID, fields.hasBareID, context)
                XCTAssertEqual(record.isRemoved, fields.nanoseconds == EventRecord.removedNanoseconds, context)
            }
            check("as made")
            // Rewrite each field with a new value, one at a time.
            var expected = fields
            expected.device = pick(ids); record.device = expected.device
            expected.nanoseconds = pick(nanoseconds); record.nanoseconds = expected.nanoseconds
            expected.extra = pick(extras); record.extra = expected.extra
            expected.customerUser = pick(ids); record.customerUser = expected.customerUser
            expected.seconds = pick(seconds); record.seconds = expected.seconds
            expected.profile = pick(ids); record.profile = expected.profile
            expected.type = pick(EventType.allCases); record.type = expected.type
            expected.hasBareID.toggle(); record.hasBareID = expected.hasBareID
            XCTAssertEqual(record.seconds, expected.seconds)
            XCTAssertEqual(record.nanoseconds, expected.nanoseconds)
            XCTAssertEqual(record.extra, expected.extra)
            XCTAssertEqual(record.device, expected.device)
            XCTAssertEqual(record.profile, expected.profile)
            XCTAssertEqual(record.customerUser, expected.customerUser)
            XCTAssertEqual(record.type, expected.type)
            XCTAssertEqual(record.hasBareID, expected.hasBareID)
        }
    }

    /// A bare id's index and kind share the record's extra: each survives the
    /// other, and neither touches another field.
    func testBareIDKeepsItsIndexAndKind() {
        for kind in BareID.Kind.allCases {
            for index in [0, 1, 12_345, Int(EventRecord.extraLimit) / 4 - 1] {
                var record = EventRecord(seconds: 86_400, nanoseconds: 7, extra: -1, device: 3, profile: 4,
                                         customerUser: 5, type: .identify)
                record.setBareID(index: 0, kind: kind)
                XCTAssertTrue(record.hasBareID)
                XCTAssertEqual(record.bareIDKind, kind)
                XCTAssertEqual(record.bareIDIndex, 0)
                record.setBareID(index: index, kind: record.bareIDKind)
                XCTAssertEqual(record.bareIDKind, kind, "index \(index)")
                XCTAssertEqual(record.bareIDIndex, index)
                XCTAssertEqual(record.orderingKey.extra, record.extra)
                XCTAssertEqual(record.seconds, 86_400)
                XCTAssertEqual(record.nanoseconds, 7)
                XCTAssertEqual([record.device, record.profile, record.customerUser], [3, 4, 5])
                XCTAssertEqual(record.type, .identify)
            }
        }
    }

    /// The same 16 bytes read as each kind are three ids: three keys.
    func testPackedIDKeysDependOnTheKind() {
        let bytes: (UInt64, UInt64) = (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210)
        let keys = BareID.Kind.allCases.map { EventKey(packedID: bytes, kind: $0) }
        XCTAssertEqual(Set(keys).count, BareID.Kind.allCases.count)
        XCTAssertEqual(EventKey(packedID: bytes, kind: .upperUUID), EventKey(packedID: bytes, kind: .upperUUID))
    }

    /// Which ids fit in 16 bytes, as which kind, and the text they give back.
    func testBareIDsPackAndGiveBackTheirText() {
        let cases: [(String, BareID.Kind?)] = [
            ("0a1b2c3d-0000-4000-8000-00000000000a", .lowerUUID),
            ("0A1B2C3D-0000-4000-8000-00000000000A", .upperUUID),
            ("0A1b2c3d-0000-4000-8000-00000000000a", nil),  // mixed case, 36 bytes
            ("1", .short),
            ("evt_6d15dece4af8", .short),  // 16 bytes
            ("evt_6d15dece4af80", nil),  // 17 bytes
            ("é\u{0}x", .short),  // a NUL inside is kept
            ("ab\u{0}", nil),  // a NUL at the end would read as padding
            ("", nil),
        ]
        for (text, expected) in cases {
            var packed: (UInt64, UInt64) = (~0, ~0)
            let kind = Array(text.utf8).withUnsafeBytes { BareID.pack($0, into: &packed) }
            XCTAssertEqual(kind, expected, text.debugDescription)
            guard let kind else { continue }
            let back = BareID.withText(of: packed, kind: kind) { Array($0) }
            XCTAssertEqual(back, Array(text.utf8), text.debugDescription)
        }
    }

    /// Seeded property test: ids packed the same way compare as their texts
    /// (lower-case and upper-case UUIDs; short ids with NULs inside, and
    /// prefixes of one another).
    func testPackedIDsOfOneKindCompareAsTheirTexts() {
        var rng = SplitMix64(29)
        func uuid(_ digits: String) -> String {
            var text = String((0..<32).map { _ in digits.randomElement(using: &rng)! })
            for place in [8, 13, 18, 23] { text.insert("-", at: text.index(text.startIndex, offsetBy: place)) }
            return text
        }
        func short() -> [UInt8] {
            let count = Int.random(in: 1...16, using: &rng)
            var bytes = (0..<count).map { _ in [0, 1, 0x41, 0x61, 0x7F, 0x80, 0xC3, 0xFF].randomElement(using: &rng)! as UInt8 }
            if bytes[count - 1] == 0 { bytes[count - 1] = 0x41 }
            return bytes
        }
        for _ in 0..<2_000 {
            var pair: [[UInt8]]
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: pair = [Array(uuid("0123456789abcdef").utf8), Array(uuid("0123456789abcdef").utf8)]
            case 1: pair = [Array(uuid("0123456789ABCDEF").utf8), Array(uuid("0123456789ABCDEF").utf8)]
            case 2: pair = [short(), short()]
            default:
                // One a prefix of the other, or equal.
                let long = short()
                pair = [Array(long.prefix(Int.random(in: 1...long.count, using: &rng))), long]
                if pair[0].last == 0 { pair[0][pair[0].count - 1] = 0x41 }
                pair.shuffle(using: &rng)
            }
            var packed: [(UInt64, UInt64)] = []
            for id in pair {
                var bytes: (UInt64, UInt64) = (0, 0)
                let kind = id.withUnsafeBytes { BareID.pack($0, into: &bytes) }
                XCTAssertNotNil(kind, String(decoding: id, as: UTF8.self).debugDescription)
                packed.append(bytes)
            }
            let (a, b) = (pair[0], pair[1])
            XCTAssertEqual(BareID.precedes(packed[0], packed[1]), a.lexicographicallyPrecedes(b), "\(a) \(b)")
            XCTAssertEqual(BareID.precedes(packed[1], packed[0]), b.lexicographicallyPrecedes(a), "\(b) \(a)")
        }
    }

    func testEventExtraKeepsItsIDAndAnswer() {
        let bytes: (UInt64, UInt64) = (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210)
        for kind in BareID.Kind.allCases {
            for answer: Int32 in [-1, 0, 7, (1 << 30) - 2] {
                var extra = EventExtra(packedID: bytes, kind: kind, answer: answer)
                XCTAssertEqual(extra.packedKind, kind)
                XCTAssertEqual(extra.answer, answer)
                withUnsafeBytes(of: extra.id) { id in
                    withUnsafeBytes(of: bytes) { XCTAssertEqual(Array(id), Array($0)) }
                }
                extra.answer = 3
                XCTAssertEqual(extra.packedKind, kind, "the kind survives a new answer")
            }
        }
        var extra = EventExtra(idOffset: (1 << 40) + 5, idCount: 1_000, answer: -1)
        XCTAssertNil(extra.packedKind)
        XCTAssertEqual(extra.idOffset, (1 << 40) + 5)
        XCTAssertEqual(extra.idCount, 1_000)
        XCTAssertEqual(extra.answer, -1)
        extra.idOffset += 3
        extra.answer = 9
        XCTAssertEqual(extra.idOffset, (1 << 40) + 8)
        XCTAssertEqual(extra.idCount, 1_000)
        XCTAssertEqual(extra.answer, 9)
        XCTAssertNil(extra.packedKind)
    }

    func testAnswerRecordKeepsItsFields() {
        for kind in [AnswerKind.select, .multiSelect] {
            for count: Int32 in [0, 1, (1 << 30) - 1] {
                var answer = AnswerRecord(optionsStart: Int(UInt32.max) - 1, question: 3, optionsCount: count, kind: kind)
                XCTAssertEqual(answer.optionsStart, Int(UInt32.max) - 1)
                XCTAssertEqual(answer.optionsCount, count)
                XCTAssertEqual(answer.kind, kind)
                answer.optionsStart = 17
                XCTAssertEqual(answer.optionsStart, 17)
                XCTAssertEqual(answer.optionsCount, count)
                XCTAssertEqual(answer.question, 3)
            }
        }
    }
}
