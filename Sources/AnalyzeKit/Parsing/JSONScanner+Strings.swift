/// Reading what a scan validated: a string value's raw bytes, a token's bytes,
/// and a string decoded to UTF-8 with its escapes resolved.
extension JSONScanner {
    /// The raw content of a string value without its quotes (valid as-is when
    /// the string has no escapes).
    func rawContent(_ value: JSONValue) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + value.start + 1, count: value.end - value.start - 2)
    }

    /// The bytes of a number or other literal token.
    func token(_ value: JSONValue) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + value.start, count: value.end - value.start)
    }

    /// Decodes a validated string value's content (escapes resolved, surrogate
    /// pairs joined) as UTF-8 into `output`, replacing its contents.
    func decodeString(_ value: JSONValue, into output: inout [UInt8]) {
        if !output.isEmpty { output.removeAll(keepingCapacity: true) }
        appendDecodedString(value, to: &output)
    }

    /// Decodes a validated string value's content (escapes resolved, surrogate
    /// pairs joined) as UTF-8 and appends it to `output`.
    ///
    /// Performance: decoding never lengthens a string (an escape of 2 bytes
    /// gives 1, one of 6 at most 3, a surrogate pair of 12 gives 4), so the
    /// bytes are written through a pointer into a temporary buffer of the
    /// content's length (on the stack when small) and appended at once: one
    /// array operation a string. (Appending byte by byte paid an array
    /// uniqueness check per byte: about 5 % of the instructions of a line
    /// whose strings had escapes.) Never inlined: callers test for escapes
    /// first, and their fast path stays small.
    @inline(never)
    func appendDecodedString(_ value: JSONValue, to output: inout [UInt8]) {
        let stop = value.end - 1
        let room = stop - (value.start + 1)
        guard room > 0 else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer in
            let out = buffer.baseAddress!
            var n = 0
            var i = value.start + 1
            while i < stop {
                let c = base[i]
                guard c == UInt8(ascii: "\\") else {
                    out[n] = c
                    n += 1
                    i += 1
                    continue
                }
                let e = base[i + 1]
                i += 2
                switch e {
                case UInt8(ascii: "b"): out[n] = 0x08; n += 1
                case UInt8(ascii: "f"): out[n] = 0x0C; n += 1
                case UInt8(ascii: "n"): out[n] = 0x0A; n += 1
                case UInt8(ascii: "r"): out[n] = 0x0D; n += 1
                case UInt8(ascii: "t"): out[n] = 0x09; n += 1
                case UInt8(ascii: "u"):
                    var scalar = hex4(at: i)!
                    i += 4
                    if scalar >= 0xD800 && scalar <= 0xDBFF {
                        let low = hex4(at: i + 2)!
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                    n += Self.writeUTF8(scalar, to: out + n)
                default: out[n] = e; n += 1  // \" \\ \/
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(start: out, count: n))
        }
    }

    /// Writes `scalar` as UTF-8 at `out`; returns how many bytes (1–4).
    @inline(__always)
    private static func writeUTF8(_ scalar: UInt32, to out: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case 0..<0x80:
            out[0] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            out[0] = UInt8(0xC0 | scalar >> 6)
            out[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            out[0] = UInt8(0xE0 | scalar >> 12)
            out[1] = UInt8(0x80 | (scalar >> 6) & 0x3F)
            out[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            out[0] = UInt8(0xF0 | scalar >> 18)
            out[1] = UInt8(0x80 | (scalar >> 12) & 0x3F)
            out[2] = UInt8(0x80 | (scalar >> 6) & 0x3F)
            out[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }
}
