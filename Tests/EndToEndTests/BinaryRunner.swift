import Dispatch
import Foundation
import XCTest

/// Runs the built `analyze` binary and captures what a user would see.
struct BinaryRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Written by one reader thread, read after it finished.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}

enum AnalyzeBinary {
    /// The directory holding the built products (`analyze` sits beside the test bundle).
    static var productsDirectory: URL {
        var url = Bundle.main.bundleURL
        for _ in 0..<3 {
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("analyze").path) { return url }
            url = url.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
    }

    static var url: URL { productsDirectory.appendingPathComponent("analyze") }

    /// The repository root (for sample-data/).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `environment` adds variables to this process's own.
    static func run(_ arguments: [String], stdin: Data? = nil, in directory: String? = nil,
                    environment: [String: String] = [:]) throws -> BinaryRun {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            let writer = Thread {
                input.fileHandleForWriting.write(stdin)
                try? input.fileHandleForWriting.close()
            }
            writer.start()
        }
        // Read both pipes concurrently so neither fills up.
        // The semaphore (not polling `Thread.isFinished`) orders the reader's write
        // of `errBox.data` before the read below; ThreadSanitizer checks that.
        let errBox = DataBox()
        let errRead = DispatchSemaphore(value: 0)
        let errReader = Thread {
            errBox.data = err.fileHandleForReading.readDataToEndOfFile()
            errRead.signal()
        }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errRead.wait()
        let errData = errBox.data
        return BinaryRun(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A scratch directory removed when the test ends.
final class Scratch {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "analyze-e2e-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    @discardableResult
    func write(_ name: String, _ data: Data) -> String {
        let file = path + "/" + name
        _ = FileManager.default.createFile(atPath: file, contents: data)
        return file
    }

    /// Every file under `directory` with its bytes (names relative).
    static func snapshot(_ directory: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            files[name] = FileManager.default.contents(atPath: directory + "/" + name)
        }
        return files
    }
}
