/// The `--max-reject-rate` limit, kept as the exact decimal it was written as.
///
/// SPEC §5: a run fails when `rejected / lines` is *strictly* greater than R.
/// Compared as doubles, 1 rejected line of 3 against `0.3333333333333333`
/// is not greater (both round to the same double), though 1/3 is. So R keeps
/// its decimal digits, and ``isExceeded(rejected:lines:)`` compares them with
/// the digits of `rejected / lines` found by long division: exact, with no
/// number wider than `lines × 10`.
public struct RejectRate: Equatable, Sendable, CustomStringConvertible {
    /// The value as written on the command line.
    public let text: String
    /// R = 0.d₁d₂… × 10^`point`, with `significant` = d₁d₂… (no leading or
    /// trailing zeros; empty when R is 0, `point` then 0).
    private let point: Int
    private let significant: [UInt8]

    /// R ≥ 1: never exceeded (a share of lines is at most 1).
    private var isAtLeastOne: Bool { !significant.isEmpty && point > 0 }

    /// The default: 1.0, never exceeded.
    public static let never = RejectRate(parsing: "1.0")!

    /// Parses a non-negative decimal: digits with an optional fraction
    /// (`5`, `0.05`, `.5`, `5.`), then an optional exponent (`1e-2`, `5E+0`);
    /// nil for anything else (a sign, `nan`, `inf`, hex).
    public init?(parsing text: String) {
        var mantissa: [UInt8] = []
        var pointIndex: Int?
        var exponent = 0
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.first, (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".") {
            if byte == UInt8(ascii: ".") {
                guard pointIndex == nil else { return nil }
                pointIndex = mantissa.count
            } else {
                mantissa.append(byte - UInt8(ascii: "0"))
            }
            bytes = bytes.dropFirst()
        }
        guard !mantissa.isEmpty else { return nil }  // "", ".", "e5"
        if let byte = bytes.first {
            guard byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") else { return nil }
            bytes = bytes.dropFirst()
            var negative = false
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                negative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
            // Exponents beyond ±10^15 decide nothing more (clamped, no overflow).
            var magnitude = 0
            for byte in bytes { magnitude = min(magnitude * 10 + Int(byte - UInt8(ascii: "0")), 1_000_000_000_000_000) }
            exponent = negative ? -magnitude : magnitude
        }
        // The value is 0.m1 m2 … × 10^point: `point` digits of the mantissa
        // stand before the decimal point.
        var point = (pointIndex ?? mantissa.count) + exponent
        let firstNonzero = mantissa.firstIndex { $0 != 0 } ?? mantissa.count
        point -= firstNonzero
        var significant = Array(mantissa[firstNonzero...])
        while significant.last == 0 { significant.removeLast() }
        self.text = text
        self.significant = significant
        self.point = significant.isEmpty ? 0 : point
    }

    /// Whether `rejected / lines` is strictly greater than this rate; never
    /// with no lines.
    ///
    /// Performance: a loop over R's digits (at most about 20 more than it
    /// was written with), once per run.
    public func isExceeded(rejected: Int, lines: Int) -> Bool {
        guard lines > 0, rejected > 0, !isAtLeastOne else { return false }
        if rejected >= lines { return true }  // 1 > R
        if significant.isEmpty { return true }  // any share > 0
        // R = 0.(leadingZeros zeros)d₁d₂…; rejected / lines ≥ 1 / lines >
        // 10^-20 (lines < 10^19) has a nonzero digit within 20 places.
        let leadingZeros = -point
        if leadingZeros >= 20 { return true }
        var remainder = rejected
        for place in 0..<(leadingZeros + significant.count) {
            remainder *= 10
            let digit = remainder / lines
            remainder %= lines
            let limit = place < leadingZeros ? 0 : Int(significant[place - leadingZeros])
            if digit != limit { return digit > limit }
        }
        return remainder > 0  // equal so far: greater only if more digits follow
    }

    public var description: String { text }

    /// Equal when the values are, however written (`0.5`, `.50`, `5e-1`).
    public static func == (a: RejectRate, b: RejectRate) -> Bool {
        a.point == b.point && a.significant == b.significant
    }
}
