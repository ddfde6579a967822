import CSupport

/// The 16 bytes of a canonical UUID string, for keeping `event_id`s small.
///
/// Identity events and quiz answers keep their `event_id` bytes to settle
/// ordering ties (SPEC §2, Order). Most ids are UUIDs: 36 bytes as text, 16
/// as the number they spell. An id is packed only when unpacking gives back
/// exactly its bytes — 8-4-4-4-12 hex digits with hyphens, all lowercase or
/// all uppercase — so comparisons, done on the unpacked text, are unchanged.
enum PackedUUID {
    /// How the digits of a packed id were written.
    enum Case { case lower, upper }

    static let textCount = 36
    static let byteCount = 16

    /// The 16 bytes `text` spells, and its case; nil when `text` is not a
    /// canonical UUID in one case.
    ///
    /// Performance: in C (`analyze_pack_uuid`), 16 digits at a time with SSE2
    /// (about half the instructions of a table lookup per digit, which is
    /// the path where SSE2 is absent).
    static func pack(_ text: UnsafeRawBufferPointer, into bytes: UnsafeMutableRawBufferPointer) -> Case? {
        guard text.count == textCount, bytes.count >= byteCount,
              let source = text.baseAddress, let target = bytes.baseAddress else { return nil }
        switch analyze_pack_uuid(source.assumingMemoryBound(to: UInt8.self), target.assumingMemoryBound(to: UInt8.self)) {
        case 1: return .lower
        case 2: return .upper
        default: return nil
        }
    }

    /// Writes the 36-byte text of packed `bytes` into `text`.
    static func unpack(_ bytes: UnsafeRawBufferPointer, case letterCase: Case, into text: UnsafeMutableRawBufferPointer) {
        let letters = letterCase == .lower ? UInt8(ascii: "a") : UInt8(ascii: "A")
        func digit(_ v: UInt8) -> UInt8 { v < 10 ? UInt8(ascii: "0") + v : letters + v - 10 }
        var nibbles = 0
        for i in 0..<textCount {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                text[i] = UInt8(ascii: "-")
                continue
            }
            let byte = bytes[nibbles >> 1]
            text[i] = digit(nibbles & 1 == 0 ? byte >> 4 : byte & 0x0F)
            nibbles += 1
        }
    }
}
