import Foundation
import XCTest
@testable import AnalyzeKit

/// A scratch directory removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "analyze-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let file = path + "/" + name
        _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
        return file
    }

    @discardableResult
    func write(_ name: String, lines: [String]) -> String {
        write(name, Array(lines.map { $0 + "\n" }.joined().utf8))
    }
}

/// gzip-compresses `bytes` as one member with the system's `gzip`.
func gzip(_ bytes: [UInt8]) -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "gzip -c -6"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try! process.run()
    let writer = Thread {
        input.fileHandleForWriting.write(Data(bytes))
        try? input.fileHandleForWriting.close()
    }
    writer.start()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return [UInt8](data)
}

/// Runs the engine over `lines` (one file) and returns the result.
func analyze(
    lines: [String], timeZone: String = "UTC", threads: Int = 2, maxLineBytes: Int = 1 << 20,
    maxRejectRows: Int = 10_000, file: StaticString = #filePath, line: UInt = #line
) throws -> AnalysisResult {
    let directory = TemporaryDirectory()
    let path = directory.write("events.ndjson", lines: lines)
    var options = AnalyzeOptions(paths: [path], threads: threads)
    options.maximumWorkers = threads  // as many partials as asked, whatever the machine
    options.timeZone = ReportingTimeZone(parsing: timeZone)!
    options.maxLineBytes = maxLineBytes
    options.maxRejectRows = maxRejectRows
    return try Analyzer(options: options).analyze()
}

extension AnalysisResult {
    var installsText: String { String(decoding: installsCSV(), as: UTF8.self) }
    var switchesText: String { String(decoding: profileSwitchesCSV(), as: UTF8.self) }
    var quizText: String { String(decoding: quizAnswersCSV(), as: UTF8.self) }
    var qualityText: String { String(decoding: qualityCSV(), as: UTF8.self) }
    var rejectsText: String { String(decoding: rejectsCSV(), as: UTF8.self) }

    /// A quality metric's value.
    func quality(_ metric: String) -> String? {
        quality.rows.first { $0.0 == metric }?.1
    }
}

/// Builds one event line with the envelope keys in a fixed order.
func event(
    _ id: String, _ type: String, _ timestamp: String, device: String? = "d1", profile: String? = "p1",
    cuid: String? = nil, action: String? = nil
) -> String {
    var fields = ["\"event_id\":\"\(id)\"", "\"event_type\":\"\(type)\"", "\"timestamp\":\"\(timestamp)\""]
    if let device { fields.append("\"device_id\":\"\(device)\"") }
    if let profile { fields.append("\"profile_id\":\"\(profile)\"") }
    if let cuid { fields.append("\"customer_user_id\":\"\(cuid)\"") }
    if let action { fields.append("\"action\":\(action)") }
    return "{" + fields.joined(separator: ",") + "}"
}

/// An `onboarding_state_updated` action answering `element` with `options`.
func answer(_ onboarding: String, _ element: String, _ type: String, _ options: [(String, String, String)]) -> String {
    let objects = options.map { "{\"id\":\"\($0.0)\",\"value\":\"\($0.1)\",\"label\":\"\($0.2)\"}" }
    let value = type == "select" ? objects[0] : "[" + objects.joined(separator: ",") + "]"
    return "{\"elementId\":\"\(element)\",\"meta\":{\"onboardingId\":\"\(onboarding)\",\"screenClientId\":\"s\",\"screenIndex\":0,\"screensTotal\":3},\"params\":{\"type\":\"\(type)\",\"value\":\(value)}}"
}

/// What one parse of a line gave, every string as bytes: two parsers agree
/// on a line when their snapshots are equal.
struct ParseSnapshot: Equatable {
    var reason: RejectReason?
    var type: EventType?
    var answerKind: AnswerKind?
    var fingerprint: UInt64 = 0
    /// onboarding id, element id, name, params type, then id/value/label per
    /// option; nil for an absent field.
    var strings: [[UInt8]?] = []

    init(_ line: [UInt8], _ parser: inout EventParser) {
        self.init(line.withUnsafeBytes { parser.parse($0) }, &parser)
    }

    /// The snapshot of `outcome`, the parser's last parse.
    init(_ outcome: EventParser.Outcome, _ parser: inout EventParser) {
        switch outcome {
        case .rejected(let why):
            reason = why
        case .accepted:
            let event = parser.event
            (type, answerKind, fingerprint) = (event.type, event.answerKind, event.contentFingerprint)
            let p = parser
            func bytes(_ ref: StringRef?) -> [UInt8]? { ref.map { p.withBytes(of: $0) { Array($0) } } }
            strings = [bytes(event.onboardingID), bytes(event.elementID), bytes(event.analyticsName),
                       bytes(event.paramsType)]
            for option in parser.options {
                strings += [bytes(option.id), bytes(option.value), bytes(option.label)]
            }
        }
    }
}
