/// The project's own inflate (``DeflateDecoder``) with gzip's member framing
/// (RFC 1952): the header read here, its optional CRC-16 checked, and the
/// member's CRC-32 and length checked against its trailer.
///
/// It is the default where ISA-L is not installed: on the benchmark exports
/// it decodes faster than zlib's `inflate` (docs/benchmark.md).
final class BuiltInInflateBackend: InflateBackend {
    private enum Phase {
        case header(GzipHeaderReader)
        case data
        case trailer
    }

    private let decoder = DeflateDecoder()
    private var phase = Phase.header(GzipHeaderReader())
    private var check = MemberCheck()
    var defersTrailerCheck = false {
        didSet { check = MemberCheck(defers: defersTrailerCheck) }
    }

    func takeTrailer() -> UInt64? { check.takeTrailer() }

    static var name: String { "built-in inflate" }

    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        throws(InflateFailure) -> (consumed: Int, produced: Int, memberEnded: Bool)
    {
        switch phase {
        case .header(var reader):
            let (taken, complete) = try reader.read(input)
            phase = complete ? .data : .header(reader)
            return (taken, 0, false)
        case .data:
            let step: (consumed: Int, produced: Int)
            do {
                step = try decoder.decode(input, into: output)
            } catch {
                throw InflateFailure(reason: error.reason, place: decoder.failedAt)
            }
            check.add(UnsafeRawBufferPointer(rebasing: output[..<step.produced]))
            guard decoder.isDone else { return (step.consumed, step.produced, false) }
            let buffered = decoder.takeBufferedBytes()
            check.beginTrailer(buffered: buffered.bytes, count: buffered.count)
            phase = .trailer
            let (taken, ended) = try check.readTrailer(input, from: step.consumed)
            return (step.consumed + taken, step.produced, ended)
        case .trailer:
            let (taken, ended) = try check.readTrailer(input)
            return (taken, 0, ended)
        }
    }

    func reset() {
        decoder.reset()
        phase = .header(GzipHeaderReader())
        check = MemberCheck(defers: defersTrailerCheck)
    }
}

/// Reads a gzip member's header (RFC 1952 §2.3) as it arrives: the fixed 10
/// bytes, then the optional extra field, name, comment and header CRC-16
/// (the low 16 bits of the CRC-32 of the header before it), which is checked.
struct GzipHeaderReader {
    private enum Part {
        case fixed, extraLength, extra, name, comment, headerCRC, complete
    }

    private var part = Part.fixed
    /// Bytes of the current part so far (or, in `extra`, still to skip).
    private var count = 0
    private var value = 0
    private var flags: UInt8 = 0
    private var crc: UInt32 = 0

    /// Takes header bytes from the start of `input`; returns how many and
    /// whether the header is complete.
    mutating func read(_ input: UnsafeRawBufferPointer) throws(InflateFailure) -> (taken: Int, complete: Bool) {
        var i = 0
        while part != .complete {
            guard i < input.count else { return (i, false) }
            let byte = input[i]
            if part != .headerCRC {
                // Headers are a few bytes: a byte at a time is cheap enough.
                crc = withUnsafeBytes(of: byte) { CRC32.update(crc, with: $0) }
            }
            i += 1
            switch part {
            case .fixed:
                if count == 0 && byte != 0x1f || count == 1 && byte != 0x8b {
                    throw InflateFailure(reason: "incorrect header check")
                }
                if count == 2 && byte != 8 { throw InflateFailure(reason: "unknown compression method") }
                if count == 3 {
                    if byte & 0xE0 != 0 { throw InflateFailure(reason: "unknown header flags set") }
                    flags = byte
                }
                count += 1
                if count == 10 { advance(from: .fixed) }
            case .extraLength:
                value |= Int(byte) << (8 * count)
                count += 1
                if count == 2 {
                    let length = value
                    advance(from: .extraLength)
                    if length > 0 {
                        part = .extra
                        count = length
                    }
                }
            case .extra:
                count -= 1
                if count == 0 { advance(from: .extra) }
            case .name:
                if byte == 0 { advance(from: .name) }
            case .comment:
                if byte == 0 { advance(from: .comment) }
            case .headerCRC:
                value |= Int(byte) << (8 * count)
                count += 1
                if count == 2 {
                    guard UInt16(truncatingIfNeeded: crc) == UInt16(value) else {
                        throw InflateFailure(reason: "header crc mismatch")
                    }
                    part = .complete
                }
            case .complete:
                break
            }
        }
        return (i, true)
    }

    /// Goes on to the next part the flags ask for after `done`.
    private mutating func advance(from done: Part) {
        count = 0
        value = 0
        let start: Int
        switch done {
        case .fixed: start = 0
        case .extraLength, .extra: start = 1
        case .name: start = 2
        case .comment: start = 3
        default: start = 4
        }
        part = Self.optionalParts[start...].first(where: { flags & $0.flag != 0 })?.part ?? .complete
    }

    /// The optional parts in RFC 1952's order, each with the flag that says it is there.
    private static let optionalParts: [(part: Part, flag: UInt8)] = [
        (.extraLength, 0x04), (.name, 0x08), (.comment, 0x10), (.headerCRC, 0x02),
    ]
}
