/// Builds RFC 4180 text: UTF-8, `\n` line ends, a field quoted exactly when
/// it holds `,` `"` `\r` or `\n` (inner quotes doubled).
///
/// Without a sink the writer keeps the whole text in `bytes`. With one it
/// hands the text on in blocks, each ending at a row's end, once at least
/// `blockSize` bytes have gathered, and `finish()` hands on the rest: a file's
/// text is then never held whole (a zero-filled `installs.csv` over a far-away
/// date has millions of rows).
struct CSVWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the row being built field by field (`field(_:)` and the
    /// others) has a field yet.
    private var rowHasFields = false
    private let sink: (([UInt8]) -> Void)?
    private let blockSize: Int

    /// A writer that keeps the whole text in `bytes`, or with a `sink` hands
    /// it on in blocks of at least `blockSize` bytes (the last one, from
    /// `finish()`, may be shorter).
    init(header: [String], blockSize: Int = 1 << 16, sink: (([UInt8]) -> Void)? = nil) {
        self.sink = sink
        self.blockSize = blockSize
        row(header)
    }

    /// Hands what is left to the sink (a writer without one keeps it in `bytes`).
    mutating func finish() {
        guard let sink, !bytes.isEmpty else { return }
        sink(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    mutating func row(_ fields: [String]) {
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(field: field.utf8)
        }
        endOfRow()
    }

    /// Appends a date (`CivilDate.description`'s text) as the next field of
    /// the row being built; end the row with `endRow()`.
    ///
    /// - Performance: Dates and numbers go straight into the text, with no
    ///   `String` per field: a zero-filled `installs.csv` may have millions of
    ///   rows (SPEC §4.1 zero-fills from the first install day to the last).
    mutating func field(_ date: CivilDate) {
        startField()
        date.appendText(to: &bytes)
    }

    /// Appends an integer in decimal as the next field of the row being built.
    mutating func field(_ number: Int) {
        startField()
        appendDecimal(number.magnitude, negative: number < 0, decimals: 0)
    }

    /// Appends `scaled` ÷ 10^`decimals` (`scaled` ≥ 0, 1 ≤ `decimals` ≤ 18) as
    /// the next field, with exactly `decimals` digits after the point: 3 125
    /// with 4 decimals is `0.3125`, 10 000 is `1.0000`.
    mutating func field(_ scaled: Int, decimals: Int) {
        precondition(scaled >= 0 && (1...18).contains(decimals), "a fixed-point field takes a scaled value ≥ 0 and 1–18 decimals")
        startField()
        appendDecimal(scaled.magnitude, negative: false, decimals: decimals)
    }

    /// Appends `magnitude` ÷ 10^`decimals` (0–18 decimals; none: no point),
    /// signed when `negative`.
    ///
    /// - Performance: the text is built from the right in a small buffer and
    ///   appended once (the fixed-point field appended a byte at a time, then
    ///   reversed them: about a quarter of the time writing a quiz of millions
    ///   of rows took).
    private mutating func appendDecimal(_ magnitude: UInt, negative: Bool, decimals: Int) {
        // 32 bytes; at most 21 are written: a sign, 19 digits (an Int's
        // most), a point and a leading 0 before 18 decimals.
        var text: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { buffer in
            var position = buffer.count
            var rest = magnitude
            func put(_ byte: UInt8) {
                position -= 1
                buffer[position] = byte
            }
            func digit() {
                put(UInt8(ascii: "0") + UInt8(rest % 10))
                rest /= 10
            }
            for _ in 0..<decimals { digit() }
            if decimals > 0 { put(UInt8(ascii: ".")) }
            repeat { digit() } while rest > 0
            if negative { put(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[position...]))
        }
    }

    /// Appends text (UTF-8 bytes: an array's, a string's `utf8`) as the next
    /// field of the row being built, quoted when it must be.
    mutating func field<Text: Collection<UInt8>>(text: Text) {
        startField()
        append(field: text)
    }

    /// Ends the row built with `field(_:)`.
    mutating func endRow() {
        rowHasFields = false
        endOfRow()
    }

    private mutating func endOfRow() {
        bytes.append(UInt8(ascii: "\n"))
        if bytes.count >= blockSize, let sink {
            sink(bytes)
            bytes.removeAll(keepingCapacity: true)
        }
    }

    private mutating func startField() {
        if rowHasFields { bytes.append(UInt8(ascii: ",")) }
        rowHasFields = true
    }

    private mutating func append<Text: Collection<UInt8>>(field: Text) {
        let needsQuotes = field.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }
        guard needsQuotes else {
            bytes.append(contentsOf: field)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in field {
            if byte == UInt8(ascii: "\"") { bytes.append(byte) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
