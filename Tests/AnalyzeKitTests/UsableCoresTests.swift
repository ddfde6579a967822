import Foundation
import XCTest
@testable import AnalyzeKit

/// The cores a run may use: its CPU quota read from cgroup v2 files (given
/// here as text), and the count itself within what the machine has; and the
/// machine's ready threads, which decide whether a waiting worker spins.
final class UsableCoresTests: XCTestCase {
    func testCPUMaxGivesWholeCoresRoundedUp() {
        XCTAssertNil(UsableCores.cores(cpuMax: "max 100000\n"), "no limit")
        XCTAssertEqual(UsableCores.cores(cpuMax: "100000 100000\n"), 1)
        XCTAssertEqual(UsableCores.cores(cpuMax: "150000 100000\n"), 2, "1.5 cores: two workers")
        XCTAssertEqual(UsableCores.cores(cpuMax: "400000 100000"), 4)
        XCTAssertEqual(UsableCores.cores(cpuMax: "5000 100000\n"), 1, "a twentieth of a core: still one")
        XCTAssertNil(UsableCores.cores(cpuMax: ""))
        XCTAssertNil(UsableCores.cores(cpuMax: "100000"))
        XCTAssertNil(UsableCores.cores(cpuMax: "0 100000"))
        XCTAssertNil(UsableCores.cores(cpuMax: "-1 100000"))
        XCTAssertNil(UsableCores.cores(cpuMax: "200000 100000 1\n"), "a third field: not cpu.max's QUOTA PERIOD")
    }

    func testTheCgroupV2PathIsTheZeroLine() {
        XCTAssertEqual(UsableCores.cgroupPath("0::/user.slice/job.scope\n"), "/user.slice/job.scope")
        XCTAssertEqual(UsableCores.cgroupPath("12:cpu,cpuacct:/docker/abc\n0::/\n"), "/")
        XCTAssertNil(UsableCores.cgroupPath("12:cpu,cpuacct:/docker/abc\n"), "cgroup v1 only")
        XCTAssertNil(UsableCores.cgroupPath(""))
        XCTAssertNil(UsableCores.cgroupPath("0::batch/job\n"), "not absolute: no directory under /sys/fs/cgroup")
    }

    func testTheQuotaIsTheSmallestOfTheCgroupAndItsAncestors() {
        func quota(_ files: [String: String]) -> Int? {
            UsableCores.cgroupQuota { files[$0] }
        }
        XCTAssertEqual(quota([
            "/proc/self/cgroup": "0::/batch/job\n",
            "/sys/fs/cgroup/batch/job/cpu.max": "max 100000\n",
            "/sys/fs/cgroup/batch/cpu.max": "300000 100000\n",
        ]), 3, "a parent's limit applies")
        XCTAssertEqual(quota([
            "/proc/self/cgroup": "0::/batch/job\n",
            "/sys/fs/cgroup/batch/job/cpu.max": "120000 100000\n",
            "/sys/fs/cgroup/batch/cpu.max": "300000 100000\n",
        ]), 2)
        XCTAssertEqual(quota([
            "/proc/self/cgroup": "0::/\n",
            "/sys/fs/cgroup/cpu.max": "200000 100000\n",
        ]), 2, "a container's own cgroup seen as the root")
        XCTAssertNil(quota(["/proc/self/cgroup": "0::/a/b\n"]), "no cpu.max anywhere")
        XCTAssertNil(quota([:]), "nothing readable")
    }

    func testTheRunnableCountIsLoadavgsRunningField() throws {
        XCTAssertEqual(RunnableThreads.count(loadavg: "0.52 0.58 0.59 2/245 12345\n"), 2)
        XCTAssertEqual(RunnableThreads.count(loadavg: "12.00 9.10 7.30 17/1024 99\n"), 17)
        XCTAssertNil(RunnableThreads.count(loadavg: "0.52 0.58 0.59\n"))
        XCTAssertNil(RunnableThreads.count(loadavg: "0.52 0.58 0.59 x/245 1\n"))
        XCTAssertNil(RunnableThreads.count(loadavg: ""))
        // /proc/loadavg is always there on Linux.
        let now = try XCTUnwrap(RunnableThreads.now())
        XCTAssertGreaterThanOrEqual(now, 1, "the thread that reads it is running")
    }

    /// Four fields are enough: the running count is the fourth's first
    /// number even when nothing follows it (the last pid left out).
    func testTheRunnableCountNeedsNoFifthField() {
        XCTAssertEqual(RunnableThreads.count(loadavg: "0.52 0.58 0.59 3/245"), 3)
        XCTAssertEqual(RunnableThreads.count(loadavg: "0.52 0.58 0.59 3/245\n"), 3)
    }

    func testTheCountIsWithinTheMachine() {
        XCTAssertGreaterThanOrEqual(UsableCores.count, 1)
        XCTAssertLessThanOrEqual(UsableCores.count, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        XCTAssertEqual(UsableCores.onlineCPUs, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        XCTAssertEqual(AnalyzeOptions.activeCores, UsableCores.count)
    }
}
