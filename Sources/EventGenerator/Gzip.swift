/// Streaming gzip output over zlib (CZlib), for compressed synthetic exports.
///
/// `GzipWriter` deflates a byte stream into one or more gzip members. Member boundaries
/// are offsets in the *uncompressed* stream; they may fall anywhere — inside a line, even
/// inside a multi-byte UTF-8 character — which is what makes multi-member exports a good
/// test for a reader that must treat all members as one continuous text.

import CZlib

public struct GzipError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String
    public var description: String { "zlib error \(code): \(message)" }
}

public final class GzipWriter {
    public let level: Int
    private let stream: UnsafeMutablePointer<z_stream>
    private let outBuffer: UnsafeMutablePointer<UInt8>
    private let outCapacity = 1 << 18
    private let output: (UnsafeRawBufferPointer) throws -> Void
    private var boundaries: [Int]
    private var nextBoundary = 0
    private var initialized = false
    private var memberOpen = false
    private var finished = false
    /// Uncompressed bytes consumed so far.
    public private(set) var position = 0
    /// Compressed bytes produced so far.
    public private(set) var compressedBytes = 0
    /// Members completed so far.
    public private(set) var members = 0

    /// - Parameters:
    ///   - level: zlib level 0...9.
    ///   - memberBoundaries: uncompressed offsets at which a new member starts (ascending;
    ///     offsets ≤ 0 or never reached make no split).
    ///   - output: receives compressed bytes.
    public init(level: Int = 6, memberBoundaries: [Int] = [],
                output: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.level = min(max(level, 0), 9)
        self.output = output
        self.boundaries = memberBoundaries.filter { $0 > 0 }.sorted()
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        outBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: outCapacity)
    }

    deinit {
        if initialized { deflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        outBuffer.deallocate()
    }

    public func write(_ data: UnsafeRawBufferPointer) throws {
        precondition(!finished, "GzipWriter: write after finish")
        guard let base = data.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var offset = 0
        while offset < data.count {
            var n = data.count - offset
            while nextBoundary < boundaries.count && boundaries[nextBoundary] <= position {
                if memberOpen { try endMember() }
                nextBoundary += 1
            }
            if nextBoundary < boundaries.count { n = min(n, boundaries[nextBoundary] - position) }
            try feed(base + offset, n)
            offset += n
            position += n
        }
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Ends the current member; if none is open, writes an empty member.
    public func endMember() throws {
        if !memberOpen { try openMember() }
        try run(flush: Z_FINISH)
        memberOpen = false
        members += 1
    }

    /// Ends the last member. A stream with no data still gets one (empty) member.
    public func finish() throws {
        guard !finished else { return }
        if memberOpen || members == 0 { try endMember() }
        finished = true
    }

    private func openMember() throws {
        let rc: Int32
        if initialized {
            rc = deflateReset(stream)
        } else {
            rc = czlib_deflate_init_gzip(stream, Int32(level))
            initialized = rc == Z_OK
        }
        guard rc == Z_OK else { throw GzipError(code: rc, message: "deflate init failed") }
        memberOpen = true
    }

    private func feed(_ p: UnsafePointer<UInt8>, _ n: Int) throws {
        if !memberOpen { try openMember() }
        var p = p
        var left = n
        while left > 0 {
            let chunk = min(left, Int(UInt32.max >> 1))
            stream.pointee.next_in = UnsafeMutablePointer(mutating: p)
            stream.pointee.avail_in = UInt32(chunk)
            try run(flush: Z_NO_FLUSH)
            p += chunk
            left -= chunk
        }
    }

    private func run(flush: Int32) throws {
        while true {
            stream.pointee.next_out = outBuffer
            stream.pointee.avail_out = UInt32(outCapacity)
            let rc = deflate(stream, flush)
            if rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR {
                throw GzipError(code: rc, message: "deflate failed")
            }
            let produced = outCapacity - Int(stream.pointee.avail_out)
            if produced > 0 {
                compressedBytes += produced
                try output(UnsafeRawBufferPointer(start: outBuffer, count: produced))
            }
            if flush == Z_FINISH {
                if rc == Z_STREAM_END { return }
            } else if stream.pointee.avail_out != 0 {
                return
            }
        }
    }

    /// Compresses `bytes` in memory.
    public static func compress(_ bytes: [UInt8], level: Int = 6, memberBoundaries: [Int] = []) throws -> [UInt8] {
        var out: [UInt8] = []
        let writer = GzipWriter(level: level, memberBoundaries: memberBoundaries) { out.append(contentsOf: $0) }
        try writer.write(bytes)
        try writer.finish()
        return out
    }
}

/// `members - 1` split offsets, strictly increasing inside (0, totalBytes), roughly evenly
/// spaced with seeded jitter — arbitrary byte positions, not line ends.
public func gzipMemberBoundaries(totalBytes: Int, members: Int, seed: UInt64) -> [Int] {
    guard members > 1, totalBytes > 1 else { return [] }
    let k = min(members, totalBytes)
    var rng = Rng(seed: seed, stream: 0x6D65_6D62)
    var result: [Int] = []
    var last = 0
    for i in 1..<k {
        let ideal = Double(totalBytes) * Double(i) / Double(k)
        let span = Double(totalBytes) / Double(k) * 0.4
        var b = Int(ideal + (rng.unit() - 0.5) * span)
        b = max(b, last + 1)
        b = min(b, totalBytes - (k - i))
        result.append(b)
        last = b
    }
    return result
}

/// A gzip export in memory: the plain export split into `members` members.
public func generateGzipExport(_ configuration: GeneratorConfiguration, level: Int = 6, members: Int = 1) -> [UInt8] {
    let plain = generateExport(configuration)
    let cuts = gzipMemberBoundaries(totalBytes: plain.count, members: members, seed: configuration.seed)
    // Compression in memory cannot fail for valid levels.
    return (try? GzipWriter.compress(plain, level: level, memberBoundaries: cuts)) ?? []
}
