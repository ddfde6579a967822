import Foundation
import XCTest
@testable import AnalyzeKit

/// Reading a zone from a compiled TZif file (`ZoneInfoFile`) and following
/// the POSIX TZ string at its end (`PosixTimeZoneRule`). The files are written
/// here byte by byte, so these tests do not depend on the host's tzdata.
/// Day numbers by hand: 2026-01-01 is day 20 454, so 2026-03-08 is 20 520,
/// 2026-03-29 20 541, 2026-04-05 20 548, 2026-10-04 20 730, 2026-10-25 20 751
/// and 2026-11-01 20 758.
final class ZoneInfoFileTests: XCTestCase {
    // MARK: POSIX TZ strings

    func testNorthernRuleChangesAtLocalTwoOClock() throws {
        let rule = try XCTUnwrap(PosixTimeZoneRule("PST8PDT,M3.2.0,M11.1.0"))
        XCTAssertEqual(rule.standardOffset, -28_800)
        XCTAssertEqual(rule.daylight?.offset, -25_200)
        let changes = rule.changes(fromYear: 2026, throughYear: 2026)
        // 2026-03-08 02:00 PST = 10:00Z; 2026-11-01 02:00 PDT = 09:00Z.
        let pdt: Int64 = 20_520 * 86_400 + 36_000, pst: Int64 = 20_758 * 86_400 + 32_400
        XCTAssertEqual(changes.map(\.instant), [pdt, pst])
        XCTAssertEqual(changes.map(\.offset), [-25_200, -28_800])
    }

    func testSouthernRuleWithHalfHourDaylightTime() throws {
        // Australia/Lord_Howe: +10:30, +11 in summer. 2026-04-05 02:00 at +11
        // = 04-04 15:00Z; 2026-10-04 02:00 at +10:30 = 10-03 15:30Z.
        let rule = try XCTUnwrap(PosixTimeZoneRule("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"))
        XCTAssertEqual(rule.standardOffset, 37_800)
        let changes = rule.changes(fromYear: 2026, throughYear: 2026)
        let standard: Int64 = 20_547 * 86_400 + 54_000, daylight: Int64 = 20_729 * 86_400 + 55_800
        XCTAssertEqual(changes.map(\.instant), [standard, daylight])
        XCTAssertEqual(changes.map(\.offset), [37_800, 39_600])
    }

    func testNegativeTimesAndLastWeekdays() throws {
        // America/Nuuk: -02, -01 in summer from the last Sunday of March at
        // -1:00 (Saturday 23:00 local = 01:00Z Sunday) to the last Sunday of
        // October at 00:00 local daylight time (= 01:00Z).
        let rule = try XCTUnwrap(PosixTimeZoneRule("<-02>2<-01>,M3.5.0/-1,M10.5.0/0"))
        let changes = rule.changes(fromYear: 2026, throughYear: 2026)
        let start: Int64 = 20_541 * 86_400 + 3_600, end: Int64 = 20_751 * 86_400 + 3_600
        XCTAssertEqual(changes.map(\.instant), [start, end])
        XCTAssertEqual(changes.map(\.offset), [-3_600, -7_200])
    }

    func testJulianAndZeroBasedDays() throws {
        // J60 is March 1 in every year; 59 is February 29 in a leap year and
        // March 1 otherwise. 2028-01-01 is day 21 184 (2028 is a leap year).
        let julian = try XCTUnwrap(PosixTimeZoneRule("AAA0BBB,J60/0,J300/0"))
        XCTAssertEqual(julian.daylight?.start.dayNumber(in: 2028), 21_184 + 60)
        XCTAssertEqual(julian.daylight?.start.dayNumber(in: 2027), 21_184 - 365 + 59)
        let zeroBased = try XCTUnwrap(PosixTimeZoneRule("AAA0BBB,59/0,300/0"))
        XCTAssertEqual(zeroBased.daylight?.start.dayNumber(in: 2028), 21_184 + 59)
        XCTAssertEqual(zeroBased.daylight?.start.dayNumber(in: 2027), 21_184 - 365 + 59)
        // Hours past 24 (RFC 8536's version 3 extension): J365/25 is January 1 at 01:00.
        let late = try XCTUnwrap(PosixTimeZoneRule("EST5EDT4,0/0,J365/25"))
        XCTAssertEqual(late.daylight?.end.time, 90_000)
    }

    func testZonesWithoutDaylightTime() throws {
        XCTAssertEqual(PosixTimeZoneRule("MST7")?.standardOffset, -25_200)
        XCTAssertNil(PosixTimeZoneRule("MST7")?.daylight)
        XCTAssertEqual(PosixTimeZoneRule("<+0545>-5:45")?.standardOffset, 20_700)
        XCTAssertEqual(PosixTimeZoneRule("<-00>0")?.standardOffset, 0)
        XCTAssertEqual(PosixTimeZoneRule("XXX-1:02:03")?.standardOffset, 3_723)
    }

    func testRefusesWhatItCannotFollow() {
        for text in ["", "PST", "PS8", "PST8PDT", "PST8PDT,M3.2.0", "PST8PDT,M13.2.0,M11.1.0",
                     "PST8PDT,M3.6.0,M11.1.0", "PST8PDT,M3.2.7,M11.1.0", "PST8PDT,J0,J100",
                     "PST8PDT,366,J100", "PST168:00:00x", "PST168PDT,M3.2.0/168,M11.1.0", "PST8:60",
                     "<+05", "PST8PDT,M3.2.0,M11.1.0,", "PST26", "PST8PDT-26,M3.2.0,M11.1.0"] {
            XCTAssertNil(PosixTimeZoneRule(text), text)
        }
        XCTAssertNotNil(PosixTimeZoneRule("PST8PDT,M3.2.0/167,M11.1.0/-167"))   // times, not offsets, to 167 h
        XCTAssertNotNil(PosixTimeZoneRule("XXX-25:59:59"))
    }

    // MARK: TZif files

    func testVersionTwoFileWithItsRuleAfterTheLastTransition() throws {
        // LMT -8:12:28 until 1883-11-18 20:00Z; then PST and PDT, listed until
        // 2026-03-08 (to PDT); after that the rule MST7 (permanent -7), as
        // IANA 2026b wrote British Columbia.
        let lmtEnd: Int64 = -2_717_640_000
        let pdt2026: Int64 = 20_520 * 86_400 + 36_000
        let bytes = tzif(times: [lmtEnd, pdt2026], indexes: [1, 2],
                         types: [(-29_548, false), (-28_800, false), (-25_200, true)], footer: "MST7")
        let table = try XCTUnwrap(ZoneInfoFile.offsetTable(bytes))
        XCTAssertEqual(table.changes, [lmtEnd, pdt2026])
        XCTAssertEqual(table.offsets, [-29_548, -28_800, -25_200])
    }

    func testRuleChangesAreGeneratedToYear9999() throws {
        let pst2025: Int64 = 20_394 * 86_400 + 32_400        // 2025-11-02 09:00Z
        let bytes = tzif(times: [pst2025], indexes: [1], types: [(-25_200, true), (-28_800, false)],
                         footer: "PST8PDT,M3.2.0,M11.1.0")
        let table = try XCTUnwrap(ZoneInfoFile.offsetTable(bytes))
        XCTAssertEqual(table.changes.first, pst2025)
        let pdt2026: Int64 = 20_520 * 86_400 + 36_000, pst2026: Int64 = 20_758 * 86_400 + 32_400
        XCTAssertEqual(Array(table.changes.dropFirst().prefix(2)), [pdt2026, pst2026])
        XCTAssertEqual(table.changes.count, 1 + 2 * (9999 - 2025))   // 2025's own changes precede the last listed one
        XCTAssertEqual(table.offsets.last, -28_800)
        XCTAssertLessThanOrEqual(table.changes.last!, Instant.maximum.seconds)
        XCTAssertEqual(table.changes, table.changes.sorted())
    }

    func testDaylightTimeAllYearIsOneOffset() throws {
        // The TZ string's way to write permanent daylight time: daylight time
        // from January 1 00:00 to December 31 25:00, which is the next start.
        let bytes = tzif(times: [0], indexes: [1], types: [(-18_000, false), (-14_400, true)],
                         footer: "EST5EDT4,0/0,J365/25")
        let table = try XCTUnwrap(ZoneInfoFile.offsetTable(bytes))
        XCTAssertEqual(table.changes, [0])
        XCTAssertEqual(table.offsets, [-18_000, -14_400])
    }

    func testFixedZoneWithNoTransitions() throws {
        let table = try XCTUnwrap(ZoneInfoFile.offsetTable(tzif(times: [], indexes: [], types: [(20_700, false)],
                                                                footer: "<+0545>-5:45")))
        XCTAssertEqual(table.changes, [])
        XCTAssertEqual(table.offsets, [20_700])
    }

    func testRuleAfterATransitionBeforeYearOne() throws {
        // Only a "big bang" transition, then a daylight rule: changes from year 1 on, not
        // from the year of -2^59 (which would be billions of rule years).
        let bytes = tzif(times: [-(1 << 59)], indexes: [0], types: [(-28_800, false)], footer: "PST8PDT,M3.2.0,M11.1.0")
        let table = try XCTUnwrap(ZoneInfoFile.offsetTable(bytes))
        XCTAssertEqual(table.changes.count, 2 * 9999)
        XCTAssertEqual(table.offsets.first, -28_800)
    }

    func testTransitionsOutsideTheTimestampRange() throws {
        // A "big bang" transition at -2^59 sets the offset before year 1;
        // one after year 9999 is dropped.
        let bytes = tzif(times: [-(1 << 59), 300_000_000_000], indexes: [1, 0], types: [(0, false), (3_600, false)],
                         footer: "")
        let table = try XCTUnwrap(ZoneInfoFile.offsetTable(bytes))
        XCTAssertEqual(table.changes, [])
        XCTAssertEqual(table.offsets, [3_600])
    }

    func testRefusesFilesItCannotRead() {
        let good = tzif(times: [0], indexes: [1], types: [(0, false), (3_600, false)], footer: "")
        XCTAssertNotNil(ZoneInfoFile.offsetTable(good))
        var badMagic = good
        badMagic[0] = UInt8(ascii: "X")
        XCTAssertNil(ZoneInfoFile.offsetTable(badMagic))
        var versionOne = good
        versionOne[4] = 0
        XCTAssertNil(ZoneInfoFile.offsetTable(versionOne))
        XCTAssertNil(ZoneInfoFile.offsetTable(Array(good.dropLast(3))))          // footer cut
        XCTAssertNil(ZoneInfoFile.offsetTable(Array(good.prefix(60))))
        XCTAssertNil(ZoneInfoFile.offsetTable(tzif(times: [0], indexes: [2], types: [(0, false), (3_600, false)],
                                                   footer: "")))                    // type index out of range
        XCTAssertNil(ZoneInfoFile.offsetTable(tzif(times: [5, 5], indexes: [1, 0], types: [(0, false), (3_600, false)],
                                                   footer: "")))                    // times not ascending
        XCTAssertNil(ZoneInfoFile.offsetTable(tzif(times: [0], indexes: [1], types: [(0, false), (3_600, false)],
                                                   footer: "", leapSeconds: 1)))    // right/...
        XCTAssertNil(ZoneInfoFile.offsetTable(tzif(times: [0], indexes: [1], types: [(0, false), (3_600, false)],
                                                   footer: "PST8PDT")))              // a rule it cannot follow
        XCTAssertNil(ZoneInfoFile.offsetTable(tzif(times: [0], indexes: [1], types: [(0, false), (93_600, false)],
                                                   footer: "")))                    // offset beyond +25:59:59
        XCTAssertNil(ZoneInfoFile.offsetTable([]))
    }

    // MARK: Where ReportingTimeZone takes its data

    func testReportingZoneReadsTheDirectoryAndFallsBackToICU() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("analyze-zoneinfo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("America"),
                                                withIntermediateDirectories: true)
        // A made-up America/Vancouver: +05:00 from 2000 on.
        let file = tzif(times: [946_684_800], indexes: [1], types: [(-28_800, false), (18_000, false)], footer: "<+05>-5")
        try Data(file).write(to: directory.appendingPathComponent("America/Vancouver"))
        // A file that is not TZif: ICU's data instead.
        try Data("not a zone".utf8).write(to: directory.appendingPathComponent("America/Edmonton"))

        let instant = Instant(seconds: 20_520 * 86_400 + 20 * 3_600, nanoseconds: 0)   // 2026-03-08 20:00Z
        func day(_ name: String, _ zoneDirectory: String?) throws -> Int64 {
            try XCTUnwrap(ReportingTimeZone(parsing: name, zoneDirectory: zoneDirectory), name)
                .makeDayResolver().day(of: instant)
        }
        XCTAssertEqual(try day("America/Vancouver", directory.path), 20_521)   // 01:00 the next day at +05
        XCTAssertEqual(try day("America/Vancouver", nil), 20_520)              // 13:00 PDT by ICU
        XCTAssertEqual(try day("America/Edmonton", directory.path), 20_520)
        XCTAssertEqual(try day("America/Toronto", directory.path), 20_520)     // no file: ICU
        XCTAssertEqual(try day("+05:00", directory.path), 20_521)
        // Names are accepted as before, whatever the directory holds.
        try Data(file).write(to: directory.appendingPathComponent("Mars"))
        XCTAssertNil(ReportingTimeZone(parsing: "Mars", zoneDirectory: directory.path))
        XCTAssertNil(ReportingTimeZone(parsing: "america/vancouver", zoneDirectory: directory.path))
    }

    // MARK: Helpers

    /// A version 2 TZif file: an empty version 1 block, then the 64-bit data.
    private func tzif(times: [Int64], indexes: [UInt8], types: [(offset: Int32, isDaylight: Bool)],
                      footer: String, leapSeconds: Int = 0) -> [UInt8] {
        func header(time: Int, type: Int, characters: Int, leap: Int) -> [UInt8] {
            var bytes = Array("TZif2".utf8) + [UInt8](repeating: 0, count: 15)
            for count in [0, 0, leap, time, type, characters] { bytes += bigEndian(UInt32(count)) }
            return bytes
        }
        func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        let characters = Array("LMT\0".utf8)
        var bytes = header(time: 0, type: 1, characters: 4, leap: 0) + bigEndian(0) + [0, 0] + characters
        bytes += header(time: times.count, type: types.count, characters: characters.count, leap: leapSeconds)
        for time in times {
            bytes += bigEndian(UInt32(truncatingIfNeeded: UInt64(bitPattern: time) >> 32))
            bytes += bigEndian(UInt32(truncatingIfNeeded: UInt64(bitPattern: time)))
        }
        bytes += indexes
        for type in types { bytes += bigEndian(UInt32(bitPattern: type.offset)) + [type.isDaylight ? 1 : 0, 0] }
        bytes += characters
        bytes += [UInt8](repeating: 0, count: leapSeconds * 12)
        bytes += Array("\n\(footer)\n".utf8)
        return bytes
    }
}
