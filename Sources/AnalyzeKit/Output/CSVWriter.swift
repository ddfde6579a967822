/// Builds RFC 4180 text: UTF-8, `\n` line ends, a field quoted exactly when
/// it holds `,` `"` `\r` or `\n` (inner quotes doubled).
struct CSVWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the row being built field by field (`field(_:)`) has a field yet.
    private var rowHasFields = false

    init(header: [String]) {
        row(header)
    }

    mutating func row(_ fields: [String]) {
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(field: Array(field.utf8))
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    /// A row whose fields are raw UTF-8 bytes (ids are compared and kept as bytes).
    mutating func row(bytes fields: [[UInt8]]) {
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(field: field)
        }
        bytes.append(UInt8(ascii: "\n"))
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
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        // Digits into a small buffer from the right, then copied in order.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: Int.min has 19 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            var rest = number.magnitude
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[position...]))
        }
    }

    /// Ends the row built with `field(_:)`.
    mutating func endRow() {
        bytes.append(UInt8(ascii: "\n"))
        rowHasFields = false
    }

    private mutating func startField() {
        if rowHasFields { bytes.append(UInt8(ascii: ",")) }
        rowHasFields = true
    }

    private mutating func append(field: [UInt8]) {
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
