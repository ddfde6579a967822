/// How many threads the whole machine has ready to run at this moment, the
/// caller included: the first number of the fourth field of `/proc/loadavg`
/// (`running/total`).
///
/// ``ChunkFeed`` asks before it lets a waiting worker spin: a spin is free on
/// a core nobody else wants, and costs a core's time when more threads are
/// ready than there are cores.
enum RunnableThreads {
    /// The count now, or nil where `/proc/loadavg` cannot be read.
    ///
    /// Performance: an open, a read and a close, about 5 µs here (in a C
    /// loop), so callers ask now and then, not at every wait.
    static func now() -> Int? {
        UsableCores.readSmallFile("/proc/loadavg").flatMap(count(loadavg:))
    }

    /// The running count in the contents of `/proc/loadavg`
    /// (`0.52 0.58 0.59 2/245 12345`), or nil.
    static func count(loadavg text: String) -> Int? {
        let fields = text.split(separator: " ")
        guard fields.count >= 4, let slash = fields[3].firstIndex(of: "/") else { return nil }
        return Int(fields[3][..<slash])
    }
}
