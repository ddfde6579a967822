/// A point in time at nanosecond precision, for the years 0001 through 9999 (UTC).
///
/// An instant is stored as whole seconds since the Unix epoch
/// (1970-01-01T00:00:00Z) plus a nanosecond part, both counted forward in time.
/// An instant before the epoch has negative `seconds` and a non-negative
/// `nanoseconds`: one nanosecond before the epoch is `(seconds: -1,
/// nanoseconds: 999_999_999)`.
///
/// A single `Int64` of nanoseconds only reaches about ±292 years around 1970,
/// which does not cover the years 0001–9999 that the contract allows, hence the
/// split representation. The values are exact integers; no floating point is
/// involved anywhere.
///
/// Instants compare in time order; equal instants are equal however they were
/// spelled (`2026-11-28T18:15:02+09:00` equals `2026-11-28T09:15:02Z`).
///
/// - Note: `Instant` does not check its own invariants when mutated; parsers
///   only ever produce values in `Instant.minimum ... Instant.maximum` with
///   `nanoseconds < 1_000_000_000`.
///
/// - Performance: 16 bytes, trivially copyable; comparison and hashing are a
///   couple of integer operations.
struct Instant: Comparable, Hashable, Sendable {
    /// Whole seconds since 1970-01-01T00:00:00Z, rounded toward negative
    /// infinity; may be negative.
    var seconds: Int64

    /// The sub-second part, in `0 ..< 1_000_000_000`.
    var nanoseconds: UInt32

    /// Creates an instant from its two parts.
    ///
    /// - Precondition: `nanoseconds < 1_000_000_000` (checked in debug builds only).
    @inline(__always)
    init(seconds: Int64, nanoseconds: UInt32) {
        assert(nanoseconds < 1_000_000_000, "nanoseconds out of range")
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// 0001-01-01T00:00:00Z, the earliest instant the contract accepts.
    static let minimum = Instant(seconds: -62_135_596_800, nanoseconds: 0)

    /// 9999-12-31T23:59:59.999999999Z, the latest instant the contract accepts.
    static let maximum = Instant(seconds: 253_402_300_799, nanoseconds: 999_999_999)

    /// Time order.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.seconds != rhs.seconds
            ? lhs.seconds < rhs.seconds
            : lhs.nanoseconds < rhs.nanoseconds
    }
}
