/// A canonical Huffman code of a deflate block (RFC 1951 §3.2.2) as a lookup
/// table indexed by the next input bits, least significant first.
///
/// A code of at most `primaryBits` bits is found with one lookup: its entry
/// is repeated at every index whose low bits are the code (bit-reversed, as
/// deflate packs codes). A longer code's first `primaryBits` bits lead to a
/// subtable indexed by the bits after them. Entries are `UInt32`s:
///
/// | bits | field |
/// |---|---|
/// | 0–4 | the code's whole length in bits (a link: `primaryBits`) |
/// | 5–8 | extra bits after the code (a length or distance); a link: its subtable's index bits; a literal: its bytes, 1 or 2 (``pairLiterals()``) |
/// | 12–15 | a literal pair: the first code's length |
/// | 9–11 | ``Kind`` |
/// | 16–31 | the literal byte, base length or base distance; a link: the subtable's offset |
///
/// Performance: one table of `primaryBits` = 10 for literals and lengths is
/// 1 024 entries, refilled for every dynamic block (zlib's Huffman-only
/// blocks hold about 16 000 symbols each), so the fill is a small part of a
/// block's decoding.
struct HuffmanTable {
    enum Kind: UInt32 {
        case literal = 0, lengthOrDistance = 1, endOfBlock = 2, link = 3, invalid = 4
    }

    /// Why a set of code lengths is not a usable code (zlib's words, used in
    /// messages by the caller).
    enum BuildError: Error {
        case overSubscribed, incomplete
    }

    let entries: UnsafeMutablePointer<UInt32>
    let primaryBits: Int
    let capacity: Int
    /// ``build``'s counts of codes per length and next code per length (16 each).
    private let scratch: UnsafeMutablePointer<Int>

    /// Room for a code over `symbolCount` symbols of at most `maxCodeLength`
    /// bits: the primary table and a subtable per symbol at most.
    init(primaryBits: Int, symbolCount: Int, maxCodeLength: Int = 15) {
        self.primaryBits = primaryBits
        capacity = (1 << primaryBits) + symbolCount << max(0, maxCodeLength - primaryBits)
        entries = .allocate(capacity: capacity)
        entries.initialize(repeating: Self.invalidEntry, count: capacity)
        scratch = .allocate(capacity: 32)
        scratch.initialize(repeating: 0, count: 32)
    }

    func deallocate() {
        entries.deallocate()
        scratch.deallocate()
    }

    /// A pattern no code begins with (an empty set, or one code of one bit):
    /// decided by its first bit, as zlib's tables decide it.
    static let invalidEntry = entry(kind: .invalid, length: 1, extra: 0, value: 0)

    @inline(__always)
    static func entry(kind: Kind, length: Int, extra: Int, value: Int) -> UInt32 {
        UInt32(length) | UInt32(extra) << 5 | kind.rawValue << 9 | UInt32(value) << 16
    }

    @inline(__always) static func length(_ entry: UInt32) -> Int { Int(entry & 31) }
    @inline(__always) static func extra(_ entry: UInt32) -> Int { Int((entry >> 5) & 15) }
    @inline(__always) static func kindBits(_ entry: UInt32) -> UInt32 { (entry >> 9) & 7 }
    @inline(__always) static func value(_ entry: UInt32) -> Int { Int(entry >> 16) }

    /// Fills the table for the code with `lengths` (one per symbol, 0: not
    /// used); `template` gives each symbol's entry without its length.
    ///
    /// As zlib: an over-subscribed set is an error; an incomplete one too,
    /// unless `allowsIncompleteSingleCode` and it is one code of one bit
    /// (or no code at all), whose unused patterns then decode as invalid.
    func build(lengths: UnsafePointer<UInt8>, count: Int, allowsIncompleteSingleCode: Bool,
               template: (Int) -> UInt32) throws(BuildError) {
        let perLength = scratch, nextCode = scratch + 16
        perLength.update(repeating: 0, count: 16)
        for symbol in 0..<count { perLength[Int(lengths[symbol])] += 1 }
        perLength[0] = 0
        var left = 1
        var maxLength = 0
        for length in 1...15 {
            left <<= 1
            left -= perLength[length]
            if left < 0 { throw .overSubscribed }
            if perLength[length] > 0 { maxLength = length }
        }
        if left > 0 && !(allowsIncompleteSingleCode && maxLength <= 1) { throw .incomplete }

        let primarySize = 1 << primaryBits
        entries.update(repeating: Self.invalidEntry, count: primarySize)
        // The first canonical code of each length.
        var code = 0
        for length in 1...15 {
            code = (code + perLength[length - 1]) << 1
            nextCode[length] = code
        }
        let subBits = max(0, maxLength - primaryBits)
        var nextSubtable = primarySize
        // RFC 1951's assignment: in symbol order, each length's codes count up.
        for symbol in 0..<count {
            let length = Int(lengths[symbol])
            guard length != 0 else { continue }
            let code = nextCode[length]
            nextCode[length] = code + 1
            let reversed = Self.reverse(code, bits: length)
            let entry = template(symbol) | UInt32(length)
            if length <= primaryBits {
                var index = reversed
                while index < primarySize {
                    entries[index] = entry
                    index += 1 << length
                }
                continue
            }
            let prefix = reversed & (primarySize - 1)
            var link = entries[prefix]
            if Self.kindBits(link) != Kind.link.rawValue {
                link = Self.entry(kind: .link, length: primaryBits, extra: subBits, value: nextSubtable)
                entries[prefix] = link
                (entries + nextSubtable).update(repeating: Self.invalidEntry, count: 1 << subBits)
                nextSubtable += 1 << subBits
            }
            let subtable = entries + Self.value(link)
            var index = reversed >> primaryBits
            while index < 1 << subBits {
                subtable[index] = entry
                index += 1 << (length - primaryBits)
            }
        }
    }

    /// The entry for the code at the low end of `bits`: a primary entry, or
    /// through its link the subtable's (indexed by the bits after the
    /// primary ones).
    @inline(__always)
    static func lookup(_ entries: UnsafeMutablePointer<UInt32>, _ bits: UInt64, primaryBits: Int) -> UInt32 {
        let entry = entries[Int(truncatingIfNeeded: bits & ((1 &<< UInt64(primaryBits)) &- 1))]
        guard kindBits(entry) == Kind.link.rawValue else { return entry }
        return entries[value(entry)
            + Int(truncatingIfNeeded: (bits &>> UInt64(primaryBits)) & ((1 &<< UInt64(extra(entry))) &- 1))]
    }

    /// Makes each primary entry of a literal that leaves room for a second
    /// whole literal code hold both: its length then covers both codes, its
    /// extra field (a literal's count of bytes, otherwise 1) is 2, the value
    /// holds the first byte and then the second, and bits 12–15 the first
    /// code's length (for a decoder with room for one byte only).
    ///
    /// Performance: decoding a literal is a chain of dependent steps (look
    /// up, shift by the code's length, look up again); a pair halves the
    /// chain for the frequent short codes of text (about 5 bits each in a
    /// Huffman-only export). One pass over the 2^`primaryBits` entries,
    /// from the top: an entry's second code is read from a lower index,
    /// not yet rewritten.
    func pairLiterals() {
        let literal = Kind.literal.rawValue
        var index = (1 << primaryBits) - 1
        while index >= 0 {
            // Without branches (whether an entry pairs is data, and unpredictable):
            // every entry's length is at least 1, so the second read is in the table.
            let first = entries[index]
            let firstLength = Self.length(first)
            let second = entries[index >> firstLength]
            let bothLength = firstLength + Self.length(second)
            let pairs = Self.kindBits(first) == literal && Self.kindBits(second) == literal && bothLength <= primaryBits
            let pair = Self.entry(kind: .literal, length: bothLength & 31, extra: 2,
                                  value: Self.value(first) | (Self.value(second) & 0xFF) << 8)
                | UInt32(firstLength) << 12
            entries[index] = pairs ? pair : first
            index -= 1
        }
    }

    /// A literal pair's first code length (see ``pairLiterals()``).
    @inline(__always) static func firstLength(_ entry: UInt32) -> Int { Int((entry >> 12) & 15) }

    @inline(__always)
    static func reverse(_ code: Int, bits: Int) -> Int {
        var value = UInt16(truncatingIfNeeded: code)
        value = value >> 1 & 0x5555 | (value & 0x5555) << 1
        value = value >> 2 & 0x3333 | (value & 0x3333) << 2
        value = value >> 4 & 0x0F0F | (value & 0x0F0F) << 4
        value = value >> 8 | value << 8
        return Int(value >> (16 - bits))
    }
}
