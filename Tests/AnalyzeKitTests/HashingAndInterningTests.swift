@testable import AnalyzeKit
import EventGenerator
import XCTest

/// ByteHash's one-pass pair and the Interner's lookups, against simple models.
final class HashingAndInterningTests: XCTestCase {
    /// `hashPair` reads the bytes once but must equal two `hash` calls (the event
    /// key's two lanes), for every length around the 8-byte word boundaries.
    func testHashPairEqualsTwoSingleHashes() {
        var rng = SplitMix64(11)
        for length in 0...41 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            bytes.withUnsafeBytes { raw in
                let pair = ByteHash.hashPair(raw, seeds: (3, 0x1234_5678_9abc))
                XCTAssertEqual(pair.0, ByteHash.hash(raw, seed: 3), "length \(length)")
                XCTAssertEqual(pair.1, ByteHash.hash(raw, seed: 0x1234_5678_9abc), "length \(length)")
                XCTAssertNotEqual(pair.0, pair.1, "length \(length)")
            }
        }
    }

    /// Ids are dense in first-seen order and exact on bytes (NFC ≠ NFD), whether
    /// the hash is computed inside or handed in (as the batched record path does).
    func testInternerGivesDenseExactIds() {
        var interner = Interner(capacity: 2)
        var model: [[UInt8]: UInt32] = [:]
        var rng = SplitMix64(5)
        let words = ["d1", "d2", "é", "e\u{301}", "", "a-much-longer-identifier-0123456789"].map { Array($0.utf8) }
        for step in 0..<2_000 {
            let word = words[Int(rng.next() % UInt64(words.count))] + (step % 3 == 0 ? Array("\(step % 97)".utf8) : [])
            let expected = model[word] ?? UInt32(model.count)
            let id = word.withUnsafeBytes { step % 2 == 0 ? interner.intern($0) : interner.intern($0, hash: Interner.hash($0)) }
            XCTAssertEqual(id, expected, "step \(step)")
            model[word] = expected
        }
        XCTAssertEqual(interner.count, model.count)
        for (word, id) in model { XCTAssertEqual(interner.bytes(id), word) }
    }

    /// Equal ranges of every length up to 40 compare equal; a difference in any
    /// single byte (first word, middle, the overlapping last word) is seen.
    func testRawBytesEqualityFindsADifferenceAtAnyOffset() {
        var rng = SplitMix64(9)
        for length in 0...40 {
            let a = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            a.withUnsafeBytes { x in
                Array(a).withUnsafeBytes { y in
                    XCTAssertTrue(RawBytes.equal(x.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!,
                                                 y.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: length))
                }
            }
            for offset in 0..<length {
                var b = a
                b[offset] ^= 0x20
                a.withUnsafeBytes { x in
                    b.withUnsafeBytes { y in
                        XCTAssertFalse(RawBytes.equal(x.baseAddress!, y.baseAddress!, count: length), "length \(length), offset \(offset)")
                    }
                }
            }
        }
    }

    func testAbsorbMapsEveryIdOfTheOtherInterner() {
        var a = Interner(), b = Interner()
        for word in ["x", "y"] { _ = Array(word.utf8).withUnsafeBytes { a.intern($0) } }
        for word in ["y", "z", "x"] { _ = Array(word.utf8).withUnsafeBytes { b.intern($0) } }
        let map = a.absorb(b)
        XCTAssertEqual(map, [1, 2, 0])
        XCTAssertEqual((0..<3).map { a.string(UInt32($0)) }, ["x", "y", "z"])
    }
}
