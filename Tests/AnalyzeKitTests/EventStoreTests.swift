@testable import AnalyzeKit
import EventGenerator
import XCTest

/// The event store against a model: every key keeps its copy with the
/// smallest position, every other copy is dropped and counted as conflicting
/// when its content differs from the kept copy's, whatever store saw which
/// copy, in whatever tree the stores merge, and whether some were settled
/// before merging.
final class EventStoreTests: XCTestCase {
    private func key(_ n: Int) -> EventKey {
        Array("event-\(n)".utf8).withUnsafeBytes { EventKey($0) }
    }

    private func record(key n: Int, position: UInt64, seconds: Int64, device: UInt32) -> EventRecord {
        EventRecord(key: key(n), position: position, seconds: seconds, fingerprint: UInt64(n), nanoseconds: 0,
                    extra: -1, device: device, profile: 0, customerUser: 0, type: .identify)
    }

    func testMergedStoresKeepTheEarliestCopyOfEachEvent() {
        var rng = SplitMix64(7)
        // Small rounds, and large ones that span several record segments (so
        // merges adopt partly filled segments into the middle of a list).
        for copies in [1, 2, 17, 300, 1_000, 40_000, 70_000] {
            let distinctKeys = max(1, copies * 2 / 3)
            // Unique positions in a random order; some keys get several copies.
            var positions = Array(0..<UInt64(copies))
            positions.shuffle(using: &rng)
            let storeCount = Int(rng.next() % 5) + 1
            var stores = [EventStore](repeating: EventStore(), count: storeCount)
            var earliest: [EventKey: (position: UInt64, seconds: Int64)] = [:]
            var copiesPerKey: [EventKey: [Int64]] = [:]
            for position in positions {
                let n = Int(rng.next() % UInt64(distinctKeys))
                let seconds = Int64(rng.next() % 1_000)
                // Each store numbers identities its own way: store s adds s.
                let target = Int(rng.next() % UInt64(storeCount))
                stores[target].append(record(key: n, position: position, seconds: seconds, device: UInt32(n + target)))
                let k = key(n)
                copiesPerKey[k, default: []].append(seconds)
                if earliest[k].map({ position < $0.position }) ?? true { earliest[k] = (position, seconds) }
            }
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
            var seen: [EventKey: EventRecord] = [:]
            merged.forEachRecord { record in
                XCTAssertNil(seen[record.key], "a key scanned twice")
                seen[record.key] = record
                XCTAssertEqual(record.position, earliest[record.key]?.position)
                XCTAssertEqual(record.seconds, earliest[record.key]?.seconds)
                XCTAssertEqual(record.key, key(Int(record.device - offset)), "identities renumbered")
            }
            XCTAssertEqual(seen.count, earliest.count)
            let droppedCount = copiesPerKey.values.reduce(0) { $0 + $1.count - 1 }
            XCTAssertEqual(merged.dropped.count, droppedCount, "copies \(copies)")
            for copy in merged.dropped {
                let kept = seen[copy.key]
                XCTAssertNotNil(kept)
                XCTAssertLessThan(kept!.position, copy.position)
                XCTAssertEqual(copy.device, kept!.device, "identities renumbered in dropped copies too")
            }
            // A dropped copy conflicts when its content (here: its seconds)
            // differs from the earliest copy's.
            let conflicts = copiesPerKey.reduce(0) { count, entry in
                count + entry.value.filter { $0 != earliest[entry.key]!.seconds }.count
            }
            XCTAssertEqual(merged.conflictingDuplicates, conflicts, "copies \(copies)")
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

    func testSortRunsOrdersEachGroupInPlace() {
        var rng = SplitMix64(12)
        var values: [(group: Int, value: Int)] = []
        for group in 0..<200 {
            for _ in 0..<Int(rng.next() % 6) { values.append((group, Int(rng.next() % 50))) }
        }
        RadixSort.sortRuns(&values, sameGroup: { $0.group == $1.group }) { $0.value < $1.value }
        let expected = values.sorted { $0.group != $1.group ? $0.group < $1.group : $0.value < $1.value }
        XCTAssertEqual(values.map(\.group), expected.map(\.group))
        XCTAssertEqual(values.map(\.value), expected.map(\.value))
    }
}
