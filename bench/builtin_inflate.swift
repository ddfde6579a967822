// The built-in inflate alone, the floor of the built-in-inflate build (as
// bench/zlib_inflate.py is zlib's): every gzip member of FILE decoded by
// DeflateDecoder into one reused 1 MiB buffer, the text discarded, no CRC; the
// file read 256 KiB at a time, as analyze reads. Built by bench/builtin_inflate.sh
// with the decoder's own two source files.
//
//     builtin-inflate FILE     prints the decoded byte count
#if canImport(Glibc)
import Glibc
#endif

@main
struct BuiltInInflate {
    static let readSize = 1 << 18

    static func main() {
        guard CommandLine.arguments.count == 2 else {
            fputs("usage: builtin-inflate FILE\n", stderr)
            exit(2)
        }
        let fd = open(CommandLine.arguments[1], O_RDONLY)
        guard fd >= 0 else { fputs("builtin-inflate: cannot open the file\n", stderr); exit(2) }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * readSize, alignment: 16)
        var start = 0, end = 0, atEnd = false
        /// At least `n` bytes pending unless the file ends first.
        func fill(_ n: Int) {
            while end - start < n && !atEnd {
                if start > 0 {
                    input.baseAddress!.copyMemory(from: input.baseAddress! + start, byteCount: end - start)
                    end -= start
                    start = 0
                }
                let got = read(fd, input.baseAddress! + end, min(readSize, input.count - end))
                if got <= 0 { atEnd = true } else { end += got }
            }
        }
        /// Skips `n` bytes.
        func skip(_ n: Int) {
            var left = n
            while left > 0 {
                fill(1)
                guard end > start else { fputs("builtin-inflate: truncated\n", stderr); exit(1) }
                let k = min(left, end - start)
                start += k
                left -= k
            }
        }
        func byte() -> UInt8 {
            fill(1)
            guard end > start else { fputs("builtin-inflate: truncated\n", stderr); exit(1) }
            start += 1
            return input[start - 1]
        }
        let decoder = DeflateDecoder()
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        var total = 0
        while true {
            fill(2)
            guard end - start >= 2, input[start] == 0x1f, input[start + 1] == 0x8b else { break }
            // RFC 1952 header: 10 bytes and the optional fields.
            fill(10)
            let flags = input[start + 3]
            skip(10)
            if flags & 4 != 0 { let low = Int(byte()); skip(low | Int(byte()) << 8) }
            if flags & 8 != 0 { while byte() != 0 {} }
            if flags & 16 != 0 { while byte() != 0 {} }
            if flags & 2 != 0 { skip(2) }
            decoder.reset()
            while !decoder.isDone {
                fill(readSize)
                let pending = UnsafeRawBufferPointer(rebasing: input[start..<end])
                guard let step = try? decoder.decode(pending, into: output),
                      step.consumed + step.produced > 0 || decoder.isDone
                else { fputs("builtin-inflate: damaged or truncated data\n", stderr); exit(1) }
                start += step.consumed
                total += step.produced
            }
            skip(8 - decoder.takeBufferedBytes().count)  // the trailer
        }
        print(total)
    }
}
