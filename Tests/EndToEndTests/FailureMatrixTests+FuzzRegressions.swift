import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FailureMatrixTests {
    // MARK: Regressions found by fuzzing

    /// Fuzz/regressions/parser/escaped-timestamp-stale-arena (fuzz-parser, invariant 1): a
    /// timestamp string holding a JSON escape was parsed from a stale copy of the
    /// parser's decode arena (`withBytes(of: string(timestampValue, ...))` in
    /// EventParser.parse evaluates `self` before `string` appends to the arena). A
    /// debug build traps on the out-of-range slice; a release build reads whatever
    /// an earlier line left there, so a valid timestamp is rejected and a garbage one
    /// accepted with an earlier line's instant. SPEC §2: escapes are decoded first;
    /// `\u005A` is `Z`.
    func testTimestampsWithJSONEscapesAreDecodedBeforeParsing() throws {
        let scratch = Scratch()
        let lines = [
            #"{"event_id":"a1","event_type":"logout","timestamp":"2026-01-01T00:00:00\u005A","device_id":"d1","profile_id":"p1"}"#,
            #"{"event_id":"a2","event_type":"logout","timestamp":"not a timestamp!!!\u0021\u0021","device_id":"d2","profile_id":"p2"}"#,
            #" {"event_id":"e7","event_type":"foo","timestamp":"2026-06-1TW02:00:\u19e9"}"#,
            #"{"event_id":"a3","event_type":"logout","timestamp":"2026-11-28T09:15:02\u002E123Z","device_id":"d3","profile_id":"p3"}"#,
        ]
        let input = scratch.write("escaped.ndjson", Data(lines.joined(separator: "\n").utf8))
        let out = scratch.path + "/out"
        let run = try Child.run(analyze, ["--quiet", "--threads", "1", "--out", out, input])
        XCTAssertNil(run.signal, "crashed: \(run.stderr.prefix(300))")
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        XCTAssertEqual(try? String(contentsOfFile: out + "/rejects.csv", encoding: .utf8),
                       "file,line,reason\n\(input),2,bad_timestamp\n\(input),3,bad_timestamp\n")
        let quality = (try? String(contentsOfFile: out + "/quality.csv", encoding: .utf8)) ?? ""
        for row in ["events,2", "first_event,2026-01-01T00:00:00.000Z", "last_event,2026-11-28T09:15:02.123Z"] {
            XCTAssertTrue(quality.contains("\n" + row + "\n"), "\(row) in\n\(quality)")
        }
    }
}
