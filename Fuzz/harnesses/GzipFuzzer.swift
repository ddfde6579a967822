// libFuzzer harness for the input reader: gzip sniffing and streaming
// multi-member inflation (`DecodedTextSource` over `GzipInflater` and
// `RawFileReader`), driven through a real file as the pipeline drives it.
//
// Input layout: byte 0 picks the mode, byte 1 the size of the caller's read
// buffer (1 byte to 64 KiB, so every state of the inflater meets a full buffer),
// the rest is the body.
//
// * raw mode (byte 0 even): the body is the stored file. The decoded text or the
//   error must agree with an independent whole-buffer decoder written here from
//   SPEC §1 (members one by one with a fresh zlib stream each; after a member:
//   nothing, only zero bytes, or the next `1f 8b` member; anything else is
//   damage). Errors must name the file and give a byte offset inside the file;
//   a truncated stream's offset is the file's size.
// * structured mode (byte 0 odd): the body is *text*; the harness cuts it into
//   1–8 gzip members at input-chosen positions (empty members included), at an
//   input-chosen level, optionally followed by zero padding. Decoding must give
//   back exactly the text.
//
// In both modes the file is also read as a run reads it (`ChunkFeed`, chunks of
// an input-chosen size), where the members' trailers are checked by the workers
// from the chunks' text (`ChecksumLedger`), not by the inflater: see
// `compareTrailerChecks`.
import CZlib
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

private let readSizes = [1, 2, 3, 7, 64, 1000, 4096, 65536]
/// Decoded output beyond this is not compared (a 4 KiB input can inflate to ~4 MiB).
private let outputCap = 32 << 20

func fuzzGzip(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count >= 2 else { return }
    let mode = bytes[0], readSize = readSizes[Int(bytes[1] & 7)]
    let chunkCapacity = chunkCapacities[Int(bytes[1] >> 3) % chunkCapacities.count]
    let body = Array(bytes[2...])
    let decoded: String?
    if mode & 1 == 0 {
        decoded = fuzzRawInput(body, readSize: readSize)
    } else {
        var random = InputRandom(seed: UInt64(mode) << 8 | UInt64(bytes[1]))
        decoded = fuzzMemberSplits(text: body, random: &random, readSize: readSize)
    }
    guard let decoded else { return }
    compareTrailerChecks(path: decoded, chunkCapacity: chunkCapacity)
}

/// Chunk sizes for `compareTrailerChecks`: small ones cut members and lines
/// into many chunks and stream long lines past as markers.
private let chunkCapacities = [64, 200, 4096]

/// What decoding one stored file gives.
enum DecodeOutcome: Equatable {
    case text([UInt8])
    case failure(String)
    case tooLarge
}

/// Decodes the scratch file with the engine's reader, `readSize` bytes at most per call.
func engineDecode(path: String, displayName: String, readSize: Int) -> DecodeOutcome {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 16)
    defer { buffer.deallocate() }
    var output: [UInt8] = []
    do throws(AnalyzeError) {
        let source = try DecodedTextSource(InputFile(displayName: displayName, location: .path(path)))
        while true {
            let n = try source.read(into: buffer)
            if n == 0 { break }
            guard n <= readSize else { fuzzFailure("read returned \(n) bytes into a \(readSize)-byte buffer") }
            output.append(contentsOf: buffer[..<n])
            if output.count > outputCap { return .tooLarge }
        }
        guard source.bytesDecoded == output.count else {
            fuzzFailure("bytesDecoded \(source.bytesDecoded) but \(output.count) bytes were handed out")
        }
        return .text(output)
    } catch {
        return .failure(error.message)
    }
}

/// Returns the stored file's path, or nil when its text was too large to compare.
private func fuzzRawInput(_ body: [UInt8], readSize: Int) -> String? {
    let path = ScratchFile.path("gzip")
    ScratchFile.write(body, to: path)
    let engine = engineDecode(path: path, displayName: "fuzz-input", readSize: readSize)
    let reference = referenceDecode(body)
    switch (engine, reference) {
    case (.tooLarge, _), (_, .tooLarge):
        return nil
    case (.text(let a), .text(let b)):
        guard a == b else {
            fuzzFailure("decoded text differs from the reference decoder (\(a.count) vs \(b.count) bytes)")
        }
    case (.failure(let message), .failure(let why)):
        checkErrorMessage(message, storedSize: body.count, referenceReason: why)
    case (.text(let a), .failure(let why)):
        fuzzFailure("engine decoded \(a.count) bytes but the reference says: \(why)")
    case (.failure(let message), .text(let b)):
        fuzzFailure("engine failed (\(message)) but the reference decoded \(b.count) bytes")
    }
    return path
}

/// Errors name the file and, for gzip damage, an offset inside the stored file.
private func checkErrorMessage(_ message: String, storedSize: Int, referenceReason: String) {
    guard message.contains("'fuzz-input'") else { fuzzFailure("error does not name the file: \(message)") }
    guard let range = message.range(of: "at byte offset ") else {
        fuzzFailure("gzip error without a byte offset: \(message)")
    }
    let digits = message[range.upperBound...].prefix(while: { $0.isNumber })
    guard let offset = Int(digits), offset >= 0, offset <= storedSize else {
        fuzzFailure("byte offset outside the \(storedSize)-byte file: \(message)")
    }
    if message.contains("truncated") && offset != storedSize {
        fuzzFailure("a truncated stream's offset \(offset) is not the file size \(storedSize): \(message)")
    }
}

/// SPEC §1, written independently of GzipInflater: whole buffer in memory, a new
/// zlib stream per member.
func referenceDecode(_ stored: [UInt8]) -> DecodeOutcome {
    guard stored.count >= 2, stored[0] == 0x1f, stored[1] == 0x8b else { return .text(stored) }
    var output: [UInt8] = []
    var position = 0
    let window = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 16)
    defer { window.deallocate() }
    return stored.withUnsafeBufferPointer { input -> DecodeOutcome in
        while true {
            // One member starting at `position`.
            var stream = z_stream()
            guard czlib_inflate_init_gzip(&stream) == Z_OK else { return .failure("zlib init") }
            defer { inflateEnd(&stream) }
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress! + position)
            stream.avail_in = UInt32(stored.count - position)
            var status = Z_OK
            repeat {
                stream.next_out = window
                stream.avail_out = 1 << 16
                status = inflate(&stream, Z_NO_FLUSH)
                let produced = (1 << 16) - Int(stream.avail_out)
                output.append(contentsOf: UnsafeBufferPointer(start: window, count: produced))
                if output.count > outputCap { return .tooLarge }
                if status == Z_BUF_ERROR && stream.avail_in == 0 { return .failure("truncated member") }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    return .failure("damaged member (zlib \(status))")
                }
            } while status != Z_STREAM_END
            position = stored.count - Int(stream.avail_in)
            let rest = input[position...]
            if rest.isEmpty || rest.allSatisfy({ $0 == 0 }) { return .text(output) }
            guard rest.count >= 2, rest[position] == 0x1f, rest[position + 1] == 0x8b else {
                // A lone 1f, or anything else after a member, is damage.
                return .failure("bytes after a member")
            }
        }
    }
}

/// Compresses `part` as one complete gzip member.
func gzipMember(_ part: ArraySlice<UInt8>, level: Int32) -> [UInt8] {
    var stream = z_stream()
    guard czlib_deflate_init_gzip(&stream, level) == Z_OK else { fuzzFailure("deflateInit2 failed") }
    defer { deflateEnd(&stream) }
    var out: [UInt8] = []
    let window = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 16)
    defer { window.deallocate() }
    var input = Array(part)
    input.withUnsafeMutableBufferPointer { buffer in
        stream.next_in = buffer.baseAddress
        stream.avail_in = UInt32(buffer.count)
        var status: Int32
        repeat {
            stream.next_out = window
            stream.avail_out = 1 << 16
            status = deflate(&stream, Z_FINISH)
            out.append(contentsOf: UnsafeBufferPointer(start: window, count: (1 << 16) - Int(stream.avail_out)))
        } while status == Z_OK || status == Z_BUF_ERROR
        guard status == Z_STREAM_END else { fuzzFailure("deflate failed: \(status)") }
    }
    return out
}

/// Returns the stored file's path, or nil when its text was too large to compare.
private func fuzzMemberSplits(text: [UInt8], random: inout InputRandom, readSize: Int) -> String? {
    let members = 1 + random.below(8)
    var cuts = (1..<members).map { _ in random.below(text.count + 1) }
    cuts.sort()
    let level = Int32(random.below(10))
    var stored: [UInt8] = []
    var start = 0
    for cut in cuts + [text.count] {
        stored += gzipMember(text[start..<cut], level: level)
        start = cut
    }
    let padding = random.below(4) == 0 ? 1 + random.below(600) : 0
    stored += [UInt8](repeating: 0, count: padding)

    let path = ScratchFile.path("gzip")
    ScratchFile.write(stored, to: path)
    switch engineDecode(path: path, displayName: "fuzz-input", readSize: readSize) {
    case .text(let decoded):
        guard decoded == text else {
            fuzzFailure("\(members) member(s) (cuts \(cuts), level \(level), \(padding) zero bytes) decoded to "
                + "\(decoded.count) bytes, not the \(text.count) compressed")
        }
    case .failure(let message):
        fuzzFailure("valid \(members)-member gzip (cuts \(cuts), \(padding) zero bytes) rejected: \(message)")
    case .tooLarge:
        return nil
    }
    return path
}

// MARK: Trailers checked from the chunks

/// What a `ChunkFeed` over one file gave.
private struct FeedOutcome {
    /// The chunks' text in input order, a long line as one marker.
    var text: [UInt8] = []
    var error: String?
    var bytesUnchecked = 0
}

/// Chunks' text gathered from several workers.
private final class Pieces: @unchecked Sendable {
    private let lock = NSLock()
    private var pieces: [(sequence: Int, bytes: [UInt8])] = []

    func append(_ sequence: Int, _ bytes: [UInt8]) {
        lock.lock()
        pieces.append((sequence, bytes))
        lock.unlock()
    }

    var all: [(sequence: Int, bytes: [UInt8])] {
        lock.lock()
        defer { lock.unlock() }
        return pieces
    }
}

/// Reads `path` through a `ChunkFeed` with `workers` workers and chunks of
/// `capacity` bytes; `deferred`: the workers check the trailers from the
/// chunks (as a run does), else the inflater checks them while inflating.
private func feedOutcome(path: String, workers: Int, capacity: Int, deferred: Bool) -> FeedOutcome {
    let file = InputFile(displayName: "fuzz-input", location: .path(path))
    let pool = BlockingPool((0..<ChunkFeed.poolSize(workers: workers, files: 1)).map { _ in Chunk(capacity: capacity) })
    let feed = ChunkFeed(files: [file], workers: workers, pool: pool, progress: nil, checksTrailersFromChunks: deferred)
    let pieces = Pieces()
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
        while let chunk = feed.next() {
            let bytes: [UInt8]
            switch chunk.kind {
            case .lines: bytes = Array(chunk.text)
            case .oversizedLine(let isBlank): bytes = Array((isBlank ? "\u{0}<long blank>\n" : "\u{0}<long>\n").utf8)
            }
            let sequence = chunk.sequence
            feed.recycle(chunk)
            pieces.append(sequence, bytes)
        }
    }
    var outcome = FeedOutcome()
    for piece in pieces.all.sorted(by: { $0.sequence < $1.sequence }) { outcome.text += piece.bytes }
    outcome.error = feed.error?.message
    outcome.bytesUnchecked = feed.bytesUnchecked
    return outcome
}

/// The trailer checks of a run (by the workers, from the chunks' text)
/// against the inflater's own, over the file at `path`:
/// * one worker gives the same text and the same error, word for word and
///   offset for offset (the same inflate calls begin at the same places);
/// * two workers, whose handoffs move where inflate calls begin and end,
///   give the same text and the same error, offset included (since the
///   fifty-second session, when damage in deflate data came to be named
///   where the decoder stopped instead of where its call's input began);
/// * an input that does not fail is checked to its last decoded byte.
/// (Its text was decoded within ``outputCap`` already.)
private func compareTrailerChecks(path: String, chunkCapacity: Int) {
    let inflaters = feedOutcome(path: path, workers: 1, capacity: chunkCapacity, deferred: false)
    let one = feedOutcome(path: path, workers: 1, capacity: chunkCapacity, deferred: true)
    guard one.error == inflaters.error else {
        fuzzFailure("deferred trailer check, one worker: \(one.error ?? "no error"), "
            + "but the inflater's own check: \(inflaters.error ?? "no error") (\(chunkCapacity)-byte chunks)")
    }
    let two = feedOutcome(path: path, workers: 2, capacity: chunkCapacity, deferred: true)
    guard two.error == inflaters.error else {
        fuzzFailure("deferred trailer check, two workers: \(two.error ?? "no error"), "
            + "but the inflater's own check: \(inflaters.error ?? "no error") (\(chunkCapacity)-byte chunks)")
    }
    guard inflaters.error == nil else { return }
    guard one.text == inflaters.text, two.text == inflaters.text else {
        fuzzFailure("chunks differ: \(inflaters.text.count) bytes with the inflater's check, \(one.text.count) "
            + "with one worker's, \(two.text.count) with two workers' (\(chunkCapacity)-byte chunks)")
    }
    guard one.bytesUnchecked == 0, two.bytesUnchecked == 0 else {
        fuzzFailure("a clean input left \(one.bytesUnchecked) / \(two.bytesUnchecked) bytes unchecked")
    }
}
