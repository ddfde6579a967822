#if canImport(Glibc)
import Glibc
#endif

/// A streaming decoder of raw deflate (RFC 1951): one gzip member's data.
///
/// ``decode(_:into:)`` takes any amount of input and room for output, and
/// returns what it consumed and produced; it stops at the output's end, the
/// input's end or the final block's end (``isDone``). Bits of a symbol or
/// block header cut by the input's end wait in the bit buffer for the next
/// call, so every byte given is consumed until the data ends. Output goes
/// straight into the caller's buffer; the last 32 KiB of the member's output
/// are kept in a window of its own, since a match may refer back into
/// buffers the caller has already handed on.
///
/// Performance: a 64-bit bit buffer refilled with one unaligned 8-byte load
/// per symbol (it then holds at least 56 bits: a length, a distance and their
/// extra bits); literal/length codes of up to 10 bits and distance codes of
/// up to 8 found in one lookup (``HuffmanTable``), two short literal codes in
/// one entry, and up to four entries of literals (eight bytes) per refill;
/// matches copied 16 bytes and then 8 at a time, runs of one byte 8 at a
/// time. That fast loop runs while 8 bytes of input and 274 bytes of output
/// room are left; a careful loop finishes each call.
final class DeflateDecoder {
    private enum State {
        /// At a block's first bit.
        case blockHeader
        /// A dynamic block's header: its three counts.
        case tableCounts
        /// A dynamic block's header: the code-length code's lengths read so far.
        case codeLengthLengths(Int)
        /// A dynamic block's header: the literal/length and distance code lengths read so far.
        case codeLengths(Int)
        /// A stored block's LEN and NLEN.
        case storedHeader
        /// Copying a stored block: bytes left.
        case stored(Int)
        /// Decoding a compressed block's symbols.
        case huffman
        /// A match that did not fit in the output: bytes left, distance.
        case copy(Int, Int)
        /// After the final block; the bit buffer is aligned to a byte.
        case done
    }

    private var state = State.blockHeader
    private var isFinalBlock = false
    private var bitBuffer: UInt64 = 0
    private var bitCount = 0
    /// The member's output before this call (for distances too far back).
    private var memberOutput = 0

    private let window: UnsafeMutablePointer<UInt8>
    private var windowCount = 0
    static let windowSize = 1 << 15

    /// The tables' primary index bits (the fast loop's bit budget assumes these).
    private static let literalBits = 10, distanceBits = 8
    private let literals = HuffmanTable(primaryBits: literalBits, symbolCount: 288)
    private let distances = HuffmanTable(primaryBits: distanceBits, symbolCount: 32)
    private let codeLengthCode = HuffmanTable(primaryBits: 7, symbolCount: 19, maxCodeLength: 7)
    /// A dynamic header's code lengths (literals and lengths, then distances).
    private let lengths = UnsafeMutablePointer<UInt8>.allocate(capacity: 320)
    private var literalCount = 0, distanceCount = 0, codeLengthCount = 0
    /// Whether `literals` and `distances` hold the fixed code, so that a run
    /// of fixed blocks (or of small members, each starting with one) builds
    /// it once. Rebuilt per block, 7.2 million empty fixed blocks (10 bits
    /// each) before 1 MB of text took 43 s instead of 0.3 (a review of
    /// hostile inputs, sixty-third session).
    private var tablesHoldFixedCode = false

    init() {
        window = .allocate(capacity: Self.windowSize)
    }

    deinit {
        window.deallocate()
        literals.deallocate()
        distances.deallocate()
        codeLengthCode.deallocate()
        lengths.deallocate()
    }

    /// Ready for another member's data.
    func reset() {
        state = .blockHeader
        isFinalBlock = false
        bitBuffer = 0
        bitCount = 0
        memberOutput = 0
        windowCount = 0
    }

    /// Whether the final block has ended.
    var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    /// Once ``isDone``: the whole bytes after the data that the bit buffer
    /// read ahead (at most 7, the start of a gzip trailer), low byte first,
    /// and their count; the buffer is then empty.
    func takeBufferedBytes() -> (bytes: UInt64, count: Int) {
        let buffered = (bitBuffer, bitCount / 8)
        bitBuffer = 0
        bitCount = 0
        return buffered
    }

    struct Failure: Error {
        var reason: String
    }

    /// After a call that threw: how far into that call's input the decoder
    /// had read, the bit buffer's unused whole bytes given back (negative when
    /// the failing code began in an earlier call's input). So the damage is
    /// at or before this byte. Both decoding loops stop at the same bit (before
    /// an invalid code, after a distance too far back), so the same byte is
    /// named however the input and the output room were cut into calls.
    private(set) var failedAt = 0

    // MARK: - Codes

    private static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                            35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                              257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                              8193, 12289, 16385, 24577]

    /// Each symbol's table entry without its code length.
    private static let literalTemplates: [UInt32] = (0..<288).map { symbol in
        switch symbol {
        case ..<256:
            HuffmanTable.entry(kind: .literal, length: 0, extra: 1, value: symbol)
        case 256:
            HuffmanTable.entry(kind: .endOfBlock, length: 0, extra: 0, value: 0)
        case 257...284:
            HuffmanTable.entry(kind: .lengthOrDistance, length: 0, extra: symbol < 265 ? 0 : (symbol - 261) / 4,
                               value: lengthBase[symbol - 257])
        case 285:
            HuffmanTable.entry(kind: .lengthOrDistance, length: 0, extra: 0, value: 258)
        default:
            HuffmanTable.entry(kind: .invalid, length: 0, extra: 0, value: 0)
        }
    }
    private static let distanceTemplates: [UInt32] = (0..<32).map { symbol in
        symbol < 30
            ? HuffmanTable.entry(kind: .lengthOrDistance, length: 0, extra: symbol < 4 ? 0 : symbol / 2 - 1,
                                 value: distanceBase[symbol])
            : HuffmanTable.entry(kind: .invalid, length: 0, extra: 0, value: 0)
    }
    private static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    private func buildFixedTables() {
        for i in 0..<288 { lengths[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8 }
        for i in 0..<32 { lengths[288 + i] = 5 }
        // The fixed codes are complete: these cannot fail.
        try! literals.build(lengths: lengths, count: 288, allowsIncompleteSingleCode: false) { Self.literalTemplates[$0] }
        literals.pairLiterals()
        try! distances.build(lengths: lengths + 288, count: 32, allowsIncompleteSingleCode: false) { Self.distanceTemplates[$0] }
    }

    // MARK: - Decoding

    /// Decodes from `input` into `output`; see the type's notes.
    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        throws(Failure) -> (consumed: Int, produced: Int)
    {
        guard let inputBase = input.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let outputBase = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return (0, 0) }
        var cursor = Cursor(next: inputBase, end: inputBase + input.count, bits: bitBuffer, count: bitCount)
        var out = outputBase
        let outEnd = outputBase + output.count
        defer {
            bitBuffer = cursor.bits
            bitCount = cursor.count
            failedAt = cursor.next - inputBase - cursor.count / 8
            let produced = out - outputBase
            memberOutput += produced
            keepWindow(UnsafeBufferPointer(start: outputBase, count: produced))
        }
        decoding: while true {
            switch state {
            case .done:
                break decoding
            case .blockHeader:
                if isFinalBlock {
                    cursor.take(cursor.count & 7)
                    state = .done
                    continue
                }
                guard cursor.need(3) else { break decoding }
                isFinalBlock = cursor.take(1) == 1
                switch cursor.take(2) {
                case 0:
                    cursor.take(cursor.count & 7)
                    state = .storedHeader
                case 1:
                    if !tablesHoldFixedCode {
                        buildFixedTables()
                        tablesHoldFixedCode = true
                    }
                    state = .huffman
                case 2:
                    state = .tableCounts
                default:
                    throw Failure(reason: "invalid block type")
                }
            case .tableCounts:
                guard cursor.need(14) else { break decoding }
                literalCount = cursor.take(5) + 257
                distanceCount = cursor.take(5) + 1
                codeLengthCount = cursor.take(4) + 4
                guard literalCount <= 286 && distanceCount <= 30 else {
                    throw Failure(reason: "too many length or distance symbols")
                }
                for i in 0..<19 { lengths[i] = 0 }
                state = .codeLengthLengths(0)
            case .codeLengthLengths(var i):
                while i < codeLengthCount {
                    guard cursor.need(3) else { state = .codeLengthLengths(i); break decoding }
                    lengths[Self.codeLengthOrder[i]] = UInt8(cursor.take(3))
                    i += 1
                }
                // No code at all: zlib then reads every length as 0 and fails on the
                // missing end-of-block code; the same words here.
                if (0..<19).allSatisfy({ lengths[$0] == 0 }) {
                    throw Failure(reason: "invalid code -- missing end-of-block")
                }
                do {
                    try codeLengthCode.build(lengths: lengths, count: 19, allowsIncompleteSingleCode: false) {
                        HuffmanTable.entry(kind: .literal, length: 0, extra: 0, value: $0)
                    }
                } catch {
                    throw Failure(reason: "invalid code lengths set")
                }
                state = .codeLengths(0)
            case .codeLengths(let start):
                guard try readCodeLengths(&cursor, from: start) else { break decoding }
                state = .huffman
            case .storedHeader:
                guard cursor.need(32) else { break decoding }
                let length = cursor.take(16)
                guard length == cursor.take(16) ^ 0xFFFF else { throw Failure(reason: "invalid stored block lengths") }
                state = .stored(length)
            case .stored(var left):
                // Whole bytes the bit buffer read ahead come first.
                while left > 0 && cursor.count >= 8 && out < outEnd {
                    out.pointee = UInt8(cursor.take(8))
                    out += 1
                    left -= 1
                }
                let n = min(left, outEnd - out, cursor.end - cursor.next)
                out.update(from: cursor.next, count: n)
                out += n
                cursor.next += n
                left -= n
                state = left == 0 ? .blockHeader : .stored(left)
                if left > 0 { break decoding }  // out of input or of output
            case .copy(let length, let distance):
                guard out < outEnd else { break decoding }
                let n = min(length, outEnd - out)
                copyMatch(to: out, length: n, distance: distance, outputStart: outputBase)
                out += n
                state = length == n ? .huffman : .copy(length - n, distance)
            case .huffman:
                guard out < outEnd else { break decoding }
                if try !decodeSymbols(&cursor, out: &out, outEnd: outEnd, outputStart: outputBase) { break decoding }
            }
        }
        return (cursor.next - inputBase, out - outputBase)
    }

    /// Reads a dynamic header's code lengths from the `start`-th and builds
    /// the block's codes; false when the input ends first (the state then
    /// says where to go on).
    private func readCodeLengths(_ cursor: inout Cursor, from start: Int) throws(Failure) -> Bool {
        let total = literalCount + distanceCount
        var i = start
        while i < total {
            // A code-length code is at most 7 bits, its repeat count at most 7 more.
            _ = cursor.need(14)
            let entry = codeLengthCode.entries[Int(truncatingIfNeeded: cursor.bits & 0x7F)]
            let codeLength = HuffmanTable.length(entry)
            let symbol = HuffmanTable.value(entry)
            let extra = symbol < 16 ? 0 : symbol == 16 ? 2 : symbol == 17 ? 3 : 7
            guard codeLength + extra <= cursor.count else {
                state = .codeLengths(i)
                return false
            }
            cursor.take(codeLength)
            if symbol < 16 {
                lengths[i] = UInt8(symbol)
                i += 1
                continue
            }
            var repeated: UInt8 = 0
            var times: Int
            switch symbol {
            case 16:
                guard i > 0 else { throw Failure(reason: "invalid bit length repeat") }
                repeated = lengths[i - 1]
                times = 3 + cursor.take(2)
            case 17:
                times = 3 + cursor.take(3)
            default:
                times = 11 + cursor.take(7)
            }
            guard i + times <= total else { throw Failure(reason: "invalid bit length repeat") }
            while times > 0 {
                lengths[i] = repeated
                i += 1
                times -= 1
            }
        }
        guard lengths[256] != 0 else { throw Failure(reason: "invalid code -- missing end-of-block") }
        tablesHoldFixedCode = false
        do {
            try literals.build(lengths: lengths, count: literalCount, allowsIncompleteSingleCode: true) {
                Self.literalTemplates[$0]
            }
        } catch {
            throw Failure(reason: "invalid literal/lengths set")
        }
        literals.pairLiterals()
        do {
            try distances.build(lengths: lengths + literalCount, count: distanceCount,
                                allowsIncompleteSingleCode: true) { Self.distanceTemplates[$0] }
        } catch {
            throw Failure(reason: "invalid distances set")
        }
        return true
    }

    /// Decodes a compressed block's symbols. Returns true at the block's end
    /// (the state then `.blockHeader`) and false when the output is full or the
    /// input ends inside a symbol (whose bits stay in the buffer).
    private func decodeSymbols(_ cursor: inout Cursor, out output: inout UnsafeMutablePointer<UInt8>,
                               outEnd: UnsafeMutablePointer<UInt8>, outputStart: UnsafeMutablePointer<UInt8>)
        throws(Failure) -> Bool
    {
        let literalEntries = literals.entries, distanceEntries = distances.entries
        let earlier = memberOutput
        let fastEnd = cursor.end - 8
        // Locals, not the inout parameters, so that they stay in registers.
        var bits = cursor.bits, count = cursor.count, next = cursor.next
        var out = output
        defer {
            output = out
            // Bits above the count may hold part of the byte at `next` (a
            // refill's read-ahead), which a later load reads again.
            cursor.bits = bits & ((1 &<< UInt64(count)) &- 1)
            cursor.count = count
            cursor.next = next
        }
        // Fast loop: input for a whole refill, output for a whole match and an 8-byte overrun.
        while next <= fastEnd && outEnd - out >= 274 {
            bits |= UInt64(littleEndian: UnsafeRawPointer(next).loadUnaligned(as: UInt64.self)) &<< UInt64(count)
            next += (63 - count) >> 3
            count |= 56
            let entry = HuffmanTable.lookup(literalEntries, bits, primaryBits: Self.literalBits)
            let codeLength = HuffmanTable.length(entry)
            bits &>>= UInt64(codeLength)
            count -= codeLength
            switch HuffmanTable.kindBits(entry) {
            case HuffmanTable.Kind.literal.rawValue:
                // One or two bytes (a pair); storing two is safe with 274 bytes of room.
                UnsafeMutableRawPointer(out).storeBytes(of: UInt16(truncatingIfNeeded: entry >> 16).littleEndian, as: UInt16.self)
                out += HuffmanTable.extra(entry)
                // Three more primary entries of up to 10 bits fit in the 41 bits left.
                for _ in 0..<3 {
                    let more = literalEntries[Int(truncatingIfNeeded: bits & (1 << Self.literalBits - 1))]
                    guard HuffmanTable.kindBits(more) == HuffmanTable.Kind.literal.rawValue else { break }
                    let moreLength = HuffmanTable.length(more)
                    bits &>>= UInt64(moreLength)
                    count -= moreLength
                    UnsafeMutableRawPointer(out).storeBytes(of: UInt16(truncatingIfNeeded: more >> 16).littleEndian, as: UInt16.self)
                    out += HuffmanTable.extra(more)
                }
            case HuffmanTable.Kind.lengthOrDistance.rawValue:
                let extra = HuffmanTable.extra(entry)
                let length = HuffmanTable.value(entry) + Int(truncatingIfNeeded: bits & ((1 &<< UInt64(extra)) &- 1))
                bits &>>= UInt64(extra)
                count -= extra
                let distanceEntry = HuffmanTable.lookup(distanceEntries, bits, primaryBits: Self.distanceBits)
                guard HuffmanTable.kindBits(distanceEntry) == HuffmanTable.Kind.lengthOrDistance.rawValue else {
                    // Stopped before the length code, as the careful loop stops
                    // (``failedAt`` must not depend on which loop found it).
                    count += codeLength + extra
                    throw Failure(reason: "invalid distance code")
                }
                let distanceCodeLength = HuffmanTable.length(distanceEntry)
                bits &>>= UInt64(distanceCodeLength)
                count -= distanceCodeLength
                let distanceExtra = HuffmanTable.extra(distanceEntry)
                let distance = HuffmanTable.value(distanceEntry)
                    + Int(truncatingIfNeeded: bits & ((1 &<< UInt64(distanceExtra)) &- 1))
                bits &>>= UInt64(distanceExtra)
                count -= distanceExtra
                let here = out - outputStart
                guard distance <= earlier + here else { throw Failure(reason: "invalid distance too far back") }
                if distance >= 8 && distance <= here {
                    // 16 bytes at once (most matches are that short; the room
                    // allows the overrun), then 8 at a time: with a distance of
                    // at least 8, each load reads bytes already written.
                    var source = out - distance, target = out
                    copyWord(from: source, to: target)
                    copyWord(from: source + 8, to: target + 8)
                    if length > 16 {
                        let end = out + length
                        source += 16
                        target += 16
                        repeat {
                            copyWord(from: source, to: target)
                            source += 8
                            target += 8
                        } while target < end
                    }
                } else if distance == 1 && here > 0 {
                    // A run of one byte, 8 at a time.
                    let run = UInt64((out - 1).pointee) &* 0x0101_0101_0101_0101
                    var target = out
                    let end = out + length
                    repeat {
                        UnsafeMutableRawPointer(target).storeBytes(of: run, as: UInt64.self)
                        target += 8
                    } while target < end
                } else {
                    copyMatch(to: out, length: length, distance: distance, outputStart: outputStart)
                }
                out += length
            case HuffmanTable.Kind.endOfBlock.rawValue:
                state = .blockHeader
                return true
            default:
                count += codeLength  // stopped before the code, as the careful loop stops
                throw Failure(reason: "invalid literal/length code")
            }
        }
        bits &= (1 &<< UInt64(count)) &- 1

        // Careful loop: a symbol is decoded only once all its bits are in.
        while out < outEnd {
            // Up to 56 bits: a length, a distance and their extra bits are at most 48.
            while count < 56 && next < cursor.end {
                bits |= UInt64(next.pointee) &<< UInt64(count)
                next += 1
                count += 8
            }
            let entry = HuffmanTable.lookup(literalEntries, bits, primaryBits: Self.literalBits)
            let codeLength = HuffmanTable.length(entry)
            // An entry is decided once its code's bits are in, an invalid one
            // too: its length is the bits that decide it, as in zlib's tables
            // (8 for the fixed code's symbols 286 and 287, 5 for distances 30
            // and 31, 1 where an empty or one-code set leaves a pattern unused).
            // So a member cut just after an invalid code is invalid, as zlib
            // says, not cut short.
            if codeLength > count { return false }
            switch HuffmanTable.kindBits(entry) {
            case HuffmanTable.Kind.literal.rawValue:
                // A pair with room for one byte: its first literal alone.
                let whole = HuffmanTable.extra(entry) == 1 || outEnd - out >= 2
                let used = whole ? codeLength : HuffmanTable.firstLength(entry)
                bits &>>= UInt64(used)
                count -= used
                out.pointee = UInt8(truncatingIfNeeded: entry >> 16)
                if whole && HuffmanTable.extra(entry) == 2 { out[1] = UInt8(truncatingIfNeeded: entry >> 24) }
                out += whole ? HuffmanTable.extra(entry) : 1
            case HuffmanTable.Kind.lengthOrDistance.rawValue:
                let extra = HuffmanTable.extra(entry)
                let used = codeLength + extra
                guard used <= count else { return false }
                let afterLength = bits &>> UInt64(used)
                let distanceEntry = HuffmanTable.lookup(distanceEntries, afterLength, primaryBits: Self.distanceBits)
                let distanceCodeLength = HuffmanTable.length(distanceEntry)
                guard HuffmanTable.kindBits(distanceEntry) == HuffmanTable.Kind.lengthOrDistance.rawValue else {
                    if distanceCodeLength > count - used { return false }
                    throw Failure(reason: "invalid distance code")
                }
                let distanceExtra = HuffmanTable.extra(distanceEntry)
                guard used + distanceCodeLength + distanceExtra <= count else { return false }
                let length = HuffmanTable.value(entry)
                    + Int(truncatingIfNeeded: (bits &>> UInt64(codeLength)) & ((1 &<< UInt64(extra)) &- 1))
                let distance = HuffmanTable.value(distanceEntry)
                    + Int(truncatingIfNeeded: (afterLength &>> UInt64(distanceCodeLength)) & ((1 &<< UInt64(distanceExtra)) &- 1))
                let all = used + distanceCodeLength + distanceExtra
                bits &>>= UInt64(all)
                count -= all
                let here = out - outputStart
                guard distance <= earlier + here else { throw Failure(reason: "invalid distance too far back") }
                let n = min(length, outEnd - out)
                copyMatch(to: out, length: n, distance: distance, outputStart: outputStart)
                out += n
                if n < length {
                    state = .copy(length - n, distance)
                    return false
                }
            case HuffmanTable.Kind.endOfBlock.rawValue:
                bits &>>= UInt64(codeLength)
                count -= codeLength
                state = .blockHeader
                return true
            default:
                throw Failure(reason: "invalid literal/length code")
            }
        }
        return false
    }

    @inline(__always)
    private func copyWord(from source: UnsafeMutablePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(target).storeBytes(of: UnsafeRawPointer(source).loadUnaligned(as: UInt64.self),
                                                   as: UInt64.self)
    }

    /// Copies a match byte by byte: its source may start in the window (the
    /// output of earlier calls) and may overlap its target.
    private func copyMatch(to target: UnsafeMutablePointer<UInt8>, length: Int, distance: Int,
                           outputStart: UnsafeMutablePointer<UInt8>) {
        let here = target - outputStart
        var i = 0
        if distance > here {
            let fromWindow = min(length, distance - here)
            let source = window + (windowCount - (distance - here))
            while i < fromWindow {
                target[i] = source[i]
                i += 1
            }
        }
        let source = target - distance
        while i < length {
            target[i] = source[i]
            i += 1
        }
    }

    /// Keeps the last 32 KiB of the member's output, this call's last.
    private func keepWindow(_ produced: UnsafeBufferPointer<UInt8>) {
        guard let base = produced.baseAddress, produced.count > 0 else { return }
        if produced.count >= Self.windowSize {
            window.update(from: base + (produced.count - Self.windowSize), count: Self.windowSize)
            windowCount = Self.windowSize
            return
        }
        let kept = min(windowCount, Self.windowSize - produced.count)
        if kept > 0 && kept < windowCount {
            memmove(window, window + (windowCount - kept), kept)
        }
        (window + kept).update(from: base, count: produced.count)
        windowCount = kept + produced.count
    }
}

/// The input side of a ``DeflateDecoder`` call: where it is, and the bits
/// taken from it and not yet used (least significant first).
private struct Cursor {
    var next: UnsafePointer<UInt8>
    let end: UnsafePointer<UInt8>
    var bits: UInt64
    var count: Int

    /// Whether `n` (≤ 56) bits are in, loading bytes as the input allows.
    @inline(__always)
    mutating func need(_ n: Int) -> Bool {
        while count < n {
            guard next < end else { return false }
            bits |= UInt64(next.pointee) &<< UInt64(count)
            next += 1
            count += 8
        }
        return true
    }

    /// Uses the next `n` bits (after ``need(_:)``).
    @inline(__always) @discardableResult
    mutating func take(_ n: Int) -> Int {
        let value = Int(truncatingIfNeeded: bits & ((1 &<< UInt64(n)) &- 1))
        bits &>>= UInt64(n)
        count -= n
        return value
    }
}
