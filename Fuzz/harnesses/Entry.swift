// The libFuzzer entry points shared by every harness of Fuzz/.
//
// Fuzz/run.sh compiles Sources/AnalyzeKit/**/*.swift and Fuzz/harnesses/*.swift into
// one module named AnalyzeKit (so internal types such as EventParser and
// DecodedTextSource are visible) and links one instrumented binary. It is started
// under the harness's name (Fuzz/.build/fuzz-parser, fuzz-gzip, fuzz-pipeline are
// links to it); the name after "fuzz-", or $FUZZ_TARGET, picks the harness.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

enum FuzzTarget: String {
    case parser, gzip, pipeline
}

nonisolated(unsafe) private var selectedTarget = FuzzTarget.parser

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> Int32 {
    var name = ""
    if let override = getenv("FUZZ_TARGET") {
        name = String(cString: override)
    } else if let argv, let first = argv.pointee?.pointee {
        let path = String(cString: first)
        name = String(path.split(separator: "/").last ?? "")
        if name.hasPrefix("fuzz-") { name.removeFirst(5) }
    }
    guard let target = FuzzTarget(rawValue: name) else {
        let message = "analyze-fuzz: unknown harness '\(name)' (run as fuzz-parser, fuzz-gzip or fuzz-pipeline, or set FUZZ_TARGET)\n"
        _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        exit(2)
    }
    selectedTarget = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: size == 0 ? nil : data, count: size)
    switch selectedTarget {
    case .parser: fuzzParser(bytes)
    case .gzip: fuzzGzip(bytes)
    case .pipeline: fuzzPipeline(bytes)
    }
    return 0
}

/// Aborts with a message libFuzzer shows next to the crash input.
func fuzzFailure(_ message: String) -> Never {
    fatalError("fuzz invariant broken: " + message)
}

// MARK: Shared helpers

/// A scratch file in shared memory (or /tmp) that each input is written to, so
/// the engine reads it through its ordinary path-based entry points.
enum ScratchFile {
    nonisolated(unsafe) private static var registered = false

    static func path(_ tag: String) -> String {
        var info = stat()
        let directory = stat("/dev/shm", &info) == 0 ? "/dev/shm" : "/tmp"
        return "\(directory)/analyze-fuzz-\(tag)-\(getpid())"
    }

    /// Replaces the file's contents with `bytes`.
    static func write(_ bytes: [UInt8], to path: String) {
        if !registered {
            registered = true
            atexit { removeScratchFiles() }
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { fuzzFailure("cannot create scratch file \(path)") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            guard n > 0 else { fuzzFailure("cannot write scratch file \(path)") }
            offset += n
        }
    }
}

private func removeScratchFiles() {
    for tag in ["gzip", "pipeline-a", "pipeline-b"] { unlink(ScratchFile.path(tag)) }
}

/// A small deterministic generator for choices derived from the input.
struct InputRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(next() % UInt64(bound)) }
}
