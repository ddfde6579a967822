@testable import AnalyzeKit
import EventGenerator
import XCTest

/// SegmentedArray against plain arrays: single appends and runs (runs that
/// fill a segment up, cross its end, or are longer than a segment), adoptions
/// in a random tree, element access, contiguous runs and in-place updates;
/// the handle the next run gets, and where the handles end (``RunCapacity``).
final class SegmentedArrayTests: XCTestCase {
    /// What a test array should hold: its elements by handle, and its runs.
    private struct Model {
        var elements: [(handle: Int, value: Int)] = []
        var runs: [(handle: Int, values: [Int])] = []

        func shifted(by base: Int) -> Model {
            Model(elements: elements.map { ($0.handle + base, $0.value) },
                  runs: runs.map { ($0.handle + base, $0.values) })
        }
    }

    func testMatchesPlainArraysThroughAppendsAndAdoptions() {
        var rng = SplitMix64(41)
        for round in 0..<12 {
            var arrays: [(array: SegmentedArray<Int>, model: Model)] = []
            for _ in 0..<Int(rng.next() % 5 + 1) {
                var array = SegmentedArray<Int>(), model = Model()
                // 8-byte elements: 131 072 per segment.
                let segment = 1 << array.shift
                XCTAssertEqual(segment, 131_072)
                for _ in 0..<Int(rng.next() % 6) {
                    let length: Int
                    switch rng.next() % 8 {
                    case 0: length = segment - Int(rng.next() % 3)        // about a whole segment
                    case 1: length = segment + Int(rng.next() % 1_000) + 1 // longer than a segment
                    default: length = Int(rng.next() % 40_000)
                    }
                    let run = (0..<length).map { _ in Int(rng.next() % 1_000) }
                    let start = array.startOfNextRun(count: length)
                    let handle = run.withUnsafeBufferPointer { array.append(contentsOf: $0) }
                    XCTAssertEqual(handle, start)
                    model.runs.append((handle, run))
                    for (i, value) in run.enumerated() where length <= segment {
                        model.elements.append((handle + i, value))
                    }
                    for _ in 0..<Int(rng.next() % 4) {
                        let value = Int(rng.next() % 1_000)
                        let start = array.startOfNextRun(count: 1)
                        XCTAssertEqual(array.append(value), start)
                        XCTAssertEqual(array.handleEnd, start + 1)
                        model.elements.append((start, value))
                    }
                }
                arrays.append((array, model))
            }
            // Merge in a random tree, as partials merge.
            while arrays.count > 1 {
                var (target, targetModel) = arrays.remove(at: Int(rng.next() % UInt64(arrays.count)))
                let (source, sourceModel) = arrays.remove(at: Int(rng.next() % UInt64(arrays.count)))
                let base = target.adoptionBase
                let expectedCount = target.count + source.count
                let expectedEnd = target.handleEnd(adopting: source)
                target.adopt(source)
                XCTAssertEqual(target.count, expectedCount)
                XCTAssertEqual(target.handleEnd, expectedEnd)
                let shifted = sourceModel.shifted(by: base)
                targetModel.elements += shifted.elements
                targetModel.runs += shifted.runs
                arrays.append((target, targetModel))
            }
            var (whole, model) = arrays[0]
            // Every handle given is below the end (a run's start at most at it).
            for (handle, _) in model.elements { XCTAssertLessThan(handle, whole.handleEnd, "round \(round)") }
            for (handle, _) in model.runs { XCTAssertLessThanOrEqual(handle, whole.handleEnd, "round \(round)") }
            for (handle, value) in model.elements { XCTAssertEqual(whole[handle], value, "round \(round)") }
            for (handle, values) in model.runs {
                XCTAssertEqual(whole.withContiguous(from: handle, count: values.count) { Array($0) }, values,
                               "round \(round), run at \(handle)")
            }
            whole.updateEach { $0 += 1 }
            for (handle, value) in model.elements { XCTAssertEqual(whole[handle], value + 1, "round \(round)") }
        }
    }

    /// Copies share segments until one changes: then each sees only its own
    /// changes (appends into the shared last segment included).
    /// A batch of unchecked appends after `makeUniqueForAppends()` leaves a
    /// copy made before it untouched: the segments were copied once, first.
    func testAppendsAssumingUniqueFollowACopyMadeUnique() {
        var original = SegmentedArray<Int>()
        for value in 0..<1_000 { original.append(value) }
        var copy = original
        copy.makeUniqueForAppends()
        for value in 0..<100 { copy.appendAssumingUnique(-value - 1) }
        original.makeUniqueForAppends()
        original.appendAssumingUnique(7)
        XCTAssertEqual(original.count, 1_001)
        XCTAssertEqual(copy.count, 1_100)
        XCTAssertEqual(original[1_000], 7)
        XCTAssertEqual(copy[1_000], -1)
        XCTAssertEqual(copy[1_099], -100)
        XCTAssertEqual((0..<1_000).map { original[$0] }, Array(0..<1_000))
        XCTAssertEqual((0..<1_000).map { copy[$0] }, Array(0..<1_000))
    }

    func testCopiesAreIndependentValues() {
        var original = SegmentedArray<Int>()
        for value in 0..<1_000 { original.append(value) }
        var copy = original
        copy.append(-1)
        copy[5] = -5
        original.append(7)
        original[6] = -6
        XCTAssertEqual(original.count, 1_001)
        XCTAssertEqual(copy.count, 1_001)
        XCTAssertEqual(original[1_000], 7)
        XCTAssertEqual(copy[1_000], -1)
        XCTAssertEqual(original[5], 5)
        XCTAssertEqual(copy[5], -5)
        XCTAssertEqual(original[6], -6)
        XCTAssertEqual(copy[6], 6)
        var updated = original
        updated.updateEach { $0 += 1 }
        XCTAssertEqual(original[0], 0)
        XCTAssertEqual(updated[0], 1)
        // Adopting a copy leaves the original whole.
        var target = SegmentedArray<Int>()
        target.append(42)
        let base = target.adoptionBase
        target.adopt(copy)
        XCTAssertEqual(target[base + 1_000], -1)
        XCTAssertEqual(copy[1_000], -1)
        XCTAssertEqual(copy.count, 1_001)
    }

    /// Adopting chains the other array's segments on: its elements stay
    /// where they were (a merge copies nothing).
    func testAdoptionMovesNoElement() {
        var target = SegmentedArray<Int>()
        var source = SegmentedArray<Int>()
        for value in 0..<300_000 { source.append(value) }  // three segments
        target.append(1)
        let addresses = source.handleRanges(from: 0).map { range in
            source.withContiguous(from: range.lowerBound, count: 1) { UInt(bitPattern: $0.baseAddress) }
        }
        let base = target.adoptionBase
        target.adopt(consume source)
        let adopted = target.handleRanges(from: base).map { range in
            target.withContiguous(from: range.lowerBound, count: 1) { UInt(bitPattern: $0.baseAddress) }
        }
        XCTAssertEqual(adopted, addresses)
        XCTAssertEqual(target.count, 300_001)
        XCTAssertEqual(target[base + (2 << target.shift) + 5], 2 * 131_072 + 5)
    }

    /// Regression: an empty run appended after a full last segment got the
    /// handle one past that segment's end, which names the next segment, not
    /// yet allocated (an empty multiSelect answer after exactly 2^18 · k
    /// stored options; reading its zero options looked that segment up).
    func testAnEmptyRunAfterAFullSegmentHasAHandleInsideASegment() {
        var array = SegmentedArray<Int>(shift: 2)  // 4 elements a segment
        let four = [1, 2, 3, 4]
        let first = four.withUnsafeBufferPointer { array.append(contentsOf: $0) }
        XCTAssertEqual(first, 0)
        let empty = [Int]().withUnsafeBufferPointer { array.append(contentsOf: $0) }
        XCTAssertLessThan(empty, array.adoptionBase, "inside an allocated segment")
        XCTAssertEqual(array.withContiguous(from: empty, count: 0) { $0.count }, 0)
        let next = [5].withUnsafeBufferPointer { array.append(contentsOf: $0) }
        XCTAssertEqual(array.withContiguous(from: first, count: 4) { Array($0) }, four)
        XCTAssertEqual(array.withContiguous(from: next, count: 1) { Array($0) }, [5])
        XCTAssertEqual(array.count, 5)
    }

    func testSegmentsHoldAboutOneMebibyte() {
        XCTAssertEqual(SegmentedArray<UInt8>().shift, 20)
        XCTAssertEqual(SegmentedArray<UInt64>().shift, 17)
        // A 24-byte stride: 2¹⁵ elements (768 KiB), as 2¹⁶ would pass 1 MiB.
        XCTAssertEqual(SegmentedArray<(Int, Int, Int)>().shift, 15)
    }
}
