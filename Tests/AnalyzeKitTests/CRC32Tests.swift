import XCTest
@testable import AnalyzeKit
import EventGenerator

/// gzip's CRC-32 (``CRC32``) and the backends, which check it themselves.
final class CRC32Tests: XCTestCase {
    func testCheckValue() {
        // The catalogue check value of CRC-32/ISO-HDLC (gzip's): "123456789".
        let text = Array("123456789".utf8)
        XCTAssertEqual(text.withUnsafeBytes { CRC32.update(0, with: $0) }, 0xCBF4_3926)
        XCTAssertEqual([UInt8]().withUnsafeBytes { CRC32.update(0x1234_5678, with: $0) }, 0x1234_5678)
    }

    /// Every kernel this machine has, at every length up to 300 (the folds
    /// start at 64 and 256 bytes) and longer runs, at every alignment, from
    /// random starting CRCs and split anywhere: the same as zlib's `crc32_z`.
    func testAgreesWithZlibAtEveryLengthAlignmentAndSplit() {
        XCTAssertNotEqual(CRC32.best, .zlib, "x86-64 has had PCLMULQDQ since 2010: expected a fold here")
        for kernel in CRC32.Kernel.allCases where kernel.rawValue <= CRC32.best.rawValue {
            checkAgreement(kernel)
        }
    }

    private func checkAgreement(_ kernel: CRC32.Kernel) {
        var random = SplitMix64(0xC3C3)
        let bytes = (0..<70_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        bytes.withUnsafeBytes { all in
            let lengths = Array(0...300) + [383, 384, 385, 511, 512, 513, 1023, 4096, 65_535, 69_000]
            for (n, length) in lengths.enumerated() {
                let offset = n % 16
                let piece = UnsafeRawBufferPointer(rebasing: all[offset..<(offset + length)])
                let seed = UInt32(truncatingIfNeeded: random.next())
                let expected = CRC32.update(seed, with: piece, using: .zlib)
                XCTAssertEqual(CRC32.update(seed, with: piece, using: kernel), expected, "\(kernel): length \(length) at offset \(offset)")
                let split = length == 0 ? 0 : Int(random.next() % UInt64(length + 1))
                let chained = CRC32.update(
                    CRC32.update(seed, with: UnsafeRawBufferPointer(rebasing: piece[..<split]), using: kernel),
                    with: UnsafeRawBufferPointer(rebasing: piece[split...]), using: kernel)
                XCTAssertEqual(chained, expected, "\(kernel): length \(length) split at \(split)")
            }
        }
    }

    /// Every backend checks the trailer itself (zlib's from the last eight
    /// bytes it consumed, ISA-L's and the built-in one's from the bit buffer
    /// and the input after it), so feed them one byte per call (the header and trailer then arrive
    /// across many calls), a few bytes, and all in one call, intact and with
    /// each trailer byte damaged.
    func testZlibBackendChecksTheTrailerHoweverTheInputArrives() throws {
        try checkTrailerHoweverTheInputArrives { ZlibInflateBackend() }
    }

    /// The built-in backend reads the trailer's first bytes from its bit
    /// buffer and the rest from the input, as ISA-L's does.
    func testBuiltInBackendChecksTheTrailerHoweverTheInputArrives() throws {
        try checkTrailerHoweverTheInputArrives { BuiltInInflateBackend() }
    }

    /// The build's own backend: ISA-L's where the build found it (CI runs
    /// the suite on every inflater).
    func testDefaultBackendChecksTheTrailerHoweverTheInputArrives() throws {
        try checkTrailerHoweverTheInputArrives { DefaultInflateBackend() }
    }

    private func checkTrailerHoweverTheInputArrives(_ makeBackend: () -> any InflateBackend) throws {
        let text = Array((0..<3_000).map { "line \($0) of the member\n" }.joined().utf8)
        let member = gzip(text)
        func decode(_ member: [UInt8], bytesPerCall: Int) throws -> [UInt8] {
            let backend = makeBackend()
            var output = [UInt8](repeating: 0, count: text.count + 64)
            var produced = 0, consumed = 0
            try output.withUnsafeMutableBytes { out in
                try member.withUnsafeBytes { all in
                    while consumed < all.count {
                        let input = UnsafeRawBufferPointer(rebasing: all[consumed..<min(all.count, consumed + bytesPerCall)])
                        let step = try backend.inflate(input, into: UnsafeMutableRawBufferPointer(rebasing: out[produced...]))
                        consumed += step.consumed
                        produced += step.produced
                        if step.memberEnded { break }
                    }
                }
            }
            return Array(output[..<produced])
        }
        // The same member with the optional header CRC-16 (FHCRC: the low 16
        // bits of the CRC-32 of the header before it), right and damaged: zlib
        // or ISA-L checks it while the backend reads the header.
        var flagged = Array(member[..<10])
        flagged[3] |= 0x02
        let headerCRC = flagged.withUnsafeBytes { CRC32.update(0, with: $0, using: .zlib) }
        let withHeaderCRC = flagged + [UInt8(truncatingIfNeeded: headerCRC), UInt8(truncatingIfNeeded: headerCRC >> 8)]
            + Array(member[10...])
        for bytesPerCall in [1, 5, withHeaderCRC.count] {
            XCTAssertEqual(try decode(withHeaderCRC, bytesPerCall: bytesPerCall), text, "FHCRC, \(bytesPerCall) bytes per call")
            var damaged = withHeaderCRC
            damaged[11] ^= 0x01
            XCTAssertThrowsError(try decode(damaged, bytesPerCall: bytesPerCall), "a wrong header CRC") { error in
                XCTAssertEqual((error as? InflateFailure)?.reason, "header crc mismatch")
            }
        }
        for bytesPerCall in [1, 3, 7, 13, member.count] {
            XCTAssertEqual(try decode(member, bytesPerCall: bytesPerCall), text, "\(bytesPerCall) bytes per call")
            for back in 1...8 {
                var damaged = member
                damaged[damaged.count - back] ^= 0x10
                let expected = back > 4 ? "incorrect data check" : "incorrect length check"
                XCTAssertThrowsError(try decode(damaged, bytesPerCall: bytesPerCall), "byte \(back) from the end") { error in
                    XCTAssertEqual((error as? InflateFailure)?.reason, expected)
                }
            }
        }
    }
}

/// ``ChecksumLedger``: segments folded in chunk order whatever order they
/// arrive in, a member's trailer compared once its last byte is folded.
final class ChecksumLedgerTests: XCTestCase {
    private let text = Array((0..<500).map { "line \($0)\n" }.joined().utf8)

    private func trailer(_ bytes: ArraySlice<UInt8>, crcFlip: UInt32 = 0, lengthFlip: UInt32 = 0) -> UInt64 {
        let crc = Array(bytes).withUnsafeBytes { CRC32.update(0, with: $0) } ^ crcFlip
        return UInt64(UInt32(bytes.count) ^ lengthFlip) << 32 | UInt64(crc)
    }

    /// Two members, the first ending in the third of four chunks; the chunks
    /// arrive in every order.
    private func fold(order: [Int], firstTrailer: UInt64) -> [AnalyzeError?] {
        let memberEnd = 2_100
        let bounds = [0, 700, 1_500, 2_400, text.count]
        var ledger = ChecksumLedger()
        var errors: [AnalyzeError?] = []
        for chunk in order {
            let range = bounds[chunk]..<bounds[chunk + 1]
            var ends: [MemberEnd] = []
            if range.contains(memberEnd) {
                ends.append(MemberEnd(position: memberEnd - range.lowerBound, trailer: firstTrailer, offset: 42))
            }
            if chunk == 3 {
                ends.append(MemberEnd(position: range.count, trailer: trailer(text[memberEnd...]), offset: 99))
            }
            let segments = text.withUnsafeBytes { all in
                ChecksumSegment.segments(of: UnsafeRawBufferPointer(rebasing: all[range]), ends: ends)
            }
            errors.append(ledger.fold(segments, file: 0, chunk: chunk, name: "x.gz"))
        }
        if errors.allSatisfy({ $0 == nil }) { XCTAssertEqual(ledger.bytesUnchecked, 0, "\(order)") }
        return errors
    }

    func testMembersAreCheckedWhateverOrderTheirChunksArriveIn() {
        let orders = [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]]
        for order in orders {
            XCTAssertTrue(fold(order: order, firstTrailer: trailer(text[..<2_100])).allSatisfy { $0 == nil }, "\(order)")
            for (flips, words) in [((1 as UInt32, 0 as UInt32), "incorrect data check"), ((0, 1), "incorrect length check"),
                                   ((1, 1), "incorrect data check")] {
                let errors = fold(order: order, firstTrailer: trailer(text[..<2_100], crcFlip: flips.0, lengthFlip: flips.1))
                let reported = errors.compactMap { $0 }
                XCTAssertEqual(reported.count, 1, "\(order): one error, once")
                XCTAssertEqual(reported.first, .input("corrupt gzip in 'x.gz' at byte offset 42: \(words)"), "\(order)")
                // Reported when the chunk that completes the first member's
                // text (the third, reached in order) is folded.
                let completing = order.firstIndex { chunk in (0...2).allSatisfy { order[...order.firstIndex(of: chunk)!].contains($0) } }!
                XCTAssertNotNil(errors[completing], "\(order)")
            }
        }
    }

    /// An input whose check failed has nothing left to check: its bytes are
    /// not counted as unchecked, while another input's chunk that waits for
    /// the one before it still is (100 failed bytes, 50 waiting: 50).
    func testAFailedInputLeavesNoBytesUnchecked() {
        var ledger = ChecksumLedger()
        let failing = text[..<100]
        let failed = text.withUnsafeBytes { all in
            ChecksumSegment.segments(of: UnsafeRawBufferPointer(rebasing: all[..<100]),
                                     ends: [MemberEnd(position: 100, trailer: trailer(failing, crcFlip: 1), offset: 7)])
        }
        XCTAssertEqual(ledger.fold(failed, file: 0, chunk: 0, name: "x.gz"),
                       .input("corrupt gzip in 'x.gz' at byte offset 7: incorrect data check"))
        let early = text.withUnsafeBytes { all in
            ChecksumSegment.segments(of: UnsafeRawBufferPointer(rebasing: all[100..<150]), ends: [])
        }
        XCTAssertNil(ledger.fold(early, file: 1, chunk: 1, name: "y.gz"))
        XCTAssertEqual(ledger.bytesUnchecked, 50)
    }
}
