@testable import AnalyzeKit
import EventGenerator
import XCTest

/// ChainedArray against a plain array: appends, adoptions of other chains
/// (empty ones too), element access and contiguous runs, in random order.
final class ChainedArrayTests: XCTestCase {
    func testMatchesAPlainArrayThroughAppendsAndAdoptions() {
        var rng = SplitMix64(41)
        for round in 0..<50 {
            // Build several chains, each from appends and adoptions of smaller ones.
            var chains: [(chain: ChainedArray<Int>, model: [Int], runs: [Range<Int>])] = []
            for _ in 0..<Int(rng.next() % 6 + 1) {
                var chain = ChainedArray<Int>(), model: [Int] = [], runs: [Range<Int>] = []
                for _ in 0..<Int(rng.next() % 5) {
                    let run = (0..<Int(rng.next() % 7)).map { _ in Int(rng.next() % 1000) }
                    let start = model.count
                    run.withUnsafeBufferPointer { chain.append(contentsOf: $0) }
                    model += run
                    runs.append(start..<model.count)
                    if rng.next() % 3 == 0 {
                        chain.append(-1)
                        model.append(-1)
                    }
                }
                chains.append((chain, model, runs))
            }
            // Merge them in a random tree, as partials merge: chains that
            // already hold adopted segments get adopted in turn.
            while chains.count > 1 {
                let i = Int(rng.next() % UInt64(chains.count - 1))
                var (chain, model, runs) = chains[i]
                let other = chains.remove(at: i + 1)
                let base = model.count
                chain.adopt(other.chain)
                model += other.model
                runs += other.runs.map { ($0.lowerBound + base)..<($0.upperBound + base) }
                chains[i] = (chain, model, runs)
            }
            var (whole, model, runs) = chains[0]
            XCTAssertEqual(whole.count, model.count, "round \(round)")
            XCTAssertEqual((0..<whole.count).map { whole[$0] }, model, "round \(round)")
            for run in runs {
                let elements = whole.withContiguous(from: run.lowerBound, count: run.count) { Array($0) }
                XCTAssertEqual(elements, Array(model[run]), "round \(round), run \(run)")
            }
            whole.updateEach { $0 += 1 }
            XCTAssertEqual((0..<whole.count).map { whole[$0] }, model.map { $0 + 1 }, "round \(round)")
        }
    }
}
