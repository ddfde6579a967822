// swift-tools-version:6.0
import Foundation
import PackageDescription

// The gzip inflater, chosen when the manifest is evaluated (no flag needed):
// ISA-L's inflate when its header is installed (Debian: libisal-dev), else the
// built-in one written in Swift (Input/DeflateDecoder.swift), faster than zlib's on
// the benchmark exports. ANALYZE_INFLATER=builtin or =zlib forces one of those
// (CI tests all three; use a fresh --scratch-path, since SwiftPM caches the
// evaluated manifest). zlib is linked in every build (CRC-32 fallback, the generator).
let inflaterChoice = ProcessInfo.processInfo.environment["ANALYZE_INFLATER"]
let useISAL = inflaterChoice != "zlib" && inflaterChoice != "builtin"
    && FileManager.default.fileExists(atPath: "/usr/include/isa-l/igzip_lib.h")
let inflaterDefines: [SwiftSetting] = useISAL ? [.define("ANALYZE_ISAL")]
    : inflaterChoice == "zlib" ? [.define("ANALYZE_ZLIB_INFLATE")] : []

// The release `analyze` links the Swift runtime and Foundation statically when the
// toolchain beside the `swift` on PATH has them (`lib/swift_static`) and its `ld.lld`:
// no flag needed. It then starts in about 4 ms instead of 10 and has about 6 MB less
// resident (the shared libraries' pages), and runs without the toolchain's libraries.
// lld because GNU gold warns about a `mktemp` inside static Foundation. Debug builds
// and tests stay dynamic (XCTest links Foundation dynamically). ANALYZE_STDLIB=dynamic
// turns it off (a fresh --scratch-path, as for ANALYZE_INFLATER).
/// Static Foundation's own libraries, which the link must name (see below).
let staticFoundationDependencies = [
    "FoundationEssentials", "FoundationInternationalization", "CoreFoundation", "_FoundationCShims",
    "_FoundationCollections", "_FoundationICU",
]

let staticStdlib: Bool = {
    let environment = ProcessInfo.processInfo.environment
    guard environment["ANALYZE_STDLIB"] != "dynamic" else { return false }
    let files = FileManager.default
    for directory in (environment["PATH"] ?? "").split(separator: ":") {
        let swift = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift")
        guard files.isExecutableFile(atPath: swift.path) else { continue }
        let bin = swift.resolvingSymlinksInPath().deletingLastPathComponent()
        let staticLibraries = bin.deletingLastPathComponent().appendingPathComponent("lib/swift_static/linux")
        // Every library the link names, so that a toolchain laid out otherwise
        // gets the dynamic build rather than a failing link.
        let allPresent = (["swiftCore", "Foundation"] + staticFoundationDependencies).allSatisfy {
            files.fileExists(atPath: staticLibraries.appendingPathComponent("lib\($0).a").path)
        }
        return allPresent && files.isExecutableFile(atPath: bin.appendingPathComponent("ld.lld").path)
    }
    return false
}()

/// Settings of the release `analyze` for a static Swift runtime and Foundation.
/// With `-static-stdlib` on its own, the link misses static Foundation's
/// dependencies (AnalyzeKit is compiled against the shared modules, whose
/// autolink entries name only the shared libraries), so they are named here.
let staticRelease = BuildSettingCondition.when(configuration: .release)
let analyzeSwiftSettings: [SwiftSetting] = staticStdlib ? [.unsafeFlags(["-static-stdlib"], staticRelease)] : []
let analyzeLinkerSettings: [LinkerSetting] = staticStdlib
    ? [.unsafeFlags(["-static-stdlib", "-use-ld=lld"], staticRelease)]
        + staticFoundationDependencies.map { .linkedLibrary($0, staticRelease) }
    : []

let package = Package(
    name: "analyze",
    products: [
        .executable(name: "analyze", targets: ["analyze"]),
        .executable(name: "generate-events", targets: ["generate-events"]),
        .library(name: "AnalyzeKit", targets: ["AnalyzeKit"]),
    ],
    targets: [
        // zlib from the system (Debian: zlib1g-dev). The shim wraps the
        // function-like macros `inflateInit2` / `deflateInit2`, which Swift cannot call.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Small C helpers: glibc's mallopt, prefetch, affinity, renameat2, SSE2 scans, CRC-32.
        .systemLibrary(name: "CSupport"),
        // The thread that takes SIGINT/SIGTERM/SIGHUP/SIGXCPU and removes temporary
        // outputs, in C (its header says why not a signal handler).
        .target(name: "CInterrupt"),
        // The hashes' per-run key, set before `main` (its header says why in C).
        .target(name: "CHashKey"),
        // ISA-L's inflate (Debian: libisal-dev), linked only when `useISAL`.
        .systemLibrary(name: "CISAL", providers: [.apt(["libisal-dev"])]),
        // The engine: input → parsing → metrics → pipeline → output.
        .target(
            name: "AnalyzeKit",
            dependencies: ["CZlib", "CSupport", "CInterrupt", "CHashKey"] + (useISAL ? ["CISAL"] : []),
            swiftSettings: inflaterDefines
        ),
        // The thin command-line front end.
        .executableTarget(
            name: "analyze", dependencies: ["AnalyzeKit"],
            swiftSettings: analyzeSwiftSettings, linkerSettings: analyzeLinkerSettings),
        // Deterministic, seeded synthetic exports for tests, samples and benchmarks.
        .target(name: "EventGenerator", dependencies: ["CZlib"]),
        .executableTarget(name: "generate-events", dependencies: ["EventGenerator"]),
        .testTarget(name: "AnalyzeKitTests", dependencies: ["AnalyzeKit", "CHashKey", "EventGenerator"]),
        .testTarget(name: "EndToEndTests", dependencies: ["AnalyzeKit", "EventGenerator"]),
    ],
    swiftLanguageModes: [.v6]
)
