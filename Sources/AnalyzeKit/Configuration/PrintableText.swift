/// Text from the command line (paths, option values) made safe to print in a
/// one-line message on a terminal.
///
/// A file name may hold any byte but `/` and NUL: a line feed in it would
/// split a message over two lines, and an escape sequence (ESC, or the C1
/// control CSI) would be obeyed by the terminal. Each C0 control, DEL and C1
/// control is written as an escape: `\n`, `\r`, `\t`, else `\xHH` (C1
/// controls as `\u{HHHH}`). Everything else, backslashes included, is kept
/// as it is, so a name with a literal `\n` in it reads the same as one with a
/// line feed; messages are for people, and `rejects.csv` keeps the name
/// exactly (quoted as RFC 4180 asks).
public enum PrintableText {
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += scalar.value < 0x80
                    ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
                    : "\\u{" + String(repeating: "0", count: 4 - hex.count) + hex + "}"
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0)
    }
}
