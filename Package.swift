// swift-tools-version:6.0
import PackageDescription

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
        // The engine: input → parsing → metrics → pipeline → output.
        .target(name: "AnalyzeKit", dependencies: ["CZlib"]),
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
