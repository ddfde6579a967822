import CSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How many cores this process can keep busy at once: the fewest of the
/// online CPUs, the CPUs its affinity mask allows (`taskset`, a container's
/// cpuset), and its cgroup's CPU quota rounded up (cgroup v2 `cpu.max`, as set
/// by `docker --cpus` or systemd's `CPUQuota=`).
///
/// Workers never outnumber these cores: a worker more would only take turns
/// with another on a core, and a worker waiting for the input spins
/// (``ChunkFeed``), which is free only on a core no other worker needs.
enum UsableCores {
    /// The machine's online CPUs.
    static let onlineCPUs = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// The count for this process, read once.
    static let count: Int = {
        var cores = onlineCPUs
        let allowed = Int(analyze_affinity_cpu_count())
        if allowed > 0 { cores = min(cores, allowed) }
        if let quota = cgroupQuota() { cores = min(cores, quota) }
        return max(1, cores)
    }()

    /// The CPU quota of this process's cgroup and of every cgroup above it
    /// (the smallest), in whole cores rounded up; nil without one (no limit,
    /// cgroup v1, or nothing readable).
    static func cgroupQuota(read: (String) -> String? = UsableCores.readSmallFile) -> Int? {
        guard let membership = read("/proc/self/cgroup"), var path = cgroupPath(membership) else { return nil }
        var smallest: Int?
        while true {
            let directory = "/sys/fs/cgroup" + (path == "/" ? "" : path)
            if let text = read(directory + "/cpu.max"), let cores = cores(cpuMax: text) {
                smallest = min(smallest ?? cores, cores)
            }
            guard path != "/", let slash = path.lastIndex(of: "/") else { return smallest }
            path = slash == path.startIndex ? "/" : String(path[..<slash])
        }
    }

    /// The first 4 KiB of the file at `path` as text, or nil when it cannot be
    /// read. Plain `open`/`read`: Foundation's reading throws for a missing
    /// file, and the first thrown error's dynamic casts cost about 1 ms at start.
    static func readSmallFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    /// The cgroup v2 path in the contents of `/proc/self/cgroup` (its `0::`
    /// line), or nil.
    static func cgroupPath(_ membership: String) -> String? {
        for line in membership.split(separator: "\n") where line.hasPrefix("0::") {
            let path = line.dropFirst(3)
            return path.hasPrefix("/") ? String(path) : nil
        }
        return nil
    }

    /// Whole cores (rounded up, at least 1) from the contents of a `cpu.max`
    /// file — `QUOTA PERIOD` in microseconds; nil for `max` (no limit) or
    /// anything else.
    static func cores(cpuMax text: String) -> Int? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 2, let quota = Int(fields[0]), let period = Int(fields[1]), quota > 0, period > 0 else {
            return nil
        }
        return max(1, (quota + period - 1) / period)
    }
}
