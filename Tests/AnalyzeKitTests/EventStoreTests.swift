@testable import AnalyzeKit
import EventGenerator
import XCTest

/// The event store against a model: every key keeps its earliest copy in
/// input order (by chunk, then line), every other copy is dropped and
/// counted as conflicting when its content differs from the kept copy's,
/// whatever store saw which chunk, in whatever order, in whatever tree the
/// stores merge, and whether some were settled before merging.
final class EventStoreTests: XCTestCase {
    private func key(_ n: Int) -> EventKey {
        Array("event-\(n)".utf8).withUnsafeBytes { EventKey($0) }
    }

    func testMergedStoresKeepTheEarliestCopyOfEachEvent() {
        var rng = SplitMix64(7)
        // Small rounds, and large ones that span several record segments (so
        // merges adopt partly filled segments into the middle of a list).
        for copies in [1, 2, 17, 300, 1_000, 40_000, 70_000] {
            let distinctKeys = max(1, copies * 2 / 3)
            // Chunks of 1–8 lines; a chunk is read by one store, line by
            // line, and stores read their chunks in any order.
            var chunks: [[Int]] = []
            var lineCount = 0
            while lineCount < copies {
                let lines = min(copies - lineCount, Int(rng.next() % 8) + 1)
                chunks.append(Array(lineCount..<(lineCount + lines)))
                lineCount += lines
            }
            // Each copy: its key, its seconds (its content), its chunk.
            let keys = (0..<copies).map { _ in Int(rng.next() % UInt64(distinctKeys)) }
            let seconds = (0..<copies).map { _ in Int64(rng.next() % 1_000) }
            let storeCount = Int(rng.next() % 5) + 1
            var stores = [EventStore](repeating: EventStore(), count: storeCount)
            for sequence in chunks.indices.shuffled(using: &rng) {
                let target = Int(rng.next() % UInt64(storeCount))
                for id in chunks[sequence] {
                    // Each store numbers identities its own way: store s adds
                    // s to the device. The extra (not content) carries the copy's id.
                    let record = EventRecord(seconds: seconds[id], nanoseconds: 0, extra: Int32(id),
                                             device: UInt32(keys[id] + target), profile: 0,
                                             customerUser: 0, type: .identify)
                    stores[target].append(record, copy: EventCopy(key: key(keys[id]), fingerprint: UInt64(keys[id])),
                                          shard: EventStore.shard(of: key(keys[id])), sequence: sequence)
                }
            }
            // Copies are numbered in input order, so the earliest has the smallest id.
            var earliest: [Int: Int] = [:]
            for id in 0..<copies where earliest[keys[id]] == nil { earliest[keys[id]] = id }
            // Merge in a random tree, as partials merge (stores that already
            // hold adopted records get absorbed in turn); absorbing maps the
            // other store's identities to this store's numbering.
            var tree = stores.enumerated().map { (store: $1, offset: UInt32($0)) }
            while tree.count > 1 {
                let (target0, targetOffset) = tree.remove(at: Int(rng.next() % UInt64(tree.count)))
                let (source, sourceOffset) = tree.remove(at: Int(rng.next() % UInt64(tree.count)))
                var target = target0
                // Settling early must not change what a later settle decides.
                if rng.next() % 2 == 0 { target.settle() }
                target.absorb(source) { r in var r = r; r.device = r.device - sourceOffset + targetOffset; return r }
                tree.append((target, targetOffset))
            }
            var (merged, offset) = tree[0]
            merged.settle()
            XCTAssertEqual(merged.count, earliest.count, "copies \(copies)")
            var kept: [Int: EventRecord] = [:]
            merged.forEachRecord { record in
                let n = Int(record.device - offset)
                XCTAssertNil(kept[n], "a key scanned twice")
                kept[n] = record
                XCTAssertEqual(Int(record.extra), earliest[n], "copies \(copies): the earliest copy is kept")
            }
            XCTAssertEqual(kept.count, earliest.count)
            XCTAssertEqual(merged.droppedRecords.count, copies - earliest.count, "copies \(copies)")
            var droppedIDs = Set<Int>()
            for record in merged.droppedRecords {
                let n = Int(record.device - offset)
                XCTAssertEqual(keys[Int(record.extra)], n, "identities renumbered in dropped copies too")
                XCTAssertNotEqual(Int(record.extra), earliest[n])
                droppedIDs.insert(Int(record.extra))
            }
            XCTAssertEqual(droppedIDs.count, copies - earliest.count, "each later copy dropped once")
            // A dropped copy conflicts when its content (here: its seconds)
            // differs from the earliest copy's.
            let conflicts = (0..<copies).filter { seconds[$0] != seconds[earliest[keys[$0]]!] }.count
            XCTAssertEqual(merged.conflictingDuplicates, conflicts, "copies \(copies)")
            // What only settling reads can then be freed; the records stay.
            merged.releaseCopies()
            var scanned = 0
            merged.forEachRecord { _ in scanned += 1 }
            XCTAssertEqual(scanned, earliest.count)
        }
    }

    /// Releasing the copies leaves each kept bare record's id, and its kind,
    /// where its extra says, with keyed copies and dropped duplicates around.
    func testReleasedBareIDsAreWhereTheirRecordsSay() {
        var rng = SplitMix64(11)
        for bareShare: UInt64 in [100, 60, 0] {
            var store = EventStore()
            var ids: [(UInt64, UInt64)] = []
            var kinds: [BareID.Kind] = []
            var isBare: [Bool] = []
            var expectedBare = 0
            for n in 0..<20_000 {
                // Every tenth event repeats the one before it (a duplicate, dropped).
                let repeated = n % 10 == 9
                ids.append(repeated ? ids[n - 1] : (rng.next(), rng.next()))
                kinds.append(repeated ? kinds[n - 1] : BareID.Kind.allCases[Int(rng.next() % 3)])
                isBare.append(repeated ? isBare[n - 1] : rng.next() % 100 < bareShare)
                var record = EventRecord(seconds: Int64(n), nanoseconds: 0, extra: -1, device: 1, profile: 1,
                                         customerUser: 0, type: .identify)
                if isBare[n] {
                    if !repeated { expectedBare += 1 }
                    record.setBareID(index: 0, kind: kinds[n])
                    store.append(record, copy: EventCopy(packedID: ids[n]),
                                 shard: EventStore.shard(of: EventKey(packedID: ids[n], kind: kinds[n])), sequence: n)
                } else {
                    let key = key(repeated ? n - 1 : n)
                    store.append(record, copy: EventCopy(key: key, fingerprint: 0), shard: EventStore.shard(of: key),
                                 sequence: n)
                }
            }
            store.settle()
            let table = store.releaseCopies()
            var bare = 0
            store.forEachRecord { record in
                let n = Int(record.seconds)
                XCTAssertFalse(n % 10 == 9, "a duplicate kept")
                XCTAssertEqual(record.hasBareID, isBare[n])
                guard record.hasBareID else { return }
                bare += 1
                XCTAssertEqual(record.bareIDKind, kinds[n])
                XCTAssertTrue(table[record.bareIDIndex].bytes == ids[n], "record \(n), \(bareShare) % bare")
            }
            XCTAssertEqual(bare, expectedBare)
        }
    }

    /// A copy's 64-bit fingerprint is folded to 32 bits: both halves count.
    func testFingerprintsFoldBothHalves() {
        let key = key(1)
        let base = EventCopy(key: key, fingerprint: 0x0000_0001_0000_0000).fingerprint
        XCTAssertNotEqual(base, EventCopy(key: key, fingerprint: 0x0000_0002_0000_0000).fingerprint, "high half")
        XCTAssertNotEqual(base, EventCopy(key: key, fingerprint: 0x0000_0001_0000_0001).fingerprint, "low half")
        XCTAssertEqual(EventCopy(key: key, fingerprint: 0).fingerprint, EventCopy.noContent)
    }

    /// A bare copy gives back the 16 bytes it was made of, every bit of both
    /// words (the second word spans the fields a keyed copy uses for the
    /// key's top bits and the fingerprint).
    func testBareCopiesKeepEveryBitOfTheirID() {
        var rng = SplitMix64(3)
        for packed in [(UInt64(0), UInt64(0)), (~UInt64(0), ~UInt64(0)), (0x0123_4567_89AB_CDEF, 0xFFFF_FFFF_0000_0001)]
            + (0..<100).map({ _ in (rng.next(), rng.next()) }) {
            let back = EventCopy(packedID: packed).packedID
            XCTAssertEqual(back.0, packed.0)
            XCTAssertEqual(back.1, packed.1)
        }
    }
}

/// The radix ordering and run sorting used by the metric tables, against the
/// standard library's sort.
final class RadixSortTests: XCTestCase {
    func testGroupSortsByKeyAndKeepsEveryValue() {
        var rng = SplitMix64(11)
        for (count, bits) in [(0, 8), (1, 8), (2, 0), (30, 5), (500, 3), (5_000, 22), (3_000, 40), (2_000, 64),
                              (40_000, 19), (20_000, 33)] {
            // Values carry their starting place, so a lost or repeated value shows.
            var values: [(key: UInt64, origin: Int)] = (0..<count).map { origin in
                (bits == 0 ? 0 : (bits == 64 ? rng.next() : rng.next() % (1 << UInt64(bits))), origin)
            }
            let expectedKeys = values.map(\.key).sorted()
            RadixSort.group(&values) { $0.key }
            XCTAssertEqual(values.map(\.key), expectedKeys, "\(count) keys of \(bits) bits")
            XCTAssertEqual(values.map(\.origin).sorted(), Array(0..<count), "\(count) keys of \(bits) bits")
        }
    }

    /// Groups with fewer than an eighth as many values as a pass has buckets
    /// are sorted by key with the standard sort instead of a pass (26 answers
    /// over 2³⁸ seconds took three passes of 2 048 buckets each): 25–255 values
    /// of wide keys, 256 of 11 bits (the boundary: a pass), equal keys among
    /// them, and 300 values in two far clusters of 100 and 200, which take a
    /// pass and then the sort.
    func testSmallGroupsOfWideKeysAreSortedByKey() {
        var rng = SplitMix64(13)
        var cases: [[UInt64]] = []
        for (count, bits) in [(25, 64), (26, 38), (200, 64), (255, 11), (256, 11), (255, 12)] {
            cases.append((0..<count).map { _ in bits == 64 ? rng.next() : rng.next() % (1 << UInt64(bits)) })
        }
        cases.append((0..<100).map { _ in rng.next() % 2 == 0 ? 0 : 1 << 40 })
        cases.append((0..<26).map { $0 < 25 ? UInt64($0) : 1 << 38 }.reversed())
        cases.append((0..<300).map { $0 % 3 == 0 ? 1 << 40 | rng.next() % (1 << 20) : rng.next() % (1 << 20) })
        for (number, keys) in cases.enumerated() {
            var values = keys.enumerated().map { (key: $0.element, origin: $0.offset) }
            RadixSort.group(&values) { $0.key }
            XCTAssertEqual(values.map(\.key), keys.sorted(), "case \(number)")
            XCTAssertEqual(values.map(\.origin).sorted(), Array(0..<keys.count), "case \(number)")
        }
    }

    /// Short runs are insertion-sorted, longer ones (every tenth group here,
    /// up to 80 values) use the standard sort: both must order each run.
    func testSortRunsOrdersEachGroupInPlace() {
        var rng = SplitMix64(12)
        var values: [(group: Int, value: Int)] = []
        for group in 0..<200 {
            let size = Int(rng.next() % (group % 10 == 0 ? 80 : 6))
            for _ in 0..<size { values.append((group, Int(rng.next() % 50))) }
        }
        // Expected from the values as they were: a sort that lost, doubled or
        // overwrote a value fails too.
        let expected = values.sorted { $0.group != $1.group ? $0.group < $1.group : $0.value < $1.value }
        RadixSort.sortRuns(&values, sameGroup: { $0.group == $1.group }) { $0.value < $1.value }
        XCTAssertEqual(values.map(\.group), expected.map(\.group))
        XCTAssertEqual(values.map(\.value), expected.map(\.value))
    }
}
