/// Tests of the synthetic export generator (EventGenerator): determinism, line shape,
/// multi-member gzip round trip, the ground-truth report, and that the simulated world —
/// people installing on devices, identifying, logging out and relaunching — really
/// produces every event type and profile switches of all three triggers (sdk_activate,
/// identify, logout), checked structurally on the generated text.

import CZlib
import EventGenerator
import Foundation
import XCTest

final class EventGeneratorTests: XCTestCase {

    // MARK: helpers

    private func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        var result = body.split(separator: 0x0A, omittingEmptySubsequences: false)
        if result.last?.isEmpty == true { result.removeLast() }
        return result.map { $0.last == 0x0D ? $0.dropLast() : $0 }
    }

    private func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    /// Inflates every gzip member of `data`; returns the text and the member count.
    private func gunzipAll(_ data: [UInt8]) throws -> ([UInt8], Int) {
        var output: [UInt8] = []
        var members = 0
        var offset = 0
        let chunk = 1 << 16
        var buffer = [UInt8](repeating: 0, count: chunk)
        while offset < data.count {
            var stream = z_stream()
            XCTAssertEqual(czlib_inflate_init_gzip(&stream), Z_OK)
            defer { inflateEnd(&stream) }
            var rc: Int32 = Z_OK
            try data.withUnsafeBufferPointer { input in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress! + offset)
                stream.avail_in = UInt32(data.count - offset)
                repeat {
                    rc = buffer.withUnsafeMutableBufferPointer { out in
                        stream.next_out = out.baseAddress
                        stream.avail_out = UInt32(chunk)
                        return inflate(&stream, Z_NO_FLUSH)
                    }
                    guard rc == Z_OK || rc == Z_STREAM_END else {
                        throw NSError(domain: "zlib", code: Int(rc))
                    }
                    output += buffer[0..<(chunk - Int(stream.avail_out))]
                } while rc != Z_STREAM_END
                offset = data.count - Int(stream.avail_in)
            }
            members += 1
        }
        return (output, members)
    }

    /// RFC 3339 (any spelling the generator uses) or epoch milliseconds → nanoseconds;
    /// nil for anything else (the noise's bad timestamps).
    private func instant(_ value: Any) -> Int64? {
        if let n = value as? NSNumber, !(value is String) {
            let (v, overflow) = n.int64Value.multipliedReportingOverflow(by: 1_000_000)
            return overflow ? nil : v
        }
        guard let s = value as? String else { return nil }
        let b = Array(s.utf8)
        guard b.count >= 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x74,
              b[13] == 0x3A, b[16] == 0x3A else { return nil }
        func num(_ r: Range<Int>) -> Int64? {
            var v: Int64 = 0
            for i in r {
                guard i < b.count, b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                v = v * 10 + Int64(b[i] - 0x30)
            }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10),
              let h = num(11..<13), let mi = num(14..<16), let sec = num(17..<19),
              y > 1700, y < 2200 else { return nil }  // (Int64 nanoseconds; the noise has years 0 and 9999)
        var i = 19
        var frac: Int64 = 0
        if b[i] == 0x2E {
            var digits = 0
            i += 1
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39, digits < 9 {
                frac = frac * 10 + Int64(b[i] - 0x30)
                digits += 1
                i += 1
            }
            while digits < 9 { frac *= 10; digits += 1 }
        }
        guard i < b.count else { return nil }
        var offset: Int64 = 0
        if b[i] == 0x2B || b[i] == 0x2D {
            guard let oh = num((i + 1)..<(i + 3)), let om = num((i + 4)..<(i + 6)) else { return nil }
            offset = (oh * 60 + om) * (b[i] == 0x2D ? -1 : 1)
        }
        // days from civil (proleptic Gregorian)
        let yy = mo <= 2 ? y - 1 : y
        let era = yy / 400
        let yoe = yy - era * 400
        let doy = (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1
        let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
        return ((days * 86_400 + h * 3600 + mi * 60 + sec - offset * 60) * 1_000_000_000) + frac
    }

    private struct Parsed {
        var type: String
        var eventId: [UInt8]
        var ns: Int64
        var device: String?
        var profile: String?
    }

    /// Parses lines that Foundation accepts as JSON objects; first occurrence of each event_id.
    private func keptEvents(_ bytes: [UInt8]) -> [Parsed] {
        var seen = Set<[UInt8]>()
        var result: [Parsed] = []
        for line in lines(bytes) where !isBlank(line) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                  let id = object["event_id"] as? String, !id.isEmpty,
                  let type = object["event_type"] as? String,
                  let ts = object["timestamp"], let ns = instant(ts) else { continue }
            let key = Array(id.utf8)
            if !seen.insert(key).inserted { continue }
            result.append(Parsed(type: type, eventId: key, ns: ns,
                                 device: object["device_id"] as? String, profile: object["profile_id"] as? String))
        }
        return result
    }

    // MARK: tests

    func testSameSeedGivesSameBytes() {
        let config = GeneratorConfiguration(seed: 42, events: 3000, noise: 0.05, crlf: true, bom: true)
        let a = generateExport(config)
        let b = generateExport(config)
        XCTAssertFalse(a.isEmpty)
        XCTAssertEqual(a, b)
        // the same generator value writes the same bytes twice, whatever the chunking
        var generator = EventGenerator(config)
        var c: [UInt8] = []
        generator.write { c.append(contentsOf: $0) }
        var d: [UInt8] = []
        generator.write { d.append(contentsOf: $0) }
        XCTAssertEqual(a, c)
        XCTAssertEqual(c, d)
    }

    func testDifferentSeedGivesDifferentBytes() {
        let a = generateExport(GeneratorConfiguration(seed: 1, events: 2000))
        let b = generateExport(GeneratorConfiguration(seed: 2, events: 2000))
        XCTAssertNotEqual(a, b)
    }

    func testCleanLinesAreJSONObjectsOnePerLine() throws {
        let (bytes, report) = generateExportWithReport(GeneratorConfiguration(seed: 7, events: 5000))
        XCTAssertNotNil(String(validating: bytes, as: UTF8.self), "clean output is UTF-8")
        let all = lines(bytes)
        XCTAssertEqual(bytes.last, 0x0A)
        XCTAssertEqual(all.count, report.lines)
        XCTAssertEqual(report.lines, report.events)
        XCTAssertEqual(report.bytes, bytes.count)
        XCTAssertGreaterThan(all.count, 4000)
        XCTAssertLessThan(all.count, 6000)
        for line in all {
            XCTAssertEqual(line.first, 0x7B)
            XCTAssertEqual(line.last, 0x7D)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            XCTAssertNotNil(object["event_id"] as? String)
            XCTAssertNotNil(object["event_type"] as? String)
            XCTAssertNotNil(object["timestamp"])
        }
    }

    func testFlagsShapeTheText() {
        let bytes = generateExport(GeneratorConfiguration(seed: 3, events: 500, crlf: true, bom: true))
        XCTAssertEqual(Array(bytes.prefix(3)), [0xEF, 0xBB, 0xBF])
        let newlines = bytes.filter { $0 == 0x0A }.count
        var crlf = 0
        for i in 1..<bytes.count where bytes[i] == 0x0A && bytes[i - 1] == 0x0D { crlf += 1 }
        XCTAssertEqual(newlines, crlf)
    }

    func testHugeLinesStraddleTheDefaultLimit() {
        let (bytes, report) = generateExportWithReport(GeneratorConfiguration(seed: 5, events: 400, includeHugeLine: true))
        let lengths = lines(bytes).map(\.count).filter { $0 > 1_000_000 }.sorted()
        XCTAssertEqual(lengths, [1_048_576, 1_048_577])
        XCTAssertEqual(report.rejectedByReason[0], 1)
    }

    func testGzipMembersDecompressToThePlainText() throws {
        let config = GeneratorConfiguration(seed: 11, events: 4000, noise: 0.05)
        let plain = generateExport(config)
        let gz = generateGzipExport(config, level: 6, members: 5)
        let (text, members) = try gunzipAll(gz)
        XCTAssertEqual(members, 5)
        XCTAssertEqual(text, plain)

        // streaming, odd chunk sizes, a cut inside a multi-byte character, an empty member
        let snowman: [UInt8] = Array("{\"a\":\"☃☃\"}\n".utf8)
        var out: [UInt8] = []
        let writer = GzipWriter(level: 1, memberBoundaries: [3, 8, 9]) { out.append(contentsOf: $0) }
        try writer.write(Array(snowman[0..<2]))
        try writer.write(Array(snowman[2...]))
        try writer.endMember()
        try writer.endMember()  // empty member
        try writer.finish()
        let (round, n) = try gunzipAll(out)
        XCTAssertEqual(round, snowman)
        XCTAssertEqual(n, 5)
    }

    func testReportMatchesTheText() {
        let (bytes, report) = generateExportWithReport(
            GeneratorConfiguration(seed: 13, events: 30_000, noise: GeneratorConfiguration.defaultNoise, includeHugeLine: true))
        XCTAssertEqual(report.bytes, bytes.count)
        let all = lines(bytes)
        XCTAssertEqual(all.filter { !isBlank($0) }.count, report.lines)
        XCTAssertEqual(all.filter { isBlank($0) }.count, report.blankLines)
        XCTAssertEqual(report.lines, report.events + report.duplicates + report.rejected)
        for (k, reason) in GenerationReport.rejectReasons.enumerated() {
            XCTAssertGreaterThan(report.rejectedByReason[k], 0, reason)
        }
        XCTAssertGreaterThan(report.duplicates, report.conflictingDuplicates)
        XCTAssertGreaterThan(report.conflictingDuplicates, 0)
        XCTAssertGreaterThan(report.blankLines, 0)
        XCTAssertEqual(report.eventsByType.reduce(0, +) + report.unknownEventType, report.events)
        // every noise kind was dealt at least once
        XCTAssertGreaterThanOrEqual(report.noise.count, 130)
    }

    func testNoisyOutputHasEveryEventTypeAndAllSwitchTriggers() {
        let bytes = generateExport(GeneratorConfiguration(seed: 1, events: 30_000, noise: GeneratorConfiguration.defaultNoise))
        let events = keptEvents(bytes)
        let types = Set(events.map(\.type))
        for t in GenerationReport.knownEventTypes + ["paywall_shown", "purchase_completed"] {
            XCTAssertTrue(types.contains(t), t)
        }

        // SPEC 4.2: per device, identity events by (instant, event_id bytes); a switch is a
        // profile change from the previous one, triggered by the event's type.
        var byDevice: [String: [Parsed]] = [:]
        for e in events where ["sdk_activate", "identify", "logout"].contains(e.type) {
            if let d = e.device, e.profile != nil { byDevice[d, default: []].append(e) }
        }
        var triggers: [String: Int] = [:]
        var ties = 0
        for (_, list) in byDevice {
            let sorted = list.sorted { $0.ns != $1.ns ? $0.ns < $1.ns : $0.eventId.lexicographicallyPrecedes($1.eventId) }
            for (a, b) in zip(sorted, sorted.dropFirst()) {
                if a.ns == b.ns { ties += 1 }
                if a.profile != b.profile { triggers[b.type, default: 0] += 1 }
            }
        }
        XCTAssertGreaterThan(triggers["sdk_activate"] ?? 0, 0)
        XCTAssertGreaterThan(triggers["identify"] ?? 0, 0)
        XCTAssertGreaterThan(triggers["logout"] ?? 0, 0)
        XCTAssertGreaterThan(ties, 0, "identity events tied on one device")
        XCTAssertGreaterThan(byDevice.count, 500)
    }

    func testNoiseKeepsTheWorld() {
        // Noise only adds lines (Foundation accepts some rejected lines, e.g. an empty
        // device_id or a repeated profile_id key, hence the filter and the subset test).
        let clean = keptEvents(generateExport(GeneratorConfiguration(seed: 21, events: 8000)))
        let noisy = keptEvents(generateExport(GeneratorConfiguration(seed: 21, events: 8000, noise: 0.2, crlf: true, bom: true)))
        let cleanDevices = Set(clean.compactMap(\.device).filter { !$0.isEmpty })
        let noisyDevices = Set(noisy.compactMap(\.device).filter { !$0.isEmpty })
        XCTAssertTrue(cleanDevices == noisyDevices, "same devices")
        XCTAssertTrue(Set(clean.compactMap(\.profile)).isSubset(of: Set(noisy.compactMap(\.profile))), "same profiles")
        XCTAssertGreaterThan(cleanDevices.count, 200)
    }

    func testNormalizationPairsAreDistinctBytes() {
        let text = generateExport(GeneratorConfiguration(seed: 1, events: 30_000))
        func occurs(_ s: String) -> Bool {
            let needle = Array(s.utf8)
            guard needle.count <= text.count else { return false }
            for i in 0...(text.count - needle.count) where text[i] == needle[0] && Array(text[i..<(i + needle.count)]) == needle {
                return true
            }
            return false
        }
        XCTAssertTrue(occurs("\"id\":\"caf\u{00E9}\""))
        XCTAssertTrue(occurs("\"id\":\"cafe\u{0301}\""))
        XCTAssertTrue(occurs("ren\u{00E9}e."))
        XCTAssertTrue(occurs("rene\u{0301}e."))
    }

    func testInvalidConfigurationIsReported() {
        XCTAssertNil(GeneratorConfiguration().problem)
        XCTAssertNotNil(GeneratorConfiguration(startDate: "2026-02-30").problem)
        XCTAssertNotNil(GeneratorConfiguration(days: 0).problem)
        XCTAssertNotNil(GeneratorConfiguration(noise: 2).problem)
        XCTAssertTrue(generateExport(GeneratorConfiguration(events: 0)).isEmpty)
    }
}
