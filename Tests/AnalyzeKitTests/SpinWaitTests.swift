import Dispatch
import Synchronization
import XCTest
@testable import AnalyzeKit

/// ``SpinWait`` returns as soon as its condition holds, and gives up only
/// after its limit. (No test bounds how long anything takes from above: the
/// machines are shared.)
final class SpinWaitTests: XCTestCase {
    func testReturnsAtOnceWhenTheConditionAlreadyHolds() {
        var asked = 0
        XCTAssertTrue(SpinWait.until(nanoseconds: 1_000_000) { asked += 1; return true })
        XCTAssertEqual(asked, 1)
    }

    func testWithoutALimitAsksOnce() {
        var asked = 0
        XCTAssertFalse(SpinWait.until(nanoseconds: 0) { asked += 1; return false })
        XCTAssertEqual(asked, 1)
        XCTAssertTrue(SpinWait.until(nanoseconds: 0) { true })
    }

    func testGivesUpOnlyAfterItsLimit() {
        let limit: UInt64 = 2_000_000
        let start = DispatchTime.now().uptimeNanoseconds
        var asked = 0
        XCTAssertFalse(SpinWait.until(nanoseconds: limit) { asked += 1; return false })
        XCTAssertGreaterThanOrEqual(DispatchTime.now().uptimeNanoseconds - start, limit)
        // At least one round of asks (a round preempted past the limit is the only one).
        XCTAssertGreaterThanOrEqual(asked, 32, "it kept asking until the limit")
    }

    /// The clock is read after each round of 32 asks, not before the first
    /// round ends: a limit already over at the first reading (1 ns) still
    /// gets the whole round (found by mutation testing: rounds of one ask
    /// passed).
    func testAsksAWholeRoundBeforeItFirstReadsTheClock() {
        var asked = 0
        XCTAssertFalse(SpinWait.until(nanoseconds: 1) { asked += 1; return false })
        XCTAssertEqual(asked, 32)
    }

    func testSeesAChangeMadeByAnotherThread() {
        let flag = Flag()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            usleep(1_000)
            flag.value.store(true, ordering: .relaxed)
            done.signal()
        }
        // A limit far beyond the other thread's wait: the spin ends on the change.
        XCTAssertTrue(SpinWait.until(nanoseconds: 60_000_000_000) { flag.value.load(ordering: .relaxed) })
        done.wait()
    }
}

private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
