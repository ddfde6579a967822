/// A date in the proleptic Gregorian calendar: a year, a month and a day,
/// with no time and no time zone.
///
/// Dates convert to and from a *day number*, the count of days since
/// 1970-01-01 (negative before it). Metrics group events by day number and
/// only turn the few distinct days back into `CivilDate`s when writing CSVs.
///
/// The Gregorian leap-year rule is applied to all years, including those
/// before 1582 and year 0 (1 BC); this matches RFC 3339 and ISO 8601.
///
/// - Performance: Both conversions are a handful of integer multiplications
///   and divisions with no loops or tables (the approach of Howard Hinnant's
///   "chrono-Compatible Low-Level Date Algorithms": count from 0000-03-01 so
///   that February, the irregular month, comes last in each year, and work in
///   400-year eras of exactly 146 097 days).
struct CivilDate: Comparable, Hashable, Sendable {
    /// The year; `1` is 1 AD, `0` is 1 BC.
    var year: Int32
    /// The month, `1 ... 12`.
    var month: UInt8
    /// The day of the month, `1 ... 31`.
    var day: UInt8

    /// Creates a date from its fields without validating them.
    ///
    /// Use `CivilDate.isValid(year:month:day:)` first for untrusted input.
    init(year: Int32, month: UInt8, day: UInt8) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Creates the date that is `dayNumber` days after 1970-01-01.
    ///
    /// - Precondition: The resulting year fits in `Int32`
    ///   (`abs(dayNumber)` below about 7.8 × 10¹¹).
    /// - Complexity: O(1).
    init(dayNumber: Int64) {
        // Shift the origin to 0000-03-01 (719 468 days before 1970-01-01).
        let shifted = dayNumber + 719_468
        let era = Self.floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097                        // 0 ... 146 096
        // Every 4th year has an extra day, except every 100th, except every
        // 400th; the corrections below undo those leap days before dividing.
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524
            - dayOfEra / 146_096) / 365                               // 0 ... 399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        // Months from March: 31 30 31 30 31 31 30 31 30 31 31 28/29, which
        // (153 * m + 2) / 5 reproduces as a running total.
        let marchMonth = (5 * dayOfYear + 2) / 153                    // 0 = March
        let day = dayOfYear - (153 * marchMonth + 2) / 5 + 1
        let month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
        let year = era * 400 + yearOfEra + (month <= 2 ? 1 : 0)
        self.init(year: Int32(year), month: UInt8(month), day: UInt8(day))
    }

    /// The number of days from 1970-01-01 to this date (negative before it).
    ///
    /// Only meaningful for valid dates (see `isValid(year:month:day:)`).
    ///
    /// - Complexity: O(1).
    var dayNumber: Int64 {
        Self.dayNumber(year: Int64(year), month: Int64(month), day: Int64(day))
    }

    /// The day number of a year, month and day given as plain integers, for
    /// parsers that have not built a `CivilDate`.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    static func dayNumber(year: Int64, month: Int64, day: Int64) -> Int64 {
        // Years start on March 1 here, so January and February belong to the
        // previous year.
        let marchYear = month <= 2 ? year - 1 : year
        let era = floorDivide(marchYear, 400)
        let yearOfEra = marchYear - era * 400                         // 0 ... 399
        let marchMonth = month <= 2 ? month + 9 : month - 3           // 0 = March
        let dayOfYear = (153 * marchMonth + 2) / 5 + day - 1
        let dayOfEra = 365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Whether `year`-`month`-`day` names a real day: a month in `1 ... 12`
    /// and a day that exists in that month (February 29 only in leap years:
    /// divisible by 4, and not by 100 unless by 400).
    ///
    /// - Complexity: O(1).
    @inline(__always)
    static func isValid(year: Int32, month: UInt8, day: UInt8) -> Bool {
        guard month >= 1, month <= 12, day >= 1 else { return false }
        return day <= daysInMonth(year: year, month: month)
    }

    /// The number of days in `month` (`1 ... 12`) of `year`.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    static func daysInMonth(year: Int32, month: UInt8) -> UInt8 {
        switch month {
        case 2:
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return leap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }

    /// Chronological order.
    static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// `a / b` rounded toward negative infinity (Swift's `/` truncates toward
    /// zero). `b` must be positive.
    @inline(__always)
    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return a % b < 0 ? quotient - 1 : quotient
    }
}

extension CivilDate: CustomStringConvertible {
    /// `YYYY-MM-DD`, the year zero-padded to at least 4 digits
    /// (`0001-01-01`, `2026-11-28`; a negative year gets a leading `-`).
    var description: String {
        var text: [UInt8] = []
        appendText(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `description`'s UTF-8 bytes to `bytes`.
    ///
    /// - Performance: No `String` is built: a zero-filled `installs.csv` may
    ///   have millions of rows.
    func appendText(to bytes: inout [UInt8]) {
        if year < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = UInt64(year.magnitude)
        var divisor: UInt64 = 1_000
        while divisor * 10 <= magnitude { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        }
        func twoDigits(_ part: UInt8) {
            bytes.append(UInt8(ascii: "-"))
            bytes.append(UInt8(ascii: "0") + part / 10)
            bytes.append(UInt8(ascii: "0") + part % 10)
        }
        twoDigits(month)
        twoDigits(day)
    }
}
