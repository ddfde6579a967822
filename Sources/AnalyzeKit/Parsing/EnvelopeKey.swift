/// The top-level keys the SPEC reads. The raw value indexes an envelope's
/// slots; ``EnvelopeKey/otherSlot`` takes every other key.
enum EnvelopeKey: Int, CaseIterable {
    case eventID, eventType, timestamp, deviceID, profileID, customerUserID, action

    /// The slot of keys the SPEC does not read.
    static let otherSlot = 7

    /// The key's spelling.
    var name: StaticString {
        switch self {
        case .eventID: "event_id"
        case .eventType: "event_type"
        case .timestamp: "timestamp"
        case .deviceID: "device_id"
        case .profileID: "profile_id"
        case .customerUserID: "customer_user_id"
        case .action: "action"
        }
    }

    /// Matches a decoded key by length, then by its bytes.
    init?(matching key: UnsafeRawBufferPointer) {
        switch key.count {
        case 6 where key.equals("action"): self = .action
        case 8 where key.equals("event_id"): self = .eventID
        case 9 where key.equals("timestamp"): self = .timestamp
        case 9 where key.equals("device_id"): self = .deviceID
        case 10 where key.equals("event_type"): self = .eventType
        case 10 where key.equals("profile_id"): self = .profileID
        case 16 where key.equals("customer_user_id"): self = .customerUserID
        default: return nil
        }
    }

    /// The slot of a decoded key: its raw value, or ``otherSlot``.
    static func slot(matching key: UnsafeRawBufferPointer) -> Int {
        EnvelopeKey(matching: key)?.rawValue ?? otherSlot
    }
}

/// Recognizes a plainly spelled envelope key, and where it ends, from the 17
/// bytes after its opening quote, without a branch on which key it is.
///
/// Keys come in any order and about a third are keys the SPEC does not read,
/// so a chain of compares (one branch per candidate) mispredicts about once
/// per key: about 10 mispredictions per line on the benchmark exports, in a
/// branch simulation. Here the key's first 7 bytes pick one of 8 table entries
/// by a multiplicative hash that is perfect for the seven keys (for `action`,
/// six letters, the seventh byte is its closing quote), and one test of both
/// words, under the entry's masks, and of the entry's closing quote decides.
///
/// Performance: three loads, a multiply, a table load and one test; no
/// branch depends on which key it is (the caller branches on match or not). The table is built once per process and
/// never freed.
struct EnvelopeKeyTable: @unchecked Sendable {
    private struct Entry {
        var low: UInt64
        var high: UInt64
        var lowMask: UInt64
        var highMask: UInt64
        var length: Int
        var slot: Int
    }

    /// Gives the seven keys' 7-byte prefixes seven distinct top-3-bit
    /// products (found by search; ``init()`` checks it).
    private static let multiplier: UInt64 = 0x1a2b_8f1f_f1fd_42a3
    private static let prefixMask: UInt64 = 0x00FF_FFFF_FFFF_FFFF
    private let entries: UnsafeMutablePointer<Entry>

    static let shared = EnvelopeKeyTable()

    private init() {
        entries = .allocate(capacity: 8)
        // An empty entry never matches: its zero words under all-ones masks
        // need sixteen zero bytes, and its closing quote would be the first.
        let none = Entry(low: 0, high: 0, lowMask: ~0, highMask: ~0, length: 0, slot: EnvelopeKey.otherSlot)
        entries.initialize(repeating: none, count: 8)
        for key in EnvelopeKey.allCases {
            let name = key.name
            let length = name.utf8CodeUnitCount
            // The key as it stands in a line: its bytes, then the closing quote.
            var spelled = [UInt8](repeating: 0, count: 17)
            for k in 0..<length { spelled[k] = name.utf8Start[k] }
            spelled[length] = UInt8(ascii: "\"")
            var masks = [UInt8](repeating: 0, count: 16)
            for k in 0..<length { masks[k] = 0xFF }
            func words(_ bytes: [UInt8]) -> (UInt64, UInt64) {
                bytes.withUnsafeBytes { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
            }
            let (lowMask, highMask) = words(masks)
            let (low, high) = words(spelled)
            let index = Self.index(low)
            precondition(entries[index].length == 0, "EnvelopeKeyTable.multiplier is not perfect for the envelope keys")
            entries[index] = Entry(
                low: low & lowMask, high: high & highMask, lowMask: lowMask, highMask: highMask, length: length,
                slot: key.rawValue)
        }
    }

    @inline(__always)
    private static func index(_ word: UInt64) -> Int {
        Int(truncatingIfNeeded: ((word & prefixMask) &* multiplier) >> 61)
    }

    /// The slot and length of the envelope key spelled plainly at `content`
    /// (the byte after a key's opening quote) and closed by a quote there, or
    /// nil: another key, or an envelope key written with escapes. At least 17
    /// bytes must be readable at `content`.
    ///
    /// A match needs no string scan: those bytes, a known key and its quote,
    /// are a complete, valid JSON string.
    @inline(__always)
    func match(content: UnsafeRawPointer) -> (slot: Int, length: Int)? {
        let low = UInt64(littleEndian: content.loadUnaligned(as: UInt64.self))
        let high = UInt64(littleEndian: content.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let entry = entries[Self.index(low)]
        // One test of the words and the closing quote (no short-circuit branches).
        let quote = content.load(fromByteOffset: entry.length & 31, as: UInt8.self) ^ UInt8(ascii: "\"")
        let difference = ((low & entry.lowMask) ^ entry.low) | ((high & entry.highMask) ^ entry.high)
            | UInt64(quote)
        return difference == 0 ? (entry.slot, entry.length) : nil
    }
}

extension UnsafeRawBufferPointer {
    /// Byte-wise equality with a static ASCII string (no `String` machinery).
    @inline(__always)
    func equals(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard count == n else { return false }
        guard n > 0 else { return true }
        return RawBytes.equal(baseAddress!, literal.utf8Start, count: n)
    }
}
