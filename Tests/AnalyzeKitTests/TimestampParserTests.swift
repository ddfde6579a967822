import EventGenerator
import XCTest
@testable import AnalyzeKit

/// RFC 3339 and epoch-millisecond timestamps (SPEC §2) and the UTC millisecond
/// format of §4.4. Every expected value is computed by hand from the calendar
/// (noted next to it), never by the code under test.
final class TimestampParserTests: XCTestCase {
    /// 2026-11-28T09:15:02Z: 2026-11-28 is day 20 785 (2026-01-01 is day
    /// 20 454, plus 331 days to Nov 28), so 20 785 × 86 400 + 9 h 15 min 2 s.
    private let spec = Instant(seconds: 1_795_857_302, nanoseconds: 123_000_000)

    // MARK: RFC 3339, accepted

    func testAcceptsEverySpellingOfTheSameInstant() {
        for text in [
            "2026-11-28T09:15:02.123Z",
            "2026-11-28T09:15:02.123z",
            "2026-11-28t09:15:02.123Z",
            "2026-11-28t09:15:02.123z",
            "2026-11-28T18:15:02.123+09:00",
            "2026-11-28T14:45:02.123+05:30",
            "2026-11-28T04:15:02.123-05:00",
            "2026-11-28T09:15:02.123+00:00",
            "2026-11-28T09:15:02.123-00:00",   // RFC 3339 "unknown local offset": still UTC
            "2026-11-29T09:14:02.123+23:59",
            "2026-11-27T09:16:02.123-23:59",
        ] {
            XCTAssertEqual(rfc3339(text), spec, text)
        }
        XCTAssertEqual(rfc3339("2026-11-28T09:15:02Z"), Instant(seconds: 1_795_857_302, nanoseconds: 0))
    }

    func testFractionOfOneToNineDigits() {
        let expected: [UInt32] = [
            100_000_000, 120_000_000, 123_000_000, 123_400_000, 123_450_000,
            123_456_000, 123_456_700, 123_456_780, 123_456_789,
        ]
        let digits = Array("123456789")
        for count in 1 ... 9 {
            let text = "2026-11-28T09:15:02." + String(digits[0 ..< count]) + "Z"
            XCTAssertEqual(rfc3339(text), Instant(seconds: 1_795_857_302, nanoseconds: expected[count - 1]), text)
        }
        XCTAssertEqual(rfc3339("2026-11-28T09:15:02.000000001Z"), Instant(seconds: 1_795_857_302, nanoseconds: 1))
        XCTAssertEqual(rfc3339("2026-11-28T09:15:02.000Z"), Instant(seconds: 1_795_857_302, nanoseconds: 0))
    }

    func testEpochAndBeforeIt() {
        XCTAssertEqual(rfc3339("1970-01-01T00:00:00Z"), Instant(seconds: 0, nanoseconds: 0))
        XCTAssertEqual(rfc3339("1969-12-31T23:59:59.999999999Z"), Instant(seconds: -1, nanoseconds: 999_999_999))
        XCTAssertEqual(rfc3339("1970-01-01T09:00:00+09:00"), Instant(seconds: 0, nanoseconds: 0))
    }

    func testLeapDays() {
        // 2024-03-01 is day 19 783; the day before × 86 400.
        XCTAssertEqual(rfc3339("2024-02-29T00:00:00Z"), Instant(seconds: 1_709_164_800, nanoseconds: 0))
        // 2000 is divisible by 400: leap. Day 11 016 × 86 400 + 12 h.
        XCTAssertEqual(rfc3339("2000-02-29T12:00:00Z"), Instant(seconds: 951_825_600, nanoseconds: 0))
        // Day 20 147 (2025-02-28) × 86 400 + 86 399.
        XCTAssertEqual(rfc3339("2025-02-28T23:59:59Z"), Instant(seconds: 1_740_787_199, nanoseconds: 0))
    }

    func testRangeIsCheckedOnTheUTCInstant() {
        // 719 162 days from 0001-01-01 to 1970-01-01.
        XCTAssertEqual(rfc3339("0001-01-01T00:00:00Z"), Instant.minimum)
        XCTAssertEqual(Instant.minimum, Instant(seconds: -62_135_596_800, nanoseconds: 0))
        XCTAssertEqual(rfc3339("9999-12-31T23:59:59.999999999Z"), Instant.maximum)
        XCTAssertEqual(Instant.maximum, Instant(seconds: 253_402_300_799, nanoseconds: 999_999_999))
        // 9999-12-31T22:00:00Z: the maximum's second minus 2 h (7 199 s + 1 s).
        XCTAssertEqual(rfc3339("9999-12-31T23:00:00+01:00"), Instant(seconds: 253_402_293_600, nanoseconds: 0))
        // A local year 0000 that is year 0001 in UTC is fine, and vice versa.
        XCTAssertEqual(rfc3339("0000-12-31T23:30:00-01:00"), Instant(seconds: -62_135_596_800 + 1_800, nanoseconds: 0))
        XCTAssertNil(rfc3339("0001-01-01T00:00:00+00:01"))   // 0000-12-31T23:59:00Z
        XCTAssertNil(rfc3339("0000-12-31T23:59:59Z"))
        XCTAssertNil(rfc3339("9999-12-31T23:59:59.999999999-00:01"))   // year 10000 in UTC
    }

    // MARK: RFC 3339, rejected

    func testRejectsMalformedText() {
        for text in [
            "",
            "2026-11-28",
            "2026-11-28 09:15:02Z",            // space for T
            "2026-11-28_09:15:02Z",
            "2026-11-28T09:15Z",               // no seconds
            "2026-11-28T09:15:02",             // no offset
            "2026-11-28T09:15:02.123",
            "2026-11-28T09:15:02+0900",        // offset without colon
            "2026-11-28T09:15:02+09",
            "2026-11-28T09:15:02+9:00",
            "2026-11-28T09:15:02 +09:00",
            "2026-11-28T09:15:02UTC",
            "2026-11-28T09:15:02ZZ",
            "2026-11-28T09:15:02Z ",           // any extra byte
            " 2026-11-28T09:15:02Z",
            "2026-11-28T09:15:02Z\u{0}",
            "2026-11-28T09:15:02.Z",           // dot without digits
            "2026-11-28T09:15:02.1234567890Z", // ten fraction digits
            "2026-11-28T09:15:02,123Z",
            "2026-11-28T09:15:02.12a3Z",
            "+2026-11-28T09:15:02Z",
            "26-11-28T09:15:02Z",
            "02026-11-28T09:15:02Z",
            "2026-1-28T09:15:02Z",
            "2026/11/28T09:15:02Z",
            "2026-11-28T9:15:02Z",
            "2026-11-28T09:15:2Z",
            "2026-11-28T09:15:02.123\u{2212}09:00",   // Unicode minus
            "２０２６-11-28T09:15:02Z",          // full-width digits
            "2026-11-28T09:15:02-+9:00",
            "2026-11-28T09:15:02+-9:00",
        ] {
            XCTAssertNil(rfc3339(text), text)
        }
    }

    func testRejectsImpossibleDatesAndTimes() {
        for text in [
            "2026-00-10T00:00:00Z", "2026-13-10T00:00:00Z",
            "2026-01-00T00:00:00Z", "2026-01-32T00:00:00Z",
            "2026-04-31T00:00:00Z", "2026-06-31T00:00:00Z", "2026-09-31T00:00:00Z", "2026-11-31T00:00:00Z",
            "2023-02-29T00:00:00Z", "2026-02-29T00:00:00Z", "2024-02-30T00:00:00Z",
            "1900-02-29T00:00:00Z", "2100-02-29T00:00:00Z",   // divisible by 100, not by 400
            "2026-11-28T24:00:00Z", "2026-11-28T23:60:00Z",
            "2026-11-28T23:59:60Z", "2016-12-31T23:59:60Z",   // leap seconds
            "2026-11-28T23:59:99Z",
            "2026-11-28T09:15:02+24:00", "2026-11-28T09:15:02+23:60", "2026-11-28T09:15:02-99:00",
        ] {
            XCTAssertNil(rfc3339(text), text)
        }
    }

    // MARK: Epoch milliseconds

    func testEpochMilliseconds() {
        XCTAssertEqual(epochMilliseconds("1795857302123"), spec)   // the SPEC's example, 2026-11-28T09:15:02.123Z
        XCTAssertEqual(epochMilliseconds("0"), Instant(seconds: 0, nanoseconds: 0))
        XCTAssertEqual(epochMilliseconds("-0"), Instant(seconds: 0, nanoseconds: 0))
        XCTAssertEqual(epochMilliseconds("1"), Instant(seconds: 0, nanoseconds: 1_000_000))
        XCTAssertEqual(epochMilliseconds("-1"), Instant(seconds: -1, nanoseconds: 999_000_000))
        XCTAssertEqual(epochMilliseconds("-1000"), Instant(seconds: -1, nanoseconds: 0))
        XCTAssertEqual(epochMilliseconds("-1001"), Instant(seconds: -2, nanoseconds: 999_000_000))
        XCTAssertEqual(epochMilliseconds("-62135596800000"), Instant.minimum)
        XCTAssertEqual(epochMilliseconds("253402300799999"), Instant(seconds: 253_402_300_799, nanoseconds: 999_000_000))
        XCTAssertNil(epochMilliseconds("-62135596800001"))   // 1 ms before year 1
        XCTAssertNil(epochMilliseconds("253402300800000"))   // year 10000
    }

    func testEpochMillisecondsMustBeAPlainIntegerLiteral() {
        for text in [
            "", "-", "+1", "01", "00", "-01", "-00", "1.0", "1795857302123.0", "1.7e12", "1e3", "1E3",
            "0x10", " 1", "1 ", "1_000", "--1", "1-", "\"1795857302123\"",
            "9223372036854775807", "-9223372036854775808", "9223372036854775808",
            "99999999999999999999999999999999999999",
        ] {
            XCTAssertNil(epochMilliseconds(text), text)
        }
    }

    // MARK: Formatting

    func testFormatTruncatesToMilliseconds() {
        XCTAssertEqual(TimestampParser.formatUTCMilliseconds(Instant(seconds: 0, nanoseconds: 0)), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(TimestampParser.formatUTCMilliseconds(Instant(seconds: 1_795_857_302, nanoseconds: 123_999_999)),
                       "2026-11-28T09:15:02.123Z")
        XCTAssertEqual(TimestampParser.formatUTCMilliseconds(Instant(seconds: -1, nanoseconds: 999_999_999)),
                       "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(TimestampParser.formatUTCMilliseconds(Instant(seconds: -86_400, nanoseconds: 5_000_000)),
                       "1969-12-31T00:00:00.005Z")
        XCTAssertEqual(TimestampParser.formatUTCMilliseconds(Instant.minimum), "0001-01-01T00:00:00.000Z")
        XCTAssertEqual(TimestampParser.formatUTCMilliseconds(Instant.maximum), "9999-12-31T23:59:59.999Z")
    }

    func testFormatAndParseRoundTrip() {
        for text in [
            "0001-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "1970-01-01T00:00:00.001Z",
            "2000-02-29T12:34:56.789Z", "2026-11-28T09:15:02.123Z", "9999-12-31T23:59:59.999Z",
        ] {
            let instant = rfc3339(text)
            XCTAssertNotNil(instant, text)
            XCTAssertEqual(instant.map(TimestampParser.formatUTCMilliseconds), text)
        }
        // Millisecond instants across the whole range, both directions, including negative seconds.
        var milliseconds: Int64 = Instant.minimum.seconds * 1_000
        while milliseconds <= Instant.maximum.seconds * 1_000 {
            let instant = epochMilliseconds(String(milliseconds))
            XCTAssertNotNil(instant, "\(milliseconds)")
            guard let instant else { break }
            XCTAssertEqual(rfc3339(TimestampParser.formatUTCMilliseconds(instant)), instant, "\(milliseconds)")
            milliseconds += 7_777_777_777_777   // about 246 years, an odd count of ms
        }
    }

    /// A parser that keeps the last valid date (``TimestampParser/DateCache``)
    /// gives what a fresh parse gives, whatever came before: runs of one day,
    /// dates one byte apart (a valid date then an invalid one with the same
    /// first nine bytes, February 29 in and out of leap years), and damage
    /// outside the date after a date was cached.
    func testTheDateCacheNeverChangesAResult() {
        var rng = SplitMix64(29)
        let dates = ["2026-11-01", "2026-11-02", "2026-11-31", "2026-11-30", "2024-02-29", "2026-02-29",
                     "2026-02-28", "0000-12-31", "9999-12-31", "2026-1x-01", "2026-11-0a", "0001-01-01"]
        let times = ["T00:07:00.306Z", "T23:59:59Z", "t12:00:00+09:00", "T00:00:00.123456789-00:00",
                     "T24:00:00Z", "T12:60:00Z", "T12:00:00", "T12:00:00.Z", "T00:30:00-01:00", "T00:00:00+00:01"]
        var cache = TimestampParser.DateCache()
        var previous = dates[0]
        for n in 0..<5_000 {
            // Mostly the previous date again, as in an export.
            let date = Int.random(in: 0..<4, using: &rng) == 0 ? dates.randomElement(using: &rng)! : previous
            previous = date
            let text = date + times.randomElement(using: &rng)!
            var copy = text
            let cached = copy.withUTF8 { TimestampParser.parseRFC3339(UnsafeRawBufferPointer($0), dates: &cache) }
            XCTAssertEqual(cached, rfc3339(text), "\(n): \(text)")
        }
    }

    /// The parser against a plain model of the contract (below), on valid
    /// timestamps of every shape with one byte replaced by each byte that
    /// could confuse a word-at-a-time check: digits, the separators, their
    /// neighbours in ASCII (`/` and `:` beside the digits, `;`, `@`), and
    /// bytes with the high bit set. Seeded: a failure names its input.
    func testAgreesWithAPlainModelOnDamagedTimestamps() {
        var rng = SplitMix64(3339)
        let shapes = ["2026-11-28T09:15:02Z", "2026-11-28T09:15:02.123Z", "2026-11-28t23:59:59.999+09:00",
                      "2024-02-29T00:00:00.5-05:30", "2026-11-28T09:15:02.123456789-00:00",
                      "2026-11-28T09:15:02.1234Z", "0000-12-31T23:30:00-01:00", "9999-12-31T23:59:59.999999999Z"]
        let replacements: [UInt8] = Array("0123456789/:;@-+.TtZz ".utf8) + [0x00, 0x2F, 0x3A, 0x7F, 0x80, 0xB9, 0xF9, 0xFF]
        var checked = 0
        for shape in shapes {
            let bytes = Array(shape.utf8)
            XCTAssertEqual(parse(bytes), Self.modelRFC3339(bytes), shape)
            for position in bytes.indices {
                for replacement in replacements {
                    var damaged = bytes
                    damaged[position] = replacement
                    XCTAssertEqual(parse(damaged), Self.modelRFC3339(damaged), "\(shape) with byte \(position) = \(replacement)")
                    checked += 1
                }
            }
        }
        for _ in 0..<20_000 {
            var bytes = Array(shapes.randomElement(using: &rng)!.utf8)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = replacements.randomElement(using: &rng)!
            }
            XCTAssertEqual(parse(bytes), Self.modelRFC3339(bytes), String(decoding: bytes, as: UTF8.self))
        }
        XCTAssertGreaterThan(checked, 4_000)
    }

    /// The contract read one field at a time, with the calendar computed by
    /// counting days (no shared code with the parser beyond ``Instant``).
    private static func modelRFC3339(_ b: [UInt8]) -> Instant? {
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard i < b.count, (48...57).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 116, b[13] == 58, b[16] == 58,
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), hour <= 23, minute <= 59, second <= 59
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day >= 1, day <= monthDays[month - 1] else { return nil }
        var i = 19
        var nanoseconds = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var digits = 0
            while i < b.count, (48...57).contains(b[i]) {
                nanoseconds = nanoseconds * 10 + Int(b[i] - 48)
                digits += 1
                i += 1
            }
            guard (1...9).contains(digits) else { return nil }
            for _ in digits..<9 { nanoseconds *= 10 }
        }
        var offset = 0
        if i == b.count - 1, b[i] == 90 || b[i] == 122 {
            offset = 0
        } else if i == b.count - 6, b[i] == 43 || b[i] == 45, b[i + 3] == 58,
                  let h = number(i + 1 ..< i + 3), let m = number(i + 4 ..< i + 6), h <= 23, m <= 59 {
            offset = (b[i] == 43 ? 1 : -1) * (h * 3_600 + m * 60)
        } else {
            return nil
        }
        // Days from 0000-01-01: whole years (the leap years among 0 ..< year
        // counted as multiples of 4, less those of 100, plus those of 400),
        // then whole months, then days.
        var days = 365 * year + (year + 3) / 4 - (year + 99) / 100 + (year + 399) / 400
        for m in 0..<(month - 1) { days += monthDays[m] }
        days += day - 1
        let epochDays = 719_528   // days from 0000-01-01 to 1970-01-01
        let seconds = Int64(days - epochDays) * 86_400 + Int64(hour * 3_600 + minute * 60 + second - offset)
        guard seconds >= Instant.minimum.seconds, seconds <= Instant.maximum.seconds else { return nil }
        return Instant(seconds: seconds, nanoseconds: UInt32(nanoseconds))
    }

    private func parse(_ bytes: [UInt8]) -> Instant? {
        bytes.withUnsafeBytes { TimestampParser.parseRFC3339($0) }
    }

    // MARK: Helpers

    private func rfc3339(_ text: String) -> Instant? {
        var text = text
        return text.withUTF8 { TimestampParser.parseRFC3339(UnsafeRawBufferPointer($0)) }
    }

    private func epochMilliseconds(_ text: String) -> Instant? {
        var text = text
        return text.withUTF8 { TimestampParser.parseEpochMilliseconds(UnsafeRawBufferPointer($0)) }
    }
}
