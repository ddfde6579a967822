@testable import AnalyzeKit
import CSupport
import EventGenerator
import XCTest

/// Event ids kept as packed UUIDs: exact round trips, only canonical text
/// packed, and ordering ties settled on the text as it was in the input.
final class PackedUUIDTests: XCTestCase {
    private func pack(_ text: String) -> (bytes: [UInt8], letterCase: PackedUUID.Case)? {
        var bytes = [UInt8](repeating: 0, count: 16)
        let letterCase = Array(text.utf8).withUnsafeBytes { text in
            bytes.withUnsafeMutableBytes { PackedUUID.pack(text, into: $0) }
        }
        return letterCase.map { (bytes, $0) }
    }

    private func unpack(_ bytes: [UInt8], _ letterCase: PackedUUID.Case) -> String {
        var text = [UInt8](repeating: 0, count: 36)
        bytes.withUnsafeBytes { bytes in text.withUnsafeMutableBytes { PackedUUID.unpack(bytes, case: letterCase, into: $0) } }
        return String(decoding: text, as: UTF8.self)
    }

    func testCanonicalUUIDsRoundTripExactly() {
        let packed = pack("6d15dece-4af8-4180-bf11-6bf5966b692f")
        XCTAssertEqual(packed?.bytes, [0x6d, 0x15, 0xde, 0xce, 0x4a, 0xf8, 0x41, 0x80,
                                       0xbf, 0x11, 0x6b, 0xf5, 0x96, 0x6b, 0x69, 0x2f])
        XCTAssertEqual(packed?.letterCase, .lower)
        for text in ["6d15dece-4af8-4180-bf11-6bf5966b692f", "0F4BE9FA-9E89-4FF5-931B-E3D80B96A967",
                     "12345678-1234-1234-1234-123456789012", "00000000-0000-0000-0000-000000000000",
                     "ffffffff-ffff-ffff-ffff-ffffffffffff"] {
            guard let (bytes, letterCase) = pack(text) else { return XCTFail("\(text) not packed") }
            XCTAssertEqual(unpack(bytes, letterCase), text)
        }
    }

    func testOnlyCanonicalTextIsPacked() {
        for text in ["6d15dece-4af8-4180-bf11-6bf5966b692F",   // both cases
                     "6d15dece-4af8-4180-bf11-6bf5966b692",    // 35 bytes
                     "6d15dece-4af8-4180-bf11-6bf5966b692ff",  // 37 bytes
                     "6d15dece4af8-4180-bf11-6bf5966b692f-",   // hyphens moved
                     "6d15dece-4af8-4180-bf11-6bf5966b692g",   // not hex
                     "{d15dece-4af8-4180-bf11-6bf5966b692}", "", "e1"] {
            XCTAssertNil(pack(text), text)
        }
    }

    /// The SSE2 packer (``PackedUUID/pack(_:into:)``) against the portable
    /// table one it replaced: the same verdict and, for a UUID, the same
    /// bytes, for canonical ids in each case and every id one byte away from
    /// them (each position set to each of the 256 byte values).
    func testVectorPackerAgreesWithTheTableOne() {
        var rng = SplitMix64(41)
        let lower = Array("0123456789abcdef".utf8), upper = Array("0123456789ABCDEF".utf8)
        for round in 0..<24 {
            var text = [UInt8]()
            for k in 0..<36 {
                if k == 8 || k == 13 || k == 18 || k == 23 { text.append(UInt8(ascii: "-")); continue }
                let digits = round % 3 == 0 ? lower : round % 3 == 1 ? upper : (rng.next() % 2 == 0 ? lower : upper)
                text.append(digits[Int(rng.next() % 16)])
            }
            for position in 0..<36 {
                let original = text[position]
                for value in 0...255 {
                    text[position] = UInt8(value)
                    var vector = [UInt8](repeating: 0, count: 16), table = [UInt8](repeating: 0, count: 16)
                    let (v, t) = text.withUnsafeBufferPointer { source in
                        (analyze_pack_uuid(source.baseAddress!, &vector), analyze_pack_uuid_portable(source.baseAddress!, &table))
                    }
                    XCTAssertEqual(v, t, "round \(round), byte \(position) = \(value)")
                    if t != 0 { XCTAssertEqual(vector, table, "round \(round), byte \(position) = \(value)") }
                }
                text[position] = original
            }
        }
    }

    /// Identity events of one device at one instant: their order, and so the
    /// switches, follows the ids' bytes, whatever mix of packed (lowercase,
    /// uppercase, short) and unpacked ids they have.
    func testTiesFollowTheIdsBytesAcrossPackedAndPlainIds() throws {
        var rng = SplitMix64(5)
        let hex = Array("0123456789abcdef")
        func uuid(_ prefix: String) -> String {
            var digits = Array(prefix)
            while digits.count < 32 { digits.append(hex[Int(rng.next() % 16)]) }
            let s = String(digits)
            let i = s.startIndex
            func part(_ a: Int, _ b: Int) -> Substring { s[s.index(i, offsetBy: a)..<s.index(i, offsetBy: b)] }
            return "\(part(0, 8))-\(part(8, 12))-\(part(12, 16))-\(part(16, 20))-\(part(20, 32))"
        }
        for round in 0..<6 {
            var ids = Set<String>()
            while ids.count < 24 {
                let base = uuid(["ab", "AB", "a", "1", "0f"][Int(rng.next() % 5)])
                switch rng.next() % 7 {
                case 0: ids.insert(base.uppercased())
                case 1: ids.insert(base)
                case 2: ids.insert(String(base.dropLast()))          // 35 bytes: plain
                case 3: ids.insert(base.prefix(35) + "Z")             // not hex: plain
                case 4: ids.insert(String(base.prefix(Int(rng.next() % 16) + 1)))  // 1–16 bytes: short
                case 5: ids.insert(base.prefix(16) + "-")             // 17 bytes: plain
                default: ids.insert(base.prefix(1).uppercased() + base.dropFirst())  // mixed case: plain
                }
            }
            let events = ids.map { (id: $0, profile: "p\(rng.next() % 2)") }
            let lines = events.shuffled(using: &rng).map {
                event($0.id, "sdk_activate", "2026-11-02T10:00:00.000Z", device: "d1", profile: $0.profile)
            }
            let ordered = events.sorted { Array($0.id.utf8).lexicographicallyPrecedes(Array($1.id.utf8)) }
            var expected = 0
            for (previous, next) in zip(ordered, ordered.dropFirst()) where previous.profile != next.profile {
                expected += 1
            }
            let result = try analyze(lines: lines, threads: 1 + round % 2)
            let switches = result.profileSwitches.reduce(0) { $0 + $1.switches }
            XCTAssertEqual(switches, expected, "round \(round)")
        }
    }
}
