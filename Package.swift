// swift-tools-version:6.0
import Foundation
import PackageDescription

// ISA-L's inflate is about twice as fast as zlib's. It is used when its header is
// installed (Debian: libisal-dev) — no flag needed; zlib is the path that always
// builds. ANALYZE_INFLATER=zlib forces zlib (CI tests both; use a fresh
// --scratch-path, since SwiftPM caches the evaluated manifest).
let useISAL = ProcessInfo.processInfo.environment["ANALYZE_INFLATER"] != "zlib"
    && FileManager.default.fileExists(atPath: "/usr/include/isa-l/igzip_lib.h")

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
        // Small C helpers (glibc's mallopt).
        .systemLibrary(name: "CSupport"),
        // ISA-L's inflate (Debian: libisal-dev), linked only when `useISAL`.
        .systemLibrary(name: "CISAL", providers: [.apt(["libisal-dev"])]),
        // The engine: input → parsing → metrics → pipeline → output.
        .target(
            name: "AnalyzeKit",
            dependencies: useISAL ? ["CZlib", "CSupport", "CISAL"] : ["CZlib", "CSupport"],
            swiftSettings: useISAL ? [.define("ANALYZE_ISAL")] : []
        ),
        // The thin command-line front end.
        .executableTarget(name: "analyze", dependencies: ["AnalyzeKit"]),
        // Deterministic, seeded synthetic exports for tests, samples and benchmarks.
        .target(name: "EventGenerator", dependencies: ["CZlib"]),
        .executableTarget(name: "generate-events", dependencies: ["EventGenerator"]),
        .testTarget(name: "AnalyzeKitTests", dependencies: ["AnalyzeKit", "EventGenerator"]),
        .testTarget(name: "EndToEndTests", dependencies: ["AnalyzeKit", "EventGenerator"]),
    ],
    swiftLanguageModes: [.v6]
)
