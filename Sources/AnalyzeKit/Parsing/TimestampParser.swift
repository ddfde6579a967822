/// Parsing and formatting of event timestamps (SPEC §2 "Timestamps",
/// `bad_timestamp`, and the `first_event` / `last_event` rows of §4.4).
///
/// A timestamp is either an RFC 3339 string or a JSON integer of Unix epoch
/// milliseconds. Both parsers work on raw UTF-8 bytes, allocate nothing, and
/// return `nil` for anything the contract rejects, so the caller can count a
/// `bad_timestamp` without knowing why.
///
/// - Performance: Each parser is a single forward pass over at most a few
///   dozen bytes with fixed-position checks, integer arithmetic only (no
///   `Date`, no `DateFormatter`, no floating point), and no allocation: in a
///   release build, roughly 30–45 ns per RFC 3339 timestamp and 20–30 ns per
///   epoch-millisecond literal on one x86-64 core. Unlike `Date` (a `Double`),
///   the result keeps all nine fraction digits.
enum TimestampParser {
    /// Parses an RFC 3339 §5.6 `date-time`, as restricted by the contract.
    ///
    /// The accepted form is exactly
    ///
    ///     YYYY-MM-DDTHH:MM:SS[.fraction](Z | +HH:MM | -HH:MM)
    ///
    /// where `T` and `Z` may also be lowercase, the fraction has 1 to 9 digits,
    /// and `-00:00` means UTC (as `+00:00` and `Z` do). The date must exist in
    /// the proleptic Gregorian calendar (February 29 only in leap years), hour
    /// is `00 ... 23`, minute `00 ... 59`, second `00 ... 59` (no leap second
    /// `60`), and the offset hour and minute obey the same limits.
    ///
    /// Rejected, among others: a space or other byte in place of `T`, a missing
    /// seconds field, `+0900`, a missing offset, a 10th fraction digit, a `.`
    /// without digits, leading or trailing whitespace, and any other extra byte.
    ///
    /// The local date-time may lie anywhere from 0000-01-01 to 9999-12-31, but
    /// the instant it denotes, once the offset is applied, must lie in
    /// `Instant.minimum ... Instant.maximum`: `0001-01-01T00:00:00+00:01` is
    /// 0000-12-31T23:59:00Z and is rejected, while `0000-12-31T23:30:00-01:00`
    /// is 0001-01-01T00:30:00Z and is accepted.
    ///
    /// - Parameter bytes: The string's content after JSON unescaping, without
    ///   the quotes.
    /// - Returns: The instant, or `nil` when `bytes` is not such a timestamp or
    ///   the instant is out of range.
    /// - Complexity: O(*n*) in the length of `bytes`, which is at most 35 when
    ///   valid; longer input is rejected after one comparison.
    static func parseRFC3339(_ bytes: UnsafeRawBufferPointer) -> Instant? {
        var dates = DateCache()
        return parseRFC3339(bytes, dates: &dates)
    }

    /// The day number of the last valid date an RFC 3339 parse met, by its
    /// ten bytes: consecutive events mostly fall on the same day, and a date
    /// spelled as before needs neither its digits read nor its calendar check
    /// (about a third of the parse).
    struct DateCache {
        fileprivate var spelling: (UInt64, UInt16) = (0, 0)  // never a valid date
        fileprivate var days: Int64 = 0
    }

    /// ``parseRFC3339(_:)``, reusing the day number of the date in `dates`
    /// when the date is spelled the same, and remembering a new valid one.
    static func parseRFC3339(_ bytes: UnsafeRawBufferPointer, dates: inout DateCache) -> Instant? {
        // Shortest: `2026-11-28T09:15:02Z` (20 bytes); longest: nine fraction
        // digits and a numeric offset (19 + 10 + 6 = 35 bytes).
        let count = bytes.count
        guard count >= 20, count <= 35 else { return nil }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] | 0x20 == UInt8(ascii: "t")   // `T` or `t`, nothing else
        else { return nil }

        let days: Int64
        let spelling = (bytes.loadUnaligned(as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
        if spelling == dates.spelling {
            days = dates.days
        } else {
            let year = digits(bytes, at: 0, count: 4)
            let month = digits(bytes, at: 5, count: 2)
            let day = digits(bytes, at: 8, count: 2)
            // `digits` returns -1 for a non-digit, which every lower bound rejects.
            guard year >= 0, month >= 1, month <= 12, day >= 1,
                  day <= Int(CivilDate.daysInMonth(year: Int32(year), month: UInt8(month)))
            else { return nil }
            days = CivilDate.dayNumber(year: Int64(year), month: Int64(month), day: Int64(day))
            dates = DateCache(spelling: spelling, days: days)
        }
        // `HH:MM:SS` as one word: both colons, six digits, and their values.
        let clock = bytes.loadUnaligned(fromByteOffset: 11, as: UInt64.self)
        guard clock & 0x0000_FF00_00FF_0000 == 0x0000_3A00_003A_0000,
              let pairs = twoDigitPairs(clock, mask: 0xFFFF_00FF_FF00_FFFF)
        else { return nil }
        let hour = Int(pairs & 0xFF), minute = Int(pairs >> 24 & 0xFF), second = Int(pairs >> 48 & 0xFF)
        guard hour <= 23, minute <= 59, second <= 59 else { return nil }

        // Optional fraction: a `.` and 1 to 9 digits, scaled to nanoseconds.
        var position = 19
        var nanoseconds = 0
        if bytes[position] == UInt8(ascii: ".") {
            position += 1
            let start = position
            // Three digits (milliseconds) and a byte that is not one: read as a word.
            if count >= 24, let milliseconds = threeDigits(bytes.loadUnaligned(fromByteOffset: 20, as: UInt32.self)) {
                nanoseconds = milliseconds * 1_000_000
                position = 23
            } else {
                while position < count, bytes[position] &- UInt8(ascii: "0") < 10 {
                    nanoseconds = nanoseconds * 10 + Int(bytes[position] &- UInt8(ascii: "0"))
                    position += 1
                }
                let fractionDigits = position - start
                guard fractionDigits >= 1, fractionDigits <= 9 else { return nil }
                for _ in fractionDigits ..< 9 { nanoseconds *= 10 }   // `.5` is 500 000 000 ns
            }
        }

        // The offset must take up the rest of the bytes exactly.
        let offset: Int
        if position == count - 1, bytes[position] | 0x20 == UInt8(ascii: "z") {
            offset = 0
        } else if position == count - 6,
                  let parsed = parseNumericOffset(UnsafeRawBufferPointer(rebasing: bytes[position...])) {
            offset = Int(parsed)
        } else {
            return nil
        }

        let seconds = days * 86_400 + Int64(hour * 3_600 + minute * 60 + second - offset)
        // `nanoseconds` never changes which side of a bound an instant is on:
        // the minimum has 0 and the maximum 999 999 999 of them.
        guard seconds >= Instant.minimum.seconds, seconds <= Instant.maximum.seconds else { return nil }
        return Instant(seconds: seconds, nanoseconds: UInt32(nanoseconds))
    }

    /// Parses a JSON number token that must be a plain integer literal,
    /// `-?(0|[1-9][0-9]*)`, counting milliseconds since the Unix epoch.
    ///
    /// `-0` is accepted (it is a valid JSON integer) and means the epoch.
    /// Rejected: a fraction or exponent (`1.0`, `1e3`, even when integral),
    /// leading zeros (`01`), a `+` sign, empty input, and any value outside
    /// `Instant.minimum ... Instant.maximum` (which also covers every literal
    /// too long for `Int64`).
    ///
    /// - Parameter bytes: The number token exactly as it appears in the JSON
    ///   text.
    /// - Returns: The instant, or `nil`.
    /// - Complexity: O(*n*) in the length of `bytes`; input longer than 16
    ///   bytes is rejected before any arithmetic.
    static func parseEpochMilliseconds(_ bytes: UnsafeRawBufferPointer) -> Instant? {
        // The range holds at most 15 digits (253 402 300 799 999), so 15
        // accumulated digits cannot overflow and more are out of range anyway.
        let negative = bytes.first == UInt8(ascii: "-")
        let start = negative ? 1 : 0
        let digitCount = bytes.count - start
        guard digitCount >= 1, digitCount <= 15 else { return nil }
        guard bytes[start] != UInt8(ascii: "0") || digitCount == 1 else { return nil }
        var magnitude: Int64 = 0
        for index in start ..< bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            magnitude = magnitude * 10 + Int64(digit)
        }
        let milliseconds = negative ? -magnitude : magnitude
        guard milliseconds >= Instant.minimum.seconds * 1_000,
              milliseconds <= Instant.maximum.seconds * 1_000 + 999
        else { return nil }
        let seconds = CivilDate.floorDivide(milliseconds, 1_000)
        let subsecondMilliseconds = milliseconds - seconds * 1_000   // 0 ... 999
        return Instant(seconds: seconds, nanoseconds: UInt32(subsecondMilliseconds) * 1_000_000)
    }

    /// Parses a UTC offset spelled exactly `+HH:MM` or `-HH:MM`, with `HH` in
    /// `00 ... 23` and `MM` in `00 ... 59`. `-00:00` is accepted and means UTC.
    ///
    /// Shared by `parseRFC3339(_:)` and by `--timezone` fixed offsets.
    ///
    /// - Returns: The offset in seconds east of UTC (`+09:00` → 32 400), or
    ///   `nil` for any other spelling (`+0900`, `+9:00`, `+24:00`, `Z`, ...).
    /// - Complexity: O(1).
    static func parseNumericOffset(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard bytes.count == 6, bytes[3] == UInt8(ascii: ":") else { return nil }
        let sign: Int32
        switch bytes[0] {
        case UInt8(ascii: "+"): sign = 1
        case UInt8(ascii: "-"): sign = -1
        default: return nil
        }
        let hours = digits(bytes, at: 1, count: 2)
        let minutes = digits(bytes, at: 4, count: 2)
        guard hours >= 0, hours <= 23, minutes >= 0, minutes <= 59 else { return nil }
        return sign * Int32(hours * 3_600 + minutes * 60)
    }

    /// Formats `instant` in UTC as `YYYY-MM-DDTHH:MM:SS.mmmZ`, truncating
    /// (never rounding) the digits below the millisecond, as the quality
    /// report's `first_event` and `last_event` require.
    ///
    /// Instants before 1970 are floored, not truncated toward zero: one
    /// nanosecond before the epoch is `1969-12-31T23:59:59.999Z`.
    ///
    /// - Precondition: `instant` is in `Instant.minimum ... Instant.maximum`
    ///   (other years are written with more digits or a sign).
    /// - Complexity: O(1). Allocates the result string; meant for output, not
    ///   for hot loops.
    static func formatUTCMilliseconds(_ instant: Instant) -> String {
        let dayNumber = CivilDate.floorDivide(instant.seconds, 86_400)
        let secondOfDay = Int(instant.seconds - dayNumber * 86_400)   // 0 ..< 86 400
        let date = CivilDate(dayNumber: dayNumber)
        let millisecond = Int(instant.nanoseconds / 1_000_000)
        return "\(date)T\(padded(secondOfDay / 3_600, 2)):\(padded(secondOfDay / 60 % 60, 2))"
            + ":\(padded(secondOfDay % 60, 2)).\(padded(millisecond, 3))Z"
    }

    // MARK: - Helpers

    /// The decimal value of `count` ASCII digits starting at `index`, or -1
    /// when any of them is not a digit. The caller checks bounds.
    @inline(__always)
    private static func digits(_ bytes: UnsafeRawBufferPointer, at index: Int, count: Int) -> Int {
        var value = 0
        for offset in index ..< index + count {
            let digit = bytes[offset] &- UInt8(ascii: "0")   // wraps above 9 for non-digits
            guard digit < 10 else { return -1 }
            value = value * 10 + Int(digit)
        }
        return value
    }

    /// For the bytes of `word` (little-endian) selected by `mask` (whole
    /// bytes, in pairs): nil unless each is an ASCII digit, else a word whose
    /// byte k is 10 × digit k + digit k + 1 (the first byte of each pair holds
    /// the pair's value).
    ///
    /// A byte is a digit exactly when its high nibble is 3 both as it is and
    /// with 6 added (0x3A–0x3F become 0x40–0x45). Adding 6 carries out of a
    /// byte only when that byte fails the first test, so the carry never
    /// decides the outcome.
    @inline(__always)
    private static func twoDigitPairs(_ word: UInt64, mask: UInt64) -> UInt64? {
        let high = 0xF0F0_F0F0_F0F0_F0F0 & mask, three = 0x3030_3030_3030_3030 & mask
        guard word & high == three, (word &+ (0x0606_0606_0606_0606 & mask)) & high == three else { return nil }
        let values = (word & mask) &- three   // every selected byte is 0x30 or more: no borrow
        return values &* 10 &+ (values >> 8)
    }

    /// The value of three ASCII digits in bytes 0–2 of `word` followed by a
    /// byte that is not a digit (byte 3), else nil.
    @inline(__always)
    private static func threeDigits(_ word: UInt32) -> Int? {
        let high: UInt32 = 0x00F0_F0F0, three: UInt32 = 0x0030_3030
        guard word & high == three, (word &+ 0x0006_0606) & high == three,
              (word >> 24) &- 0x30 >= 10
        else { return nil }
        let values = (word & 0x00FF_FFFF) &- three
        return Int(values & 0xFF) * 100 + Int(values >> 8 & 0xFF) * 10 + Int(values >> 16)
    }

    /// `value` in decimal, left-padded with zeros to `width` digits.
    private static func padded(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
