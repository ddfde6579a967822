import CSupport
import CZlib

/// gzip's CRC-32 over a byte stream, as zlib's `crc32` defines it.
///
/// Performance: the bytes are folded with carry-less multiplication where the
/// CPU has it — 128 bytes a step with VPCLMULQDQ and AVX2 (`analyze_crc32_folded_wide`,
/// about 24 GB/s on the benchmark machine), else 64 with PCLMULQDQ
/// (`analyze_crc32_folded`, about 12 GB/s) — and elsewhere by zlib's own
/// `crc32_z` (about 2.5 GB/s there).
enum CRC32 {
    /// The ways to compute it, slowest first.
    enum Kernel: Int, CaseIterable {
        case zlib, folded, wide
    }

    /// The fastest kernel this CPU and OS allow.
    static let best = Kernel(rawValue: Int(analyze_crc32_is_accelerated())) ?? .zlib

    /// The CRC of the bytes before plus `bytes` (start from 0).
    static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer, using kernel: Kernel = best) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        let start = base.assumingMemoryBound(to: UInt8.self)
        switch kernel {
        case .wide: return ~analyze_crc32_folded_wide(~crc, start, bytes.count)
        case .folded: return ~analyze_crc32_folded(~crc, start, bytes.count)
        case .zlib: return UInt32(truncatingIfNeeded: crc32_z(UInt(crc), start, bytes.count))
        }
    }
}
