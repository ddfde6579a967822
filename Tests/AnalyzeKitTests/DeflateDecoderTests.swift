import CZlib
import XCTest
@testable import AnalyzeKit
import EventGenerator

/// The built-in inflate (``DeflateDecoder`` behind ``BuiltInInflateBackend``)
/// against zlib, the reference: seeded streams of every shape zlib writes,
/// fed in pieces of every size, must decode to the original; damaged ones
/// must be accepted or rejected as zlib does, with the same output.
final class DeflateDecoderTests: XCTestCase {
    // MARK: Streams

    /// Text of several kinds, so that every block type and code shape occurs:
    /// event-like lines, random bytes, long runs, a small alphabet.
    private func sample(_ random: inout SplitMix64, size: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        while bytes.count < size {
            switch random.next() % 5 {
            case 0:
                let line = #"{"event_type":"sdk_activate","event_id":"\#(random.next() % 100_000)","timestamp":"2026-11-28T09:15:\#(random.next() % 60)Z","profile_id":"p\#(random.next() % 5000)"}"#
                bytes += Array((line + "\n").utf8)
            case 1:
                for _ in 0..<Int(random.next() % 3000) { bytes.append(UInt8(truncatingIfNeeded: random.next())) }
            case 2:
                bytes += [UInt8](repeating: UInt8(truncatingIfNeeded: random.next()), count: Int(random.next() % 2000))
            case 3:
                for _ in 0..<Int(random.next() % 4000) { bytes.append(UInt8(ascii: "a") + UInt8(random.next() % 3)) }
            default:
                // A repeat from far back (up to the 32 KiB window and beyond it).
                if bytes.count > 10 {
                    let start = Int(random.next() % UInt64(bytes.count))
                    bytes += bytes[start..<min(bytes.count, start + Int(random.next() % 600))]
                }
            }
        }
        return Array(bytes.prefix(size))
    }

    /// One gzip member written by zlib with the given parameters; the stream
    /// is flushed at random points (every flush mode) and its level and
    /// strategy changed midway when `vary`.
    private func zlibMember(_ text: [UInt8], level: Int32, windowBits: Int32, memLevel: Int32, strategy: Int32,
                            vary: Bool, random: inout SplitMix64) -> [UInt8] {
        var stream = z_stream()
        precondition(czlib_deflate_init(&stream, level, 16 + windowBits, memLevel, strategy) == Z_OK)
        defer { deflateEnd(&stream) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset = 0
        var text = text
        text.withUnsafeMutableBufferPointer { input in
            while true {
                let piece = offset == input.count ? 0 : 1 + Int(random.next() % UInt64(min(input.count - offset, 20_000)))
                stream.next_in = input.baseAddress.map { $0 + offset }
                stream.avail_in = UInt32(piece)
                offset += piece
                let flush: Int32
                if offset == input.count {
                    flush = Z_FINISH
                } else {
                    switch random.next() % 8 {
                    case 0: flush = Z_SYNC_FLUSH
                    case 1: flush = Z_FULL_FLUSH
                    case 2: flush = Z_PARTIAL_FLUSH
                    case 3: flush = Z_BLOCK
                    default: flush = Z_NO_FLUSH
                    }
                }
                var status: Int32
                repeat {
                    status = buffer.withUnsafeMutableBufferPointer { b in
                        stream.next_out = b.baseAddress
                        stream.avail_out = UInt32(b.count)
                        return deflate(&stream, flush)
                    }
                    out += buffer[..<(buffer.count - Int(stream.avail_out))]
                } while stream.avail_out == 0
                if flush == Z_FINISH {
                    precondition(status == Z_STREAM_END)
                    break
                }
                if vary && random.next() % 4 == 0 {
                    let newLevel = Int32(random.next() % 10)
                    let newStrategy = Int32(random.next() % 5)
                    repeat {
                        status = buffer.withUnsafeMutableBufferPointer { b in
                            stream.next_out = b.baseAddress
                            stream.avail_out = UInt32(b.count)
                            return deflateParams(&stream, newLevel, newStrategy)
                        }
                        out += buffer[..<(buffer.count - Int(stream.avail_out))]
                    } while status == Z_BUF_ERROR || stream.avail_out == 0
                }
            }
        }
        return out
    }

    // MARK: Decoding

    enum Outcome: Equatable {
        case decoded([UInt8])
        case failed(String)
    }

    /// Why a member was rejected: the backend's words and the member's byte
    /// the error names (``InflateFailure/place``, counted from the start of
    /// the failing call's input).
    struct Rejection: Error, Equatable {
        var reason: String
        var place: Int?
    }

    /// Decodes one member with `backend`, input in pieces of up to `inputPiece`
    /// bytes and output room of up to `outputPiece` (random sizes from `random`).
    private func decode(_ member: [UInt8], with backend: any InflateBackend, inputPiece: Int, outputPiece: Int,
                        random: inout SplitMix64) -> Outcome {
        switch decodeOrReject(member, with: backend, inputPiece: inputPiece, outputPiece: outputPiece, random: &random) {
        case .success(let output): .decoded(output)
        case .failure(let rejection): .failed(rejection.reason)
        }
    }

    /// ``decode(_:with:inputPiece:outputPiece:random:)``, with where a
    /// rejection was found.
    private func decodeOrReject(_ member: [UInt8], with backend: any InflateBackend, inputPiece: Int, outputPiece: Int,
                                random: inout SplitMix64) -> Result<[UInt8], Rejection> {
        var output: [UInt8] = []
        var room = [UInt8](repeating: 0, count: outputPiece)
        var consumed = 0
        var idle = 0
        return member.withUnsafeBytes { all -> Result<[UInt8], Rejection> in
            while true {
                let inputCount = min(all.count - consumed, 1 + Int(random.next() % UInt64(inputPiece)))
                let outputCount = 1 + Int(random.next() % UInt64(outputPiece))
                let input = UnsafeRawBufferPointer(rebasing: all[consumed..<(consumed + inputCount)])
                let step: (consumed: Int, produced: Int, memberEnded: Bool)
                do {
                    step = try room.withUnsafeMutableBytes { out in
                        try backend.inflate(input, into: UnsafeMutableRawBufferPointer(rebasing: out[..<outputCount]))
                    }
                } catch {
                    let failure = error as? InflateFailure
                    return .failure(Rejection(reason: failure?.reason ?? "\(error)",
                                              place: failure?.place.map { consumed + $0 }))
                }
                consumed += step.consumed
                output += room[..<step.produced]
                if step.memberEnded { return .success(output) }
                if consumed == all.count && step.produced == 0 {
                    // As GzipInflater: no input left and nothing more comes out.
                    idle += 1
                    if idle > 2 { return .failure(Rejection(reason: "truncated")) }
                } else {
                    idle = 0
                }
            }
        }
    }

    func testDecodesWhatZlibWritesAtEveryLevelStrategyAndWindowInPiecesOfAnySize() {
        var random = SplitMix64(0xDEF1_A7E5)
        for round in 0..<120 {
            let size = [0, 1, 100, 5_000, 70_000, 300_000][round % 6]
            let text = sample(&random, size: size)
            let level = Int32(random.next() % 10)
            let windowBits = Int32(9 + random.next() % 7)
            let memLevel = Int32(1 + random.next() % 9)
            let strategy = Int32(random.next() % 5)
            let member = zlibMember(text, level: level, windowBits: windowBits, memLevel: memLevel,
                                    strategy: strategy, vary: round % 3 == 0, random: &random)
            let context = "round \(round): \(size) bytes, level \(level), window \(windowBits), memLevel \(memLevel), strategy \(strategy)"
            // Byte by byte only for the smaller streams (it is slow in a debug build).
            let pieces = [(member.count + 1, size + 1), (7, 300), (4096, 65_536), (1 << 20, 1 << 20)]
                + (size <= 5_000 ? [(1, 1)] : [])
            for (inputPiece, outputPiece) in pieces {
                let outcome = decode(member, with: BuiltInInflateBackend(), inputPiece: inputPiece, outputPiece: outputPiece,
                                     random: &random)
                guard outcome == .decoded(text) else {
                    XCTFail("\(context), input pieces up to \(inputPiece), output up to \(outputPiece): \(outcomeSummary(outcome)), not the original")
                    return
                }
            }
        }
    }

    private func outcomeSummary(_ outcome: Outcome) -> String {
        switch outcome {
        case .decoded(let bytes): "decoded \(bytes.count) bytes"
        case .failed(let reason): "failed: \(reason)"
        }
    }

    /// Damage anywhere (bit flips, bytes replaced, cut short) is rejected
    /// where zlib rejects it, for the same reason (one exception, below), and
    /// what both accept decodes the same.
    func testDamagedStreamsAreAcceptedOrRejectedAsZlibDoes() {
        var random = SplitMix64(0xBAD_DA7A)
        var rejected = 0
        for round in 0..<1_500 {
            let text = sample(&random, size: [40, 2_000, 40_000][round % 3])
            var member = zlibMember(text, level: Int32(random.next() % 10), windowBits: 15, memLevel: 8,
                                    strategy: Int32(random.next() % 5), vary: false, random: &random)
            switch random.next() % 3 {
            case 0:
                let bit = 80 + Int(random.next() % UInt64((member.count - 18) * 8))
                member[bit / 8] ^= 1 << (bit % 8)
            case 1:
                member[10 + Int(random.next() % UInt64(member.count - 18))] = UInt8(truncatingIfNeeded: random.next())
            default:
                member = Array(member.prefix(10 + Int(random.next() % UInt64(member.count - 10))))
            }
            var zlibRandom = SplitMix64(UInt64(round))
            var builtInRandom = SplitMix64(UInt64(round))
            let byZlib = decode(member, with: ZlibInflateBackend(), inputPiece: 1 << 20, outputPiece: 1 << 20,
                                random: &zlibRandom)
            let byBuiltIn = decode(member, with: BuiltInInflateBackend(), inputPiece: 1 + round % 50,
                                   outputPiece: 1 + round % 700, random: &builtInRandom)
            switch (byZlib, byBuiltIn) {
            case (.decoded(let a), .decoded(let b)):
                XCTAssertEqual(a, b, "round \(round): both accept, different output")
            case (.failed(let byZlib), .failed(let byBuiltIn)):
                // One difference is by design: a dynamic block whose code-length
                // code has no codes at all. zlib then reads every length as 0 and
                // fails on the missing end-of-block code only once it has read
                // them all; the built-in decoder says the same at once, so where
                // the member ends before that, zlib finds it cut short instead.
                if !(byZlib == "truncated" && byBuiltIn == "invalid code -- missing end-of-block") {
                    XCTAssertEqual(byBuiltIn, byZlib, "round \(round): both reject, for different reasons")
                }
                rejected += 1
            default:
                XCTFail("round \(round): zlib \(outcomeSummary(byZlib)), built-in \(outcomeSummary(byBuiltIn))")
                return
            }
        }
        XCTAssertGreaterThan(rejected, 1_000, "most damage is caught")
    }

    /// Damage that a decoder finds in a member's data is placed where it
    /// stopped (``InflateFailure/place``): at or after the first damaged
    /// byte (a decoder cannot fail on bytes it has not read; the bytes its bit
    /// buffer read ahead are given back), and, for zlib and the built-in
    /// decoder, at the same byte however the input and output arrive, down to
    /// pieces of a byte. ISA-L's place is the same in input pieces of 4 KiB
    /// (``GzipInflater`` gives each call the rest of a 256 KiB read) but not in
    /// tiny ones: its bit buffer and header copy do not say exactly what it had
    /// decoded. Regression: the message named where the read that found the
    /// damage began, up to 256 KiB before it, and that moved with the read
    /// boundaries (so with the thread count).
    func testDamageInTheDataIsPlacedWhereTheDecoderStopped() {
        var random = SplitMix64(0x5709_9ED0)
        let backends: [(name: String, exactInTinyPieces: Bool, make: () -> any InflateBackend)] = [
            ("zlib", true, { ZlibInflateBackend() }), ("built-in", true, { BuiltInInflateBackend() }),
            ("default (\(DefaultInflateBackend.name))", !DefaultInflateBackend.name.hasPrefix("ISA-L"), { DefaultInflateBackend() }),
        ]
        var placed = 0
        for round in 0..<400 {
            let text = sample(&random, size: [3_000, 40_000, 150_000][round % 3])
            var member = zlibMember(text, level: Int32(1 + random.next() % 9), windowBits: 15, memLevel: 8,
                                    strategy: Int32(random.next() % 2), vary: false, random: &random)
            // Damage in the data only: after the 10-byte header, before the trailer.
            let damagedBytes = [1, 8, 300][round % 3]
            let first = 10 + Int(random.next() % UInt64(member.count - 18 - damagedBytes))
            for k in first..<(first + damagedBytes) { member[k] = UInt8(truncatingIfNeeded: random.next()) }
            for (index, (name, exactInTinyPieces, make)) in backends.enumerated() {
                // Pieces drawn from a generator of their own: the same members in
                // every build, whichever backend is the default.
                var pieces = SplitMix64(UInt64(round) << 8 | UInt64(index))
                let whole = decodeOrReject(member, with: make(), inputPiece: 1 << 20, outputPiece: 1 << 20, random: &pieces)
                // Damage the decoder found, not the member's CRC-32 or ISIZE.
                guard case .failure(let rejection) = whole, !rejection.reason.hasSuffix(" check"),
                      let stop = rejection.place
                else { continue }
                placed += 1
                let context = "round \(round), \(name): \(rejection.reason), damage from byte \(first)"
                XCTAssertGreaterThanOrEqual(stop, first, "\(context): placed before the damage")
                // Damage can make a decoder read on into the trailer (a stored
                // block's lengths, say), never past the member's end.
                XCTAssertLessThanOrEqual(stop, member.count, "\(context): placed past the member's end")
                let large = decodeOrReject(member, with: make(), inputPiece: 4_096, outputPiece: 65_536, random: &pieces)
                XCTAssertEqual(large, whole, "\(context); input in pieces of up to 4 KiB")
                guard exactInTinyPieces else { continue }
                let tiny = decodeOrReject(member, with: make(), inputPiece: 1 + round % 97, outputPiece: 1 + round % 700,
                                          random: &pieces)
                XCTAssertEqual(tiny, whole, "\(context); input in pieces of up to \(1 + round % 97) bytes")
            }
        }
        XCTAssertGreaterThan(placed, 100, "damage the decoders find")
    }

    // MARK: Hand-made streams

    /// A member around raw deflate `data` (header, data, CRC-32 and ISIZE of `text`).
    private func member(data: [UInt8], text: [UInt8]) -> [UInt8] {
        let crc = text.withUnsafeBytes { CRC32.update(0, with: $0, using: .zlib) }
        let size = UInt32(text.count)
        return [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3] + data
            + (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) }
            + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
    }

    private func reason(_ data: [UInt8], text: [UInt8] = []) -> String? {
        var random = SplitMix64(1)
        if case .failed(let reason) = decode(member(data: data, text: text), with: BuiltInInflateBackend(),
                                             inputPiece: 1 << 20, outputPiece: 1 << 20, random: &random) {
            return reason
        }
        return nil
    }

    /// zlib's backend, the built-in one and the build's default (ISA-L where
    /// it is installed), each made fresh by `make`.
    private static var everyBackend: [(name: String, make: () -> any InflateBackend)] { [
        ("zlib", { ZlibInflateBackend() }), ("built-in", { BuiltInInflateBackend() }),
        ("default (\(DefaultInflateBackend.name))", { DefaultInflateBackend() }),
    ] }

    /// A match reaching back before the member's first byte (a fixed block
    /// whose first symbol is length 3 at distance 1) is named a distance
    /// error by every backend: zlib's and the built-in one's "invalid
    /// distance too far back", ISA-L's "invalid distance" (found by mutation
    /// testing: ISA-L's lookback error named as an invalid symbol passed).
    func testAMatchBeforeTheFirstByteIsAnInvalidDistanceForEveryBackend() {
        for (name, make) in Self.everyBackend {
            var random = SplitMix64(1)
            let outcome = decode(member(data: [0x03, 0x02, 0x00, 0x00], text: []), with: make(),
                                 inputPiece: 1 << 20, outputPiece: 1 << 20, random: &random)
            guard case .failed(let reason) = outcome else {
                XCTFail("\(name): decoded \(outcome)")
                continue
            }
            XCTAssertTrue(reason.hasPrefix("invalid distance"), "\(name): \(reason)")
        }
    }

    /// Every backend reads the header of a member that follows a `reset()`
    /// as it reads the first one: its optional CRC-16 is checked (found by
    /// mutation testing: zlib's backend, not told that a header came again,
    /// inflated it with its checks off and took a wrong CRC-16).
    func testAHeaderCRCIsCheckedInAMemberAfterAReset() {
        let text = Array("a line\n".utf8)
        // One stored block: BFINAL 1, BTYPE 0, LEN 7, NLEN its complement.
        let plain = member(data: [0x01, 0x07, 0x00, 0xF8, 0xFF] + text, text: text)
        var header = Array(plain[..<10])
        header[3] |= 0x02  // FHCRC
        let crc = header.withUnsafeBytes { CRC32.update(0, with: $0, using: .zlib) }
        let flagged = header + [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8)] + Array(plain[10...])
        var damaged = flagged
        damaged[10] ^= 0x01
        for (name, make) in Self.everyBackend {
            var random = SplitMix64(1)
            let backend = make()
            XCTAssertEqual(decode(plain, with: backend, inputPiece: 1 << 20, outputPiece: 1 << 20, random: &random),
                           .decoded(text), name)
            backend.reset()
            XCTAssertEqual(decode(flagged, with: backend, inputPiece: 1 << 20, outputPiece: 1 << 20, random: &random),
                           .decoded(text), "\(name): a right CRC-16 after a reset")
            backend.reset()
            XCTAssertEqual(decode(damaged, with: backend, inputPiece: 1 << 20, outputPiece: 1 << 20, random: &random),
                           .failed("header crc mismatch"), "\(name): a wrong CRC-16 after a reset")
        }
    }

    /// Each backend checks both magic bytes itself (``GzipInflater`` checks
    /// them before, but a backend is a decoder of its own): `1f 00` does not
    /// start a member (found by mutation testing: the built-in header reader
    /// with its second byte unchecked passed).
    func testEveryBackendRejectsAWrongSecondMagicByte() {
        let text = Array("a line\n".utf8)
        var wrong = member(data: [0x01, 0x07, 0x00, 0xF8, 0xFF] + text, text: text)
        wrong[1] = 0x00
        for (name, make) in Self.everyBackend {
            var random = SplitMix64(1)
            let outcome = decode(wrong, with: make(), inputPiece: 1 << 20, outputPiece: 1 << 20, random: &random)
            XCTAssertNotEqual(outcome, .decoded(text), "\(name): a member starting 1f 00 was decoded")
            if case .failed(let reason) = outcome { XCTAssertNotEqual(reason, "truncated", name) }
        }
    }

    /// The optional header fields of RFC 1952 §2.3.1 (FEXTRA with its
    /// little-endian XLEN, an XLEN of 0 too, FNAME, FCOMMENT, FHCRC), alone
    /// and together, are skipped by every backend, input whole or a byte at a
    /// time; and a member cut anywhere inside such a header is cut short, not
    /// damage (found by mutation testing: the built-in header reader reading
    /// XLEN big-endian, taking an XLEN of 0 as an extra field without end, or
    /// reading a name or comment twice, and zlib's backend failing a call with
    /// no input left inside the header, passed every test).
    func testEveryBackendSkipsTheOptionalHeaderFields() {
        let text = Array("a line\n".utf8)
        let plain = member(data: [0x01, 0x07, 0x00, 0xF8, 0xFF] + text, text: text)
        let extra: [UInt8] = [0x03, 0x00, 0x41, 0x42, 0x43]  // XLEN 3, then its 3 bytes
        let name = Array("events.ndjson".utf8) + [0], comment = Array("a comment".utf8) + [0]
        let cases: [(name: String, flags: UInt8, fields: [UInt8])] = [
            ("FEXTRA", 0x04, extra),
            ("FEXTRA of XLEN 0", 0x04, [0x00, 0x00]),
            ("FNAME", 0x08, name),
            ("FCOMMENT", 0x10, comment),
            ("FEXTRA, FNAME, FCOMMENT and FHCRC", 0x1E, extra + name + comment),
        ]
        for (flagsName, flags, fields) in cases {
            var header = Array(plain[..<10])
            header[3] = flags
            header += fields
            if flags & 0x02 != 0 {
                let crc = header.withUnsafeBytes { CRC32.update(0, with: $0, using: .zlib) }
                header += [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8)]
            }
            let flagged = header + Array(plain[10...])
            for (name, make) in Self.everyBackend {
                for inputPiece in [1 << 20, 1] {
                    var random = SplitMix64(7)
                    XCTAssertEqual(decode(flagged, with: make(), inputPiece: inputPiece, outputPiece: 1 << 20, random: &random),
                                   .decoded(text), "\(name), \(flagsName), input pieces of up to \(inputPiece)")
                }
                for cut in 1..<header.count {
                    var random = SplitMix64(8)
                    XCTAssertEqual(decode(Array(flagged.prefix(cut)), with: make(), inputPiece: 1 << 20, outputPiece: 1 << 20,
                                          random: &random),
                                   .failed("truncated"), "\(name), \(flagsName), cut at byte \(cut) of the header")
                }
            }
        }
    }

    /// A trailer that does not match is named by its first byte with every
    /// backend, however the input arrives (docs/data-model.md, "Gzip damage
    /// offsets"; found by mutation testing: zlib's backend naming the byte
    /// after it passed every test).
    func testATrailerThatDoesNotMatchIsNamedByItsFirstByte() {
        let text = Array("a line\n".utf8)
        let good = member(data: [0x01, 0x07, 0x00, 0xF8, 0xFF] + text, text: text)
        for (back, reason) in [(8, "incorrect data check"), (1, "incorrect length check")] {
            var damaged = good
            damaged[damaged.count - back] ^= 0x01
            for (name, make) in Self.everyBackend {
                for inputPiece in [1 << 20, 3, 1] {
                    var random = SplitMix64(6)
                    XCTAssertEqual(decodeOrReject(damaged, with: make(), inputPiece: inputPiece, outputPiece: 1 << 20,
                                                  random: &random),
                                   .failure(Rejection(reason: reason, place: good.count - 8)),
                                   "\(name), \(reason), input pieces of up to \(inputPiece)")
                }
            }
        }
    }

    /// Each backend checks the compression method itself, as it checks the
    /// magic bytes: a member whose CM is not 8 (deflate) is not decoded
    /// (found by mutation testing: the built-in header reader taking any
    /// method below 8 passed every test).
    func testEveryBackendRejectsACompressionMethodOtherThanDeflate() {
        let text = Array("a line\n".utf8)
        for method: UInt8 in [0, 7, 9] {
            var wrong = member(data: [0x01, 0x07, 0x00, 0xF8, 0xFF] + text, text: text)
            wrong[2] = method
            for (name, make) in Self.everyBackend {
                var random = SplitMix64(1)
                let outcome = decode(wrong, with: make(), inputPiece: 1 << 20, outputPiece: 1 << 20, random: &random)
                XCTAssertNotEqual(outcome, .decoded(text), "\(name): a member of method \(method) was decoded")
                if case .failed(let reason) = outcome { XCTAssertNotEqual(reason, "truncated", "\(name), method \(method)") }
            }
        }
    }

    func testEachKindOfInvalidDataIsNamedAsZlibNamesIt() {
        // BFINAL 1, BTYPE 3.
        XCTAssertEqual(reason([0x07]), "invalid block type")
        // A stored block whose NLEN is not LEN's complement.
        XCTAssertEqual(reason([0x01, 0x05, 0x00, 0xFA, 0xFE, 1, 2, 3, 4, 5]), "invalid stored block lengths")
        // Fixed codes: length 3 (symbol 257, 7 bits 0000001), distance code 0 (distance 1) at the start.
        XCTAssertEqual(reason([0x03, 0x02, 0x00, 0x00]), "invalid distance too far back")
        // Dynamic: HLIT 0, HDIST 0, HCLEN 0 (4 code-length lengths, all 0): no code at all,
        // which zlib reads as all lengths 0.
        XCTAssertEqual(reason([0x05, 0x00, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 40)),
                       "invalid code -- missing end-of-block")
        // Dynamic: HCLEN 0 and code-length lengths 4, 4, 4, 0: an incomplete code.
        XCTAssertEqual(reason([0x05, 0x00, 0x48, 0x02]), "invalid code lengths set")
        // Fixed codes, literal/length symbol 286 (8 bits 11000110).
        XCTAssertEqual(reason([0x1B, 0x03]), "invalid literal/length code")
    }

    /// Deflate bits, least significant first; Huffman codes most significant
    /// bit first (RFC 1951 §3.1.1).
    private struct BitWriter {
        var bytes: [UInt8] = []
        var count = 0
        mutating func put(_ value: Int, _ bits: Int) {
            for k in 0..<bits {
                if count % 8 == 0 { bytes.append(0) }
                if (value >> k) & 1 == 1 { bytes[bytes.count - 1] |= 1 << UInt8(count % 8) }
                count += 1
            }
        }
        mutating func code(_ value: Int, _ bits: Int) {
            for k in stride(from: bits - 1, through: 0, by: -1) { put((value >> k) & 1, 1) }
        }
        /// A fixed-code literal 0–143 (8 bits from 0x30).
        mutating func literal(_ byte: UInt8) { code(0x30 + Int(byte), 8) }
    }

    /// Branches the damaged zlib streams reach only by chance (zlib's
    /// compressor never writes them), each against zlib's own verdict.
    /// The built-in inflater's outcome for a member around `data`, fed in
    /// pieces of up to `inputPiece` bytes with room for up to `outputPiece`,
    /// after checking that it is zlib's (fed whole).
    private func bothSay(_ data: [UInt8], text: [UInt8] = [], inputPiece: Int, outputPiece: Int,
                         file: StaticString = #filePath, line: UInt = #line) -> Outcome {
        var a = SplitMix64(3), b = SplitMix64(3)
        let byZlib = decode(member(data: data, text: text), with: ZlibInflateBackend(), inputPiece: 1 << 20,
                            outputPiece: 1 << 20, random: &a)
        let byBuiltIn = decode(member(data: data, text: text), with: BuiltInInflateBackend(), inputPiece: inputPiece,
                               outputPiece: outputPiece, random: &b)
        XCTAssertEqual(byBuiltIn, byZlib, file: file, line: line)
        return byBuiltIn
    }

    func testRareBranchesAgreeWithZlib() {
        func bothSay(_ data: [UInt8], text: [UInt8] = [], file: StaticString = #filePath, line: UInt = #line) -> Outcome {
            self.bothSay(data, text: text, inputPiece: 3, outputPiece: 7, file: file, line: line)
        }
        // Fixed codes: 'a', then length 3 (257: 0000001) at distance code 30 (11110), invalid in use.
        var w = BitWriter()
        w.put(1, 1); w.put(1, 2); w.literal(UInt8(ascii: "a")); w.code(1, 7); w.code(30, 5); w.code(0, 7)
        XCTAssertEqual(bothSay(w.bytes), .failed("invalid distance code"))
        // 'a', then length 258 as code 284 (11000100) with extra bits 31, distance 1, end of block.
        w = BitWriter()
        w.put(1, 1); w.put(1, 2); w.literal(UInt8(ascii: "a")); w.code(0xC4, 8); w.put(31, 5); w.code(0, 5); w.code(0, 7)
        let run = [UInt8](repeating: UInt8(ascii: "a"), count: 259)
        XCTAssertEqual(bothSay(w.bytes, text: run), .decoded(run))
        // Dynamic headers counting 287 literal/length or 31 distance codes.
        for (hlit, hdist) in [(287, 1), (288, 1), (257, 31), (257, 32)] {
            w = BitWriter()
            w.put(1, 1); w.put(2, 2); w.put(hlit - 257, 5); w.put(hdist - 1, 5); w.put(0, 4)
            w.put(0, 64)
            XCTAssertEqual(bothSay(w.bytes), .failed("too many length or distance symbols"), "HLIT \(hlit), HDIST \(hdist)")
        }
        // A member may not reach back into the one before: the window starts empty.
        var first = BitWriter()
        first.put(1, 1); first.put(1, 2); first.literal(UInt8(ascii: "a")); first.code(0, 7)
        var second = BitWriter()
        second.put(1, 1); second.put(1, 2); second.code(1, 7); second.code(0, 5); second.code(0, 7)
        let backend = BuiltInInflateBackend()
        var random = SplitMix64(4)
        XCTAssertEqual(decode(member(data: first.bytes, text: Array("a".utf8)), with: backend, inputPiece: 4, outputPiece: 4,
                              random: &random), .decoded(Array("a".utf8)))
        backend.reset()  // as GzipInflater does between members
        XCTAssertEqual(decode(member(data: second.bytes, text: Array("aaa".utf8)), with: backend, inputPiece: 4,
                              outputPiece: 4, random: &random), .failed("invalid distance too far back"))
    }

    /// RFC 1951 §3.2.2: the canonical code of each symbol with a nonzero length.
    private func canonicalCodes(_ lengths: [Int]) -> [Int] {
        var perLength = [Int](repeating: 0, count: 16)
        for length in lengths where length > 0 { perLength[length] += 1 }
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for bits in 1...15 {
            code = (code + perLength[bits - 1]) << 1
            next[bits] = code
        }
        return lengths.map { length in
            guard length > 0 else { return -1 }
            defer { next[length] += 1 }
            return next[length]
        }
    }

    /// A final dynamic block's header. The code-length code gives symbols 0–15
    /// 5 bits, 16 two and 17–18 three (complete) unless `codeLengthLengths`
    /// says otherwise; every length is written plainly unless `items` lists the
    /// code-length symbols (with their repeat bits) to write instead.
    private func dynamicHeader(literalLengths: [Int], distanceLengths: [Int], items: [(symbol: Int, extra: Int)]? = nil,
                               codeLengthLengths: [Int]? = nil) -> BitWriter {
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        let codeLengthLengths = codeLengthLengths ?? ([Int](repeating: 5, count: 16) + [2, 3, 3])
        let codeLengthCodes = canonicalCodes(codeLengthLengths)
        var w = BitWriter()
        w.put(1, 1); w.put(2, 2)
        w.put(literalLengths.count - 257, 5); w.put(distanceLengths.count - 1, 5); w.put(19 - 4, 4)
        for symbol in order { w.put(codeLengthLengths[symbol], 3) }
        for (symbol, extra) in items ?? (literalLengths + distanceLengths).map({ ($0, 0) }) {
            w.code(codeLengthCodes[symbol], codeLengthLengths[symbol])
            switch symbol {
            case 16: w.put(extra, 2)
            case 17: w.put(extra, 3)
            case 18: w.put(extra, 7)
            default: break
            }
        }
        return w
    }

    /// Lengths for `count` symbols, zero but for those given.
    private func lengths(_ count: Int, _ given: [Int: Int]) -> [Int] {
        (0..<count).map { given[$0] ?? 0 }
    }

    /// Dynamic trees zlib's compressor never writes (repeat codes at the edges,
    /// one-code and empty trees, 15-bit codes, sets that are over-subscribed or
    /// incomplete), each against zlib's own verdict.
    func testHandBuiltDynamicTreesAgreeWithZlib() {
        func bothSay(_ data: [UInt8], text: [UInt8] = [], file: StaticString = #filePath, line: UInt = #line) -> Outcome {
            self.bothSay(data, text: text, inputPiece: 2, outputPiece: 3, file: file, line: line)
        }
        let a = Int(UInt8(ascii: "a")), b = Int(UInt8(ascii: "b"))
        let oneLiteral = lengths(257, [a: 1, 256: 1])
        var w: BitWriter

        // Repeat code 16 with no length before it.
        w = dynamicHeader(literalLengths: oneLiteral, distanceLengths: [1], items: [(16, 0)])
        w.put(0, 64)
        XCTAssertEqual(bothSay(w.bytes), .failed("invalid bit length repeat"))
        // Repeats running past the 258 lengths: 138 zeros twice.
        w = dynamicHeader(literalLengths: oneLiteral, distanceLengths: [1], items: [(18, 127), (18, 127)])
        w.put(0, 64)
        XCTAssertEqual(bothSay(w.bytes), .failed("invalid bit length repeat"))
        // Repeat code 17 one past the end: 97 zeros, 'a' 1, 158 zeros, end-of-block 1,
        // then 3 zeros where two distance lengths are left (HDIST 2).
        w = dynamicHeader(literalLengths: oneLiteral, distanceLengths: [0, 0],
                          items: [(18, 86), (1, 0), (18, 127), (18, 9), (1, 0), (17, 0)])
        w.put(0, 64)
        XCTAssertEqual(bothSay(w.bytes), .failed("invalid bit length repeat"))
        // Code 16 repeating the end-of-block's length across into the distance lengths:
        // 'a', 'b', 256 and 257 two bits each, distance codes 0–3 two bits each.
        let crossing: [(symbol: Int, extra: Int)] = [(18, 86), (2, 0), (2, 0), (18, 127), (18, 8), (2, 0), (16, 2)]
        let crossingLiterals = lengths(258, [a: 2, b: 2, 256: 2, 257: 2])
        let crossingCodes = canonicalCodes(crossingLiterals)
        w = dynamicHeader(literalLengths: crossingLiterals, distanceLengths: [2, 2, 2, 2], items: crossing)
        // 'a', 'b', then length 3 (257) at distance 2 (distance code 1, code 01), end of block.
        w.code(crossingCodes[a], 2); w.code(crossingCodes[b], 2); w.code(crossingCodes[257], 2); w.code(1, 2)
        w.code(crossingCodes[256], 2)
        XCTAssertEqual(bothSay(w.bytes, text: Array("ababa".utf8)), .decoded(Array("ababa".utf8)))

        // A distance tree of one 1-bit code: code 0 decodes, code 1 is invalid.
        let withLength = lengths(258, [a: 1, 256: 2, 257: 2])
        let withLengthCodes = canonicalCodes(withLength)
        for (distanceBit, expected) in [(0, Outcome.decoded(Array("aaaa".utf8))), (1, .failed("invalid distance code"))] {
            w = dynamicHeader(literalLengths: withLength, distanceLengths: [1])
            w.code(withLengthCodes[a], 1); w.code(withLengthCodes[257], 2); w.code(distanceBit, 1)
            w.code(withLengthCodes[256], 2)
            XCTAssertEqual(bothSay(w.bytes, text: Array("aaaa".utf8)), expected, "distance bit \(distanceBit)")
        }
        // No distance code at all: literals decode, a length has no distance to use.
        for useLength in [false, true] {
            w = dynamicHeader(literalLengths: withLength, distanceLengths: [0])
            w.code(withLengthCodes[a], 1)
            if useLength { w.code(withLengthCodes[257], 2); w.code(0, 1) }
            w.code(withLengthCodes[256], 2)
            XCTAssertEqual(bothSay(w.bytes, text: Array("a".utf8)),
                           useLength ? .failed("invalid distance code") : .decoded(Array("a".utf8)))
        }
        // A literal/length tree of the end-of-block code alone: an empty block; its
        // unused pattern is an invalid code.
        for (bit, expected) in [(0, Outcome.decoded([])), (1, .failed("invalid literal/length code"))] {
            w = dynamicHeader(literalLengths: lengths(257, [256: 1]), distanceLengths: [0])
            w.put(bit, 1)
            XCTAssertEqual(bothSay(w.bytes), expected, "bit \(bit)")
        }

        // 15-bit codes (the longest): 'A'… with lengths 1 to 15, end-of-block 15.
        var deep: [Int: Int] = [256: 15]
        for k in 0..<15 { deep[65 + k] = k + 1 }
        let deepLiterals = lengths(257, deep)
        let deepCodes = canonicalCodes(deepLiterals)
        let deepText = Array("ONMLKJIHGFEDCBAO".utf8)
        w = dynamicHeader(literalLengths: deepLiterals, distanceLengths: [0])
        for byte in deepText { w.code(deepCodes[Int(byte)], deepLiterals[Int(byte)]) }
        w.code(deepCodes[256], 15)
        XCTAssertEqual(bothSay(w.bytes, text: deepText), .decoded(deepText))

        // Sets that are over-subscribed or incomplete (more than one code).
        let badSets: [(literals: [Int], distances: [Int], expected: String)] = [
            (lengths(257, [a: 1, b: 1, 256: 1]), [1], "invalid literal/lengths set"),
            (lengths(257, [a: 2, 256: 2]), [1], "invalid literal/lengths set"),
            (oneLiteral, [1, 1, 1], "invalid distances set"),
            (oneLiteral, [2, 2], "invalid distances set"),
            (lengths(257, [a: 1]), [1], "invalid code -- missing end-of-block"),
        ]
        for (literals, distances, expected) in badSets {
            w = dynamicHeader(literalLengths: literals, distanceLengths: distances)
            w.put(0, 16)
            XCTAssertEqual(bothSay(w.bytes), .failed(expected), expected)
        }
        // A code-length code of one 1-bit code (allowed for distances, not here), and an
        // over-subscribed one.
        for codeLengthLengths in [lengths(19, [0: 1]), lengths(19, [0: 1, 1: 1, 2: 1])] {
            w = dynamicHeader(literalLengths: oneLiteral, distanceLengths: [1], items: [],
                              codeLengthLengths: codeLengthLengths)
            w.put(0, 64)
            XCTAssertEqual(bothSay(w.bytes), .failed("invalid code lengths set"))
        }
    }

    func testStoredAndFixedBlocksAndEmptyMembersDecode() {
        var random = SplitMix64(2)
        // A stored block "hello" then an empty final stored block.
        let stored: [UInt8] = [0x00, 0x05, 0x00, 0xFA, 0xFF] + Array("hello".utf8) + [0x01, 0x00, 0x00, 0xFF, 0xFF]
        XCTAssertEqual(decode(member(data: stored, text: Array("hello".utf8)), with: BuiltInInflateBackend(),
                              inputPiece: 1, outputPiece: 1, random: &random), .decoded(Array("hello".utf8)))
        // An empty final fixed block (only its end-of-block code).
        XCTAssertEqual(decode(member(data: [0x03, 0x00], text: []), with: BuiltInInflateBackend(),
                              inputPiece: 3, outputPiece: 5, random: &random), .decoded([]))
    }

    /// A member cut anywhere in or after an invalid code is judged as zlib
    /// judges it: invalid once every bit of the code is in (8 for the fixed
    /// code's symbol 286, 5 for distance code 30), cut short before that.
    /// Regression: the built-in decoder waited for 15 bits before trusting
    /// an invalid entry, so a member ending 8 to 14 bits into the code was
    /// "truncated" where zlib (and `gzip -t`) say invalid (found by mutation
    /// testing).
    func testAMemberCutAfterAnInvalidCodeIsJudgedAsZlibJudgesIt() {
        let header: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]
        var literal = BitWriter()  // 'a', then literal/length symbol 286 (11000110)
        literal.put(1, 1); literal.put(1, 2); literal.literal(UInt8(ascii: "a")); literal.code(0xC6, 8)
        var distance = BitWriter()  // 'a', then length 3 (257: 0000001) at distance code 30 (11110)
        distance.put(1, 1); distance.put(1, 2); distance.literal(UInt8(ascii: "a")); distance.code(1, 7)
        distance.code(30, 5)
        for (writer, reason) in [(literal, "invalid literal/length code"), (distance, "invalid distance code")] {
            var judgedInvalid = 0
            for padding in 0...16 {
                var padded = writer
                padded.put(0, padding)
                let stream = header + padded.bytes  // no trailer: the member is cut short
                for cut in header.count...stream.count {
                    let member = Array(stream.prefix(cut))
                    var a = SplitMix64(5), b = SplitMix64(5), c = SplitMix64(5)
                    let byZlib = decode(member, with: ZlibInflateBackend(), inputPiece: 1 << 20, outputPiece: 1 << 20,
                                        random: &a)
                    let context = "\(reason), \(padding) bits of padding, cut at byte \(cut)"
                    XCTAssertEqual(decode(member, with: BuiltInInflateBackend(), inputPiece: 1 << 20, outputPiece: 1 << 20,
                                          random: &b), byZlib, context)
                    XCTAssertEqual(decode(member, with: BuiltInInflateBackend(), inputPiece: 1, outputPiece: 1,
                                          random: &c), byZlib, context + ", byte by byte")
                    if byZlib == .failed(reason) { judgedInvalid += 1 }
                }
            }
            // Every bit of the code is in from the padding that fills its last byte on.
            XCTAssertGreaterThan(judgedInvalid, 10, reason)
        }
    }

    /// An invalid distance code after a length code with extra bits is
    /// placed before the length code whichever loop
    /// finds it: the fast one (input whole, with 8 bytes beyond it) or the
    /// careful one (byte by byte).
    func testAnInvalidDistanceAfterALengthsExtraBitsIsPlacedAlikeByBothLoops() {
        // Fixed codes: literal 0x90 (9 bits), length code 281 (11000001) and its 5 extra
        // bits, then distance code 30 (11110), invalid; zeros after it, so that the
        // fast loop runs over the whole of it.
        var w = BitWriter()
        w.put(1, 1); w.put(1, 2); w.code(0x190, 9); w.code(0xC1, 8); w.put(0, 5); w.code(30, 5); w.put(0, 7)
        let data = member(data: w.bytes + [UInt8](repeating: 0, count: 24), text: [])
        var random = SplitMix64(12)
        let whole = decodeOrReject(data, with: BuiltInInflateBackend(), inputPiece: 1 << 20, outputPiece: 1 << 20,
                                   random: &random)
        let byteByByte = decodeOrReject(data, with: BuiltInInflateBackend(), inputPiece: 1, outputPiece: 1 << 20,
                                        random: &random)
        // The length code starts at bit 12 of the data: byte 2 after the 10-byte header.
        XCTAssertEqual(whole, .failure(Rejection(reason: "invalid distance code", place: 12)))
        XCTAssertEqual(byteByByte, whole)
    }

    /// A match may reach back the whole 32 KiB window (distance 32 768, which
    /// zlib's compressor never writes), also when each call has room for one
    /// byte only, so the window holds output of many earlier calls.
    func testAMatchReachesBackTheWholeWindowAcrossCalls() {
        var random = SplitMix64(17)
        let stored = (0..<32_768).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var w = BitWriter()
        // A stored block of 32 768 bytes (not final), then a final fixed block: length 3
        // (257: 0000001) at distance 32 768 (code 29, 11101, with 13 extra bits all set), end.
        w.put(0, 3); w.put(0, 5)
        w.put(0x8000, 16); w.put(0x7FFF, 16)
        w.bytes += stored
        w.count += 8 * stored.count
        w.put(1, 1); w.put(1, 2); w.code(1, 7); w.code(29, 5); w.put(8191, 13); w.code(0, 7)
        let text = stored + stored.prefix(3)
        for (inputPiece, outputPiece) in [(1 << 20, 1 << 20), (7, 1), (1, 3)] {
            XCTAssertEqual(decode(member(data: w.bytes, text: text), with: BuiltInInflateBackend(), inputPiece: inputPiece,
                                  outputPiece: outputPiece, random: &random), .decoded(text),
                           "input pieces up to \(inputPiece), output up to \(outputPiece)")
        }
    }

    /// A set over-subscribed by just one code of the longest length, 15 bits
    /// (no longer length is left to show the excess), is rejected as zlib
    /// rejects it, for literals and lengths and for distances.
    func testASetOverSubscribedByOneFifteenBitCodeIsRejected() {
        // Lengths 1 to 15 and one more 15 make a complete code; one more 15 is one too many.
        var over: [Int: Int] = [256: 15, 80: 15]
        for k in 0..<15 { over[65 + k] = k + 1 }
        var w = dynamicHeader(literalLengths: lengths(257, over), distanceLengths: [1])
        w.put(0, 64)
        XCTAssertEqual(bothSay(w.bytes, inputPiece: 2, outputPiece: 3), .failed("invalid literal/lengths set"))
        let distances = (0..<15).map { $0 + 1 } + [15, 15]
        w = dynamicHeader(literalLengths: lengths(257, [65: 1, 256: 1]), distanceLengths: distances)
        w.put(0, 64)
        XCTAssertEqual(bothSay(w.bytes, inputPiece: 2, outputPiece: 3), .failed("invalid distances set"))
    }

    /// A set incomplete by just one code of the longest length (lengths 1 to
    /// 14 and one of 15: one 15-bit pattern left unused) is rejected as zlib
    /// rejects it, for literals and lengths and for distances (found by
    /// mutation testing: a check that let that one pattern go unused passed
    /// every test).
    func testASetIncompleteByOneFifteenBitCodeIsRejected() {
        var short: [Int: Int] = [256: 15]
        for k in 0..<14 { short[65 + k] = k + 1 }
        var w = dynamicHeader(literalLengths: lengths(257, short), distanceLengths: [1])
        w.put(0, 64)
        XCTAssertEqual(bothSay(w.bytes, inputPiece: 2, outputPiece: 3), .failed("invalid literal/lengths set"))
        let distances = (0..<14).map { $0 + 1 } + [15]
        w = dynamicHeader(literalLengths: lengths(257, [65: 1, 256: 1]), distanceLengths: distances)
        w.put(0, 64)
        XCTAssertEqual(bothSay(w.bytes, inputPiece: 2, outputPiece: 3), .failed("invalid distances set"))
    }

    /// In a block with no distance code at all, a member cut just after a
    /// length code, on a byte boundary, is cut short, as zlib says: the
    /// unused distance pattern is decided by its first bit, which is not
    /// there yet. One byte more and it is an invalid distance code. (Found by
    /// mutation testing: unused patterns decided by no bits at all passed
    /// every test.)
    func testAMemberCutRightAfterALengthWithNoDistanceCodesIsCutShort() {
        let header: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]
        let a = Int(UInt8(ascii: "a"))
        let withLength = lengths(258, [a: 1, 256: 2, 257: 2])
        let codes = canonicalCodes(withLength)
        // Literals 'a' of one bit each until the length code ends a byte.
        var aligned = BitWriter()
        for literals in 1...8 {
            var w = dynamicHeader(literalLengths: withLength, distanceLengths: [0])
            for _ in 0..<literals { w.code(codes[a], 1) }
            w.code(codes[257], 2)
            if w.count % 8 == 0 { aligned = w }
        }
        XCTAssertFalse(aligned.bytes.isEmpty)
        for (extraBytes, expected) in [(0, Outcome.failed("truncated")), (1, .failed("invalid distance code"))] {
            let stream = header + aligned.bytes + [UInt8](repeating: 0, count: extraBytes)  // no trailer
            let ways: [(name: String, backend: any InflateBackend, piece: Int)] = [
                ("zlib", ZlibInflateBackend(), 1 << 20), ("built-in", BuiltInInflateBackend(), 1 << 20),
                ("built-in byte by byte", BuiltInInflateBackend(), 1),
            ]
            for way in ways {
                var random = SplitMix64(9)
                XCTAssertEqual(decode(stream, with: way.backend, inputPiece: way.piece, outputPiece: way.piece, random: &random),
                               expected, "\(way.name), \(extraBytes) bytes after the length code")
            }
        }
    }
}
