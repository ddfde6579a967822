/// Builds RFC 4180 text: UTF-8, `\n` line ends, a field quoted exactly when
/// it holds `,` `"` `\r` or `\n` (inner quotes doubled).
struct CSVWriter {
    private(set) var bytes: [UInt8] = []

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
