import Foundation
import EventGenerator
import XCTest
@testable import AnalyzeKit

/// `--timezone` parsing and the instant → reporting-day mapping (SPEC §3).
/// Expected day numbers are computed by hand: 2026-01-01 is day 20 454, so
/// 2026-03-08 is 20 520, 2026-11-01 is 20 758 and 2026-11-28 is 20 785.
final class ReportingTimeZoneTests: XCTestCase {
    // MARK: Parsing

    func testAcceptsUTCFixedOffsetsAndIANANames() throws {
        for name in [
            "UTC", "+09:00", "-00:00", "+00:00", "+05:30", "-03:00", "+23:59", "-23:59",
            "Asia/Tokyo", "America/New_York", "Europe/London", "Asia/Kolkata", "Asia/Calcutta",
            "Etc/UTC", "Etc/GMT-9", "GMT", "US/Eastern", "America/Argentina/Buenos_Aires",
            // IANA links to Etc/GMT (forty-first session: the first two were refused before).
            "GMT+0", "GMT-0", "GMT0", "Etc/GMT+0",
        ] {
            let zone = try XCTUnwrap(ReportingTimeZone(parsing: name), name)
            XCTAssertEqual(zone.name, name)
        }
        XCTAssertEqual(ReportingTimeZone(parsing: "UTC"), .utc)
        XCTAssertEqual(ReportingTimeZone.utc.name, "UTC")
        // Equality is by spelling, although these three give the same days.
        XCTAssertNotEqual(ReportingTimeZone(parsing: "+00:00"), .utc)
        XCTAssertNotEqual(ReportingTimeZone(parsing: "-00:00"), ReportingTimeZone(parsing: "+00:00"))
    }

    func testRejectsOtherSpellings() {
        for name in [
            "", " UTC", "UTC ", "utc", "Utc", "Z",
            "asia/tokyo", "ASIA/TOKYO", "Asia/tokyo", "Asia/Tokyo ", "Asia/Tokyo\u{0}", "Asia/Tokyo/",
            "Mars/Base", "Asia/Osaka", "Tokyo",
            "+0900", "+9:00", "+9", "09:00", "+24:00", "+09:60", "+09:00:00", "\u{2212}09:00",
            "GMT+9", "GMT+09:00", "GMT+0900", "UTC+9", "UTC+09:00",
            "JST", "IST", "CST", "SystemV/EST5",
            // ICU knows these, IANA does not (forty-first session: accepted before).
            "PST", "US/Pacific-New", "Canada/East-Saskatchewan",
        ] {
            XCTAssertNil(ReportingTimeZone(parsing: name), name)
        }
    }

    /// GMT+0 and GMT-0 are GMT under their own names.
    func testGMTPlusAndMinusZeroAreGMT() throws {
        for name in ["GMT+0", "GMT-0"] {
            XCTAssertEqual(try day(name, 86_400 - 1), 0, name)
            XCTAssertEqual(try day(name, 86_400), 1, name)
            XCTAssertEqual(try day(name, 1_781_481_600), 20_619, name)  // 2026-06-15, no summer time
        }
    }

    // MARK: Days

    func testUTCAndFixedOffsetsFloorBeforeTheEpoch() throws {
        XCTAssertEqual(try day("UTC", 0), 0)
        XCTAssertEqual(try day("UTC", -1), -1)                     // 1969-12-31T23:59:59Z
        XCTAssertEqual(try day("UTC", -86_400), -1)
        XCTAssertEqual(try day("UTC", -86_401), -2)
        XCTAssertEqual(try day("-00:00", -1), -1)
        XCTAssertEqual(try day("+09:00", -1), 0)                   // 1970-01-01T08:59:59+09:00
        XCTAssertEqual(try day("-03:00", 7_200), -1)               // 1969-12-31T23:00:00-03:00
        XCTAssertEqual(try day("UTC", Instant.minimum.seconds), -719_162)
        XCTAssertEqual(try day("UTC", Instant.maximum.seconds), 2_932_896)
        // A nanosecond before midnight stays on the earlier day.
        let resolver = ReportingTimeZone.utc.makeDayResolver()
        XCTAssertEqual(resolver.day(of: Instant(seconds: -1, nanoseconds: 999_999_999)), -1)
    }

    func testFixedOffsetsAroundMidnight() throws {
        // 2026-11-28T00:00:00 local is 2026-11-27T18:30Z at +05:30 and 03:00Z at -03:00.
        XCTAssertEqual(try day("+05:30", 1_795_804_200 - 1), 20_784)
        XCTAssertEqual(try day("+05:30", 1_795_804_200), 20_785)
        XCTAssertEqual(try day("-03:00", 1_795_834_800 - 1), 20_784)
        XCTAssertEqual(try day("-03:00", 1_795_834_800), 20_785)
        XCTAssertEqual(try day("+09:00", 1_795_791_600), 20_785)
    }

    func testAsiaTokyo() throws {
        // 2026-11-28T00:00:00+09:00 is 2026-11-27T15:00:00Z (1 795 791 600).
        XCTAssertEqual(try day("Asia/Tokyo", 1_795_791_600 - 1), 20_784)
        XCTAssertEqual(try day("Asia/Tokyo", 1_795_791_600), 20_785)
        XCTAssertEqual(try day("Asia/Tokyo", 1_795_857_302), 20_785)
    }

    func testNewYorkAcrossDaylightSavingChanges() throws {
        // One resolver for all, so that its remembered interval moves both ways.
        let resolver = try XCTUnwrap(ReportingTimeZone(parsing: "America/New_York")).makeDayResolver()
        func day(_ seconds: Int64) -> Int64 { resolver.day(of: Instant(seconds: seconds, nanoseconds: 0)) }
        // Spring forward 2026-03-08 at 07:00Z (02:00 EST → 03:00 EDT).
        XCTAssertEqual(day(1_772_945_999), 20_519)      // 03-08T04:59:59Z = 03-07 23:59:59 EST
        XCTAssertEqual(day(1_772_946_000), 20_520)      // 03-08 00:00:00 EST
        XCTAssertEqual(day(1_772_953_199), 20_520)      // 01:59:59 EST
        XCTAssertEqual(day(1_772_953_200), 20_520)      // 03:00:00 EDT
        XCTAssertEqual(day(1_773_028_799), 20_520)      // 03-09T03:59:59Z = 03-08 23:59:59 EDT
        XCTAssertEqual(day(1_773_028_800), 20_521)      // 03-09 00:00:00 EDT
        // Fall back 2026-11-01 at 06:00Z (02:00 EDT → 01:00 EST).
        XCTAssertEqual(day(1_793_505_599), 20_757)      // 11-01T03:59:59Z = 10-31 23:59:59 EDT
        XCTAssertEqual(day(1_793_505_600), 20_758)      // 11-01 00:00:00 EDT
        XCTAssertEqual(day(1_793_512_800), 20_758)      // 01:00:00 EST, the second time
        XCTAssertEqual(day(1_793_595_599), 20_758)      // 11-02T04:59:59Z = 11-01 23:59:59 EST
        XCTAssertEqual(day(1_793_595_600), 20_759)      // 11-02 00:00:00 EST
        XCTAssertEqual(day(1_772_945_999), 20_519)      // back in March
    }

    /// Offsets beyond 1901–2101 follow the IANA data (Python's `zoneinfo`
    /// gives these days): daylight saving in 2500 by the zone's lasting rule,
    /// and local mean time (-4:56:02) before 1883. Pinned because a Foundation
    /// that limits its zone answers to 1901–2101 (as some of its sources do)
    /// would still agree with itself in the test above.
    func testNewYorkFarFromTheTwentiethCentury() throws {
        func seconds(_ year: Int32, _ month: UInt8, _ day: UInt8, _ hour: Int64, _ minute: Int64) -> Int64 {
            CivilDate(year: year, month: month, day: day).dayNumber * 86_400 + hour * 3_600 + minute * 60
        }
        func date(_ year: Int32, _ month: UInt8, _ day: UInt8) -> Int64 { CivilDate(year: year, month: month, day: day).dayNumber }
        let zone = "America/New_York"
        XCTAssertEqual(try day(zone, seconds(2500, 7, 1, 4, 30)), date(2500, 7, 1))    // 00:30 EDT
        XCTAssertEqual(try day(zone, seconds(2500, 1, 1, 4, 30)), date(2499, 12, 31))  // 23:30 EST
        XCTAssertEqual(try day(zone, seconds(1880, 1, 1, 4, 58)), date(1880, 1, 1))    // 00:01:58 LMT
        XCTAssertEqual(try day(zone, seconds(1880, 1, 1, 4, 55)), date(1879, 12, 31))  // 23:58:58 LMT
    }

    func testLondonWhereTheChangeAndLocalMidnightShareAUTCDay() throws {
        // BST starts 2026-03-29 at 01:00Z; that evening, local midnight is at
        // 23:00Z of the same UTC day. 2026-03-29 is day 20 541.
        let zone = "Europe/London"
        XCTAssertEqual(try day(zone, 20_541 * 86_400 + 3_599), 20_541)    // 00:59:59 GMT
        XCTAssertEqual(try day(zone, 20_541 * 86_400 + 82_799), 20_541)   // 22:59:59Z = 23:59:59 BST
        XCTAssertEqual(try day(zone, 20_541 * 86_400 + 82_800), 20_542)   // 23:00:00Z = 00:00:00 BST
    }

    func testTransitionAtAnOddSecondOfTheDay() throws {
        // Africa/Monrovia kept −00:44:30 until 1972-01-07T00:44:30Z (63 593 070).
        // 1972-01-06 is day 735 and starts at 63 504 000 (UTC): local midnight
        // came 44 min 30 s (2 670 s) later.
        XCTAssertEqual(try day("Africa/Monrovia", 63_504_000 + 2_669), 734)
        XCTAssertEqual(try day("Africa/Monrovia", 63_504_000 + 2_670), 735)
        // The change itself: one second before it was 1972-01-06 23:59:59 local,
        // at it 1972-01-07 00:44:30 (UTC from then on).
        XCTAssertEqual(try day("Africa/Monrovia", 63_593_069), 735)
        XCTAssertEqual(try day("Africa/Monrovia", 63_593_070), 736)
    }

    /// The offset table and the remembered interval must agree with asking
    /// Foundation directly, next to every transition and anywhere in the
    /// range, in any order (this checks the caching, not the zone data: ICU's,
    /// which is what Foundation answers from).
    func testResolverAgreesWithFoundationInAnyOrder() throws {
        var generator = SplitMix64(42)
        for name in ["America/New_York", "Europe/London", "Australia/Lord_Howe", "Africa/Monrovia",
                     "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham", "Antarctica/Troll"] {
            let zone = try XCTUnwrap(TimeZone(identifier: name))
            let resolver = try XCTUnwrap(ReportingTimeZone(parsing: name, zoneDirectory: nil)).makeDayResolver()
            var instants: [Int64] = [Instant.minimum.seconds, Instant.maximum.seconds]
            var transition = Date(timeIntervalSince1970: -3_000_000_000)   // 1874
            while let next = zone.nextDaylightSavingTimeTransition(after: transition),
                  next.timeIntervalSince1970 < 4_000_000_000 {                // 2096
                let seconds = Int64(next.timeIntervalSince1970)
                instants += [seconds - 86_400, seconds - 1, seconds, seconds + 1, seconds + 43_200]
                transition = next
            }
            for _ in 0 ..< 5_000 {
                instants.append(Int64.random(in: Instant.minimum.seconds ... Instant.maximum.seconds, using: &generator))
            }
            for order in 0 ..< 2 {
                if order == 1 { instants.shuffle(using: &generator) }
                for seconds in instants {
                    let expected = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
                    let actual = resolver.utcOffset(atSecond: seconds)
                    if actual != expected {
                        return XCTFail("\(name) at \(seconds) s (order \(order)): offset \(actual), expected \(expected)")
                    }
                }
            }
        }
    }

    // MARK: Helpers

    private func day(_ zone: String, _ seconds: Int64) throws -> Int64 {
        let resolver = try XCTUnwrap(ReportingTimeZone(parsing: zone), zone).makeDayResolver()
        return resolver.day(of: Instant(seconds: seconds, nanoseconds: 0))
    }
}

/// Proleptic Gregorian dates and day numbers.
final class CivilDateConversionTests: XCTestCase {
    func testKnownDays() {
        let known: [(Int64, CivilDate, String)] = [
            (0, CivilDate(year: 1970, month: 1, day: 1), "1970-01-01"),
            (-1, CivilDate(year: 1969, month: 12, day: 31), "1969-12-31"),
            (11_016, CivilDate(year: 2000, month: 2, day: 29), "2000-02-29"),
            (20_785, CivilDate(year: 2026, month: 11, day: 28), "2026-11-28"),
            (-719_162, CivilDate(year: 1, month: 1, day: 1), "0001-01-01"),
            (2_932_896, CivilDate(year: 9999, month: 12, day: 31), "9999-12-31"),
            (-719_468, CivilDate(year: 0, month: 3, day: 1), "0000-03-01"),   // the algorithm's origin
        ]
        for (dayNumber, date, text) in known {
            XCTAssertEqual(CivilDate(dayNumber: dayNumber), date, text)
            XCTAssertEqual(date.dayNumber, dayNumber, text)
            XCTAssertEqual(date.description, text)
        }
        XCTAssertEqual(CivilDate(year: 12, month: 3, day: 4).description, "0012-03-04")
    }

    func testValidity() {
        XCTAssertTrue(CivilDate.isValid(year: 2024, month: 2, day: 29))
        XCTAssertTrue(CivilDate.isValid(year: 2000, month: 2, day: 29))
        XCTAssertTrue(CivilDate.isValid(year: 0, month: 2, day: 29))   // 1 BC, divisible by 400
        XCTAssertTrue(CivilDate.isValid(year: 2026, month: 12, day: 31))
        XCTAssertTrue(CivilDate.isValid(year: 2026, month: 1, day: 31))
        XCTAssertFalse(CivilDate.isValid(year: 2023, month: 2, day: 29))
        XCTAssertFalse(CivilDate.isValid(year: 1900, month: 2, day: 29))
        XCTAssertFalse(CivilDate.isValid(year: 2026, month: 4, day: 31))
        XCTAssertFalse(CivilDate.isValid(year: 2026, month: 0, day: 1))
        XCTAssertFalse(CivilDate.isValid(year: 2026, month: 13, day: 1))
        XCTAssertFalse(CivilDate.isValid(year: 2026, month: 1, day: 0))
        XCTAssertFalse(CivilDate.isValid(year: 2026, month: 1, day: 32))
    }

    func testOrder() {
        XCTAssertLessThan(CivilDate(year: 2025, month: 12, day: 31), CivilDate(year: 2026, month: 1, day: 1))
        XCTAssertLessThan(CivilDate(year: 2026, month: 1, day: 31), CivilDate(year: 2026, month: 2, day: 1))
        XCTAssertLessThan(CivilDate(year: 2026, month: 2, day: 1), CivilDate(year: 2026, month: 2, day: 2))
    }

    /// Walks day by day from 1970-01-01 forward to 9999-12-31 and backward to
    /// -0800-01-01 with a plain month-length table, and checks both conversions
    /// at every step.
    func testRoundTripAgainstADayByDayWalk() {
        func length(_ year: Int32, _ month: UInt8) -> UInt8 {
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][Int(month) - 1]
        }
        var date = CivilDate(year: 1970, month: 1, day: 1)
        var dayNumber: Int64 = 0
        while date.year <= 9999 {
            if CivilDate(dayNumber: dayNumber) != date || date.dayNumber != dayNumber {
                return XCTFail("\(date) / \(dayNumber)")
            }
            dayNumber += 1
            if date.day < length(date.year, date.month) { date.day += 1 }
            else if date.month < 12 { date.month += 1; date.day = 1 }
            else { date = CivilDate(year: date.year + 1, month: 1, day: 1) }
        }
        XCTAssertEqual(dayNumber, 2_932_897)   // one past 9999-12-31
        date = CivilDate(year: 1970, month: 1, day: 1)
        dayNumber = 0
        while date.year >= -800 {
            if CivilDate(dayNumber: dayNumber) != date || date.dayNumber != dayNumber {
                return XCTFail("\(date) / \(dayNumber)")
            }
            dayNumber -= 1
            if date.day > 1 { date.day -= 1 }
            else if date.month > 1 { date.month -= 1; date.day = length(date.year, date.month) }
            else { date = CivilDate(year: date.year - 1, month: 12, day: 31) }
        }
    }
}
