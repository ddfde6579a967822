@testable import AnalyzeKit
import CHashKey
import EventGenerator
import XCTest

extension Interner {
    /// The bytes of `id` as a new array (the tables read them in place, by
    /// `withBytes`).
    fileprivate func bytes(_ id: UInt32) -> [UInt8] { withBytes(id) { Array($0) } }

    fileprivate func string(_ id: UInt32) -> String { withBytes(id) { String(decoding: $0, as: UTF8.self) } }
}

/// ByteHash's one-pass pair and the Interner's lookups, against simple models.
final class HashingAndInterningTests: XCTestCase {
    /// `hashPair` reads the bytes once but must equal two `hash` calls (the event
    /// key's two lanes), for every length around the block boundaries.
    func testHashPairEqualsTwoSingleHashes() {
        var rng = SplitMix64(11)
        for length in 0...49 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            bytes.withUnsafeBytes { raw in
                let pair = ByteHash.hashPair(raw, seeds: (3, 0x1234_5678_9abc))
                XCTAssertEqual(pair.0, ByteHash.hash(raw, seed: 3), "length \(length)")
                XCTAssertEqual(pair.1, ByteHash.hash(raw, seed: 0x1234_5678_9abc), "length \(length)")
                XCTAssertNotEqual(pair.0, pair.1, "length \(length)")
            }
        }
    }

    /// Blocks are read with unaligned and overlapping loads; the hash must
    /// equal its definition (``ByteHash``) computed from a byte array,
    /// wherever the bytes sit in memory, for every length around the 4-, 8-
    /// and 16-byte boundaries.
    func testHashMatchesItsBlockDefinition() {
        func model(_ bytes: [UInt8], seed: UInt64) -> UInt64 {
            let p0: UInt64 = 0xa076_1d64_78bd_642f, p1: UInt64 = 0xe703_7ed1_a0b4_28db
            let p2: UInt64 = 0x8ebc_6af0_9c88_c6e3, p3: UInt64 = 0x8a9d_c5b3_e7f1_d9a5
            func mix(_ a: UInt64, _ b: UInt64) -> UInt64 { let m = a.multipliedFullWidth(by: b); return m.high ^ m.low }
            func word(_ at: Int, _ width: Int) -> UInt64 {
                (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
            }
            let n = bytes.count
            let t = seed ^ ByteHash.key
            var h = mix(t ^ p0, p1) ^ (UInt64(n) &* p0)
            var i = 0
            while n - i > 16 {
                h = mix(word(i, 8) ^ p1 ^ h, word(i + 8, 8) ^ p3 ^ t)
                i += 16
            }
            let last: (UInt64, UInt64)
            switch n {
            case 17...: last = (word(n - 16, 8), word(n - 8, 8))
            case 8...16: last = (word(0, 8), word(n - 8, 8))
            case 4...7: last = (word(0, 4), word(n - 4, 4))
            case 1...3: last = (UInt64(bytes[0]) | UInt64(bytes[n / 2]) << 8 | UInt64(bytes[n - 1]) << 16, 0)
            default: last = (0, 0)
            }
            h = mix(last.0 ^ p2 ^ h, last.1 ^ p3 ^ t)
            return mix(h ^ p2, p1 ^ UInt64(n))
        }
        var rng = SplitMix64(23)
        for length in 0...49 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            for offset in 0..<3 {  // unaligned starts, with other bytes before
                let padded = [UInt8](repeating: 0xEE, count: offset) + bytes
                padded.withUnsafeBytes { raw in
                    let slice = UnsafeRawBufferPointer(rebasing: raw[offset...])
                    XCTAssertEqual(ByteHash.hash(slice, seed: 7), model(bytes, seed: 7), "length \(length), offset \(offset)")
                }
            }
        }
    }

    /// Regression (forty-first session): a block whose second word was the
    /// constant `p3` multiplied the state by zero in both lanes, whatever the
    /// seed, so every packed UUID ending in `a5d9-f1e7b3c59d8a` had one event
    /// key. The zero operand now depends on the lane's seed and the key.
    func testNoFixedWordErasesBothLanes() {
        let p3: UInt64 = 0x8a9d_c5b3_e7f1_d9a5
        var keys = Set<EventKey>()
        var tags = Set<UInt64>()
        for first: UInt64 in [0, 1, 0x1111_1111_2222_3333, 0xDEAD_BEEF_0000_4000, 0x0123_4567_89AB_4CDE] {
            keys.insert(EventKey(packedID: (first, p3), kind: .lowerUUID))
            _ = withUnsafeBytes(of: (first, p3)) { tags.insert(ByteHash.hash($0, seed: 0x1d)) }
        }
        XCTAssertEqual(keys.count, 5)
        XCTAssertEqual(tags.count, 5)
        // Neither lane is erased by a second word equal to its own zero operand
        // for the other lane.
        let seeds: (UInt64, UInt64) = (0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344)
        let zeroForLane0 = seeds.0 ^ ByteHash.key ^ p3
        let a = withUnsafeBytes(of: (UInt64(1), zeroForLane0)) { ByteHash.hashPair($0, seeds: seeds) }
        let b = withUnsafeBytes(of: (UInt64(2), zeroForLane0)) { ByteHash.hashPair($0, seeds: seeds) }
        XCTAssertNotEqual(a.1, b.1, "lane 1 keeps the first word")
    }

    /// Regression (sixty-third session, found by a review): `mix` is
    /// symmetric, and the first block's two operands both hid the key as
    /// `w ^ t ^ constant`, so swapping a block's two words and XOR-ing in a
    /// constant of the length alone gave the same hash in both lanes, for
    /// every key and seed: two `customer_user_id`s written that way (printable
    /// at 329 bytes) were one identity, two `event_id`s one event. Each pair
    /// is built as it was then, at the lengths where the swap covers the
    /// first block (16, and 17 up).
    func testSwappedWordsDoNotCollideWhateverTheKey() {
        let p0: UInt64 = 0xa076_1d64_78bd_642f, p1: UInt64 = 0xe703_7ed1_a0b4_28db
        let p2: UInt64 = 0x8ebc_6af0_9c88_c6e3, p3: UInt64 = 0x8a9d_c5b3_e7f1_d9a5
        var rng = SplitMix64(31)
        for length in [16, 32, 33, 48, 100, 329] {
            for _ in 0..<8 {
                let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let c = (length <= 16 ? p2 : p1) ^ p3 ^ (UInt64(length) &* p0)
                var swapped = bytes
                bytes.withUnsafeBytes { raw in
                    let (w0, w1) = (raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                    swapped.withUnsafeMutableBytes { out in
                        out.storeBytes(of: w1 ^ c, as: UInt64.self)
                        out.storeBytes(of: w0 ^ c, toByteOffset: 8, as: UInt64.self)
                    }
                }
                XCTAssertNotEqual(swapped, bytes)
                for seeds: (UInt64, UInt64) in [(0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344), (0xa409_3822_299f_31d0, 0x082e_fa98_ec4e_6c89)] {
                    let a = bytes.withUnsafeBytes { ByteHash.hashPair($0, seeds: seeds) }
                    let b = swapped.withUnsafeBytes { ByteHash.hashPair($0, seeds: seeds) }
                    XCTAssertNotEqual(a.0, b.0, "length \(length), lane 0")
                    XCTAssertNotEqual(a.1, b.1, "length \(length), lane 1")
                }
            }
        }
    }

    /// Every byte counts: changing any one byte of a string, at any length up
    /// to 49, changes both lanes (the overlapping loads must not leave a byte out).
    func testEveryByteChangesTheHash() {
        var rng = SplitMix64(29)
        for length in 1...49 {
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let before = bytes.withUnsafeBytes { ByteHash.hashPair($0, seeds: (1, 2)) }
            for k in 0..<length {
                bytes[k] ^= 0x20
                let after = bytes.withUnsafeBytes { ByteHash.hashPair($0, seeds: (1, 2)) }
                XCTAssertNotEqual(after.0, before.0, "length \(length), byte \(k)")
                XCTAssertNotEqual(after.1, before.1, "length \(length), byte \(k)")
                bytes[k] ^= 0x20
            }
        }
    }

    /// `ANALYZE_HASH_SEED` is read once, in C, by the constructor that sets
    /// the key (CHashKey); `main` asks it whether the value was malformed. Its
    /// reading must be Swift's `UInt64(String)`, as the docs promise, on the
    /// edges (signs, zeros, 2^64 - 1 and 2^64) and on seeded random strings
    /// over digits, signs and a few other bytes.
    func testTheKeysCReadingAgreesWithSwifts() {
        func cReading(_ text: String) -> UInt64? {
            var value: UInt64 = 0xdead
            return analyze_hash_key_parse(text, &value) == 1 ? value : nil
        }
        var cases = ["", "+", "-", "0", "+0", "-0", "-00", "-1", "+5", "007", " 5", "5 ", "0x5", "1e3", "1_000",
                     "18446744073709551615", "+18446744073709551615", "018446744073709551615",
                     "18446744073709551616", "18446744073709551620", "99999999999999999999", "--1", "+-1", "٣"]
        var rng = SplitMix64(51)
        let alphabet = Array("0123456789+- x9".utf8)
        for _ in 0..<20_000 {
            let length = Int(rng.next() % 23)
            let bytes = (0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            cases.append(String(decoding: bytes, as: UTF8.self))
        }
        // Near the top: 2^64 - 1 - k and above, where the overflow check decides.
        for k in 0..<64 as Range<UInt64> {
            cases.append(String(UInt64.max - k))
            cases.append(String(UInt64.max - k) + "0")
        }
        for text in cases {
            XCTAssertEqual(cReading(text), UInt64(text), "'\(text)'")
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

    /// `RawBytes.precedes` is byte order with a proper prefix first, as
    /// `lexicographicallyPrecedes` is, on random ranges of every length up to
    /// 20 over a small alphabet (so prefixes and equal ranges are common),
    /// bytes above 0x7F included (compared unsigned).
    func testRawBytesPrecedesIsByteOrder() {
        var rng = SplitMix64(17)
        let alphabet: [UInt8] = [0x00, 0x41, 0x61, 0x7F, 0x80, 0xFF]
        for _ in 0..<5_000 {
            let a = (0..<Int(rng.next() % 21)).map { _ in alphabet[Int(rng.next() % 6)] }
            let b = rng.next() % 4 == 0 ? a + [alphabet[Int(rng.next() % 6)]] : (0..<Int(rng.next() % 21)).map { _ in alphabet[Int(rng.next() % 6)] }
            a.withUnsafeBytes { x in
                b.withUnsafeBytes { y in
                    XCTAssertEqual(RawBytes.precedes(x, y), a.lexicographicallyPrecedes(b), "\(a) \(b)")
                    XCTAssertEqual(RawBytes.precedes(y, x), b.lexicographicallyPrecedes(a), "\(b) \(a)")
                    let order = RawBytes.compare(x, y)
                    XCTAssertEqual(order < 0, a.lexicographicallyPrecedes(b), "\(a) \(b)")
                    XCTAssertEqual(order == 0, a == b, "\(a) \(b)")
                    XCTAssertEqual(order > 0, b.lexicographicallyPrecedes(a), "\(a) \(b)")
                }
            }
        }
    }

    /// Strings whose hashes are equal are still told apart by their bytes,
    /// also when one is a prefix of another (the stored string is longer
    /// than the one looked up). Regression (mutation testing): a length
    /// check that let a longer stored string match passed every test.
    func testInternerTellsApartAStringAndItsPrefixUnderOneHash() {
        var interner = Interner(capacity: 2)
        let hash: UInt64 = 0x1234_5678_9abc_def0  // handed in: every word gets the same
        let words = ["option-b", "option", "opt", ""].map { Array($0.utf8) }
        for round in 0..<2 {
            for (i, word) in words.enumerated() {
                XCTAssertEqual(word.withUnsafeBytes { interner.intern($0, hash: hash) }, UInt32(i), "round \(round)")
            }
        }
        XCTAssertEqual(interner.count, 4)
        XCTAssertEqual((0..<min(interner.count, 4)).map { interner.bytes(UInt32($0)) }, Array(words.prefix(interner.count)))
    }

    func testAbsorbMapsEveryIdOfTheOtherInterner() {
        var a = Interner(), b = Interner()
        for word in ["x", "y"] { _ = Array(word.utf8).withUnsafeBytes { a.intern($0) } }
        for word in ["y", "z", "x"] { _ = Array(word.utf8).withUnsafeBytes { b.intern($0) } }
        let map = a.absorb(b)
        XCTAssertEqual(map, [1, 2, 0])
        XCTAssertEqual((0..<3).map { a.string(UInt32($0)) }, ["x", "y", "z"])
    }

    /// Absorbing an interner far larger than this one's table, so that the
    /// table grows several times during the merge, gives each of the other's
    /// strings the id that interning it here one by one gives, and leaves
    /// every earlier id as it was (a merge as the workers' partials do it;
    /// named as untested by a review).
    func testAbsorbingALargerInternerMapsLikeInterningOneByOne() {
        var rng = SplitMix64(37)
        func word() -> [UInt8] { Array("w\(rng.next() % 3_000)".utf8) }
        var mine = Interner(capacity: 64), other = Interner(capacity: 64)
        for _ in 0..<200 { _ = word().withUnsafeBytes { mine.intern($0) } }
        for _ in 0..<6_000 { _ = word().withUnsafeBytes { other.intern($0) } }
        var model = mine
        let before = (0..<mine.count).map { mine.bytes(UInt32($0)) }
        let map = mine.absorb(other)
        XCTAssertEqual(map.count, other.count)
        for id in 0..<other.count {
            XCTAssertEqual(map[id], other.withBytes(UInt32(id)) { model.intern($0) }, "id \(id)")
            XCTAssertEqual(mine.bytes(map[id]), other.bytes(UInt32(id)), "id \(id)")
        }
        XCTAssertEqual(mine.count, model.count)
        XCTAssertGreaterThan(mine.count, 2_000)
        XCTAssertEqual((0..<before.count).map { mine.bytes(UInt32($0)) }, before)
    }

    /// Identity ids are dense in first-seen order, equal bytes share one id
    /// and different bytes (NFC ≠ NFD, a byte apart) never do, through growth
    /// from a tiny table; absorbing maps each of the other table's ids to the
    /// id of the same bytes; the count survives releasing the index.
    func testIdentityTableGivesDenseIdsByKey() {
        var rng = SplitMix64(6)
        var tables = [IdentityTable(capacity: 2), IdentityTable(capacity: 2)]
        var models: [[[UInt8]: UInt32]] = [[:], [:]]
        let words = ["d1", "d2", "é", "e\u{301}", "", "0F4BE9FA-9E89-4FF5-931B-E3D80B96A967"].map { Array($0.utf8) }
        for step in 0..<20_000 {
            let word = words[Int(rng.next() % UInt64(words.count))] + Array("\(rng.next() % 3_000)".utf8)
            let t = Int(rng.next() % 2)
            let expected = models[t][word] ?? UInt32(models[t].count)
            let id = word.withUnsafeBytes { tables[t].intern(IdentityTable.Key($0)) }
            XCTAssertEqual(id, expected, "step \(step)")
            models[t][word] = expected
        }
        XCTAssertEqual(tables[0].count, models[0].count)
        let map = tables[0].absorb(tables[1])
        var merged = models[0]
        for (word, id) in models[1].sorted(by: { $0.value < $1.value }) {
            let expected = merged[word] ?? UInt32(merged.count)
            merged[word] = expected
            XCTAssertEqual(map[Int(id)], expected)
        }
        XCTAssertEqual(tables[0].count, merged.count)
        tables[0].releaseIndex()
        XCTAssertEqual(tables[0].count, merged.count)
    }

    /// A table of more than 2¹⁵ identities is absorbed in parts looked up
    /// concurrently, then the new ones added: the ids must still be those
    /// that interning the other table's keys one by one, in id order, gives.
    /// The merged table's keys fill more than one segment.
    func testAbsorbingALargeTableGivesTheIdsOfInterningInOrder() {
        var rng = SplitMix64(41)
        func key(_ n: Int) -> IdentityTable.Key { Array("device-\(n)".utf8).withUnsafeBytes { IdentityTable.Key($0) } }
        var table = IdentityTable(capacity: 16)
        var reference = IdentityTable(capacity: 16)
        var other = IdentityTable(capacity: 16)
        // 60 000 identities here; 100 000 there, in shuffled order, 24 000 of them also here.
        for n in 0..<60_000 {
            XCTAssertEqual(table.intern(key(n)), UInt32(n))
            _ = reference.intern(key(n))
        }
        var theirs = Array(36_000..<136_000)
        for i in theirs.indices.reversed() { theirs.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
        for n in theirs { _ = other.intern(key(n)) }
        XCTAssertEqual(other.count, 100_000)

        let map = table.absorb(other)
        XCTAssertEqual(map.count, 100_000)
        for (id, n) in theirs.enumerated() {
            let expected = reference.intern(key(n))  // interned one by one, in the other table's id order
            XCTAssertEqual(map[id], expected, "identity \(n)")
            if map[id] != expected { break }
        }
        XCTAssertEqual(table.count, 136_000)
        XCTAssertEqual(table.find(key(59_999)), 59_999)
        XCTAssertEqual(table.find(key(36_000)), map[theirs.firstIndex(of: 36_000)!])
        XCTAssertNil(table.find(key(136_000)))
        // Ids past the first segment of keys (2¹⁷ of them) are found by their keys too.
        var pastFirstSegment = 0
        for (id, n) in theirs.enumerated() where map[id] >= 1 << 17 {
            XCTAssertEqual(table.find(key(n)), map[id], "identity \(n)")
            pastFirstSegment += 1
        }
        XCTAssertEqual(pastFirstSegment, 136_000 - (1 << 17))
    }
}
