import CSupport
import CZlib

/// gzip's CRC-32 over a byte stream, as zlib's `crc32` defines it.
///
/// Performance: with PCLMULQDQ (x86-64 since 2010) the bytes are folded 64 at
/// a time (`analyze_crc32_folded`, about 9 GB/s on the benchmark machine);
/// elsewhere zlib's own `crc32_z` (about 2.5 GB/s there) does the work.
enum CRC32 {
    private static let isAccelerated = analyze_crc32_is_accelerated() != 0

    /// The CRC of the bytes before plus `bytes` (start from 0).
    static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        let start = base.assumingMemoryBound(to: UInt8.self)
        if isAccelerated {
            return ~analyze_crc32_folded(~crc, start, bytes.count)
        }
        return UInt32(truncatingIfNeeded: crc32_z(UInt(crc), start, bytes.count))
    }

    /// zlib's `crc32_z` (the reference `update` must agree with).
    static func zlibUpdate(_ crc: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        return UInt32(truncatingIfNeeded: crc32_z(UInt(crc), base.assumingMemoryBound(to: UInt8.self), bytes.count))
    }
}
