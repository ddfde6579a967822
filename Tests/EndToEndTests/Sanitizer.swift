import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether this test process (and the `analyze` built beside it) was compiled
/// with ThreadSanitizer: `swift test --sanitize=thread` adds shadow memory to every
/// process, so memory bounds are widened under it rather than dropped.
enum Sanitizer {
    static let thread = symbolIsLinked("__tsan_init")
    static let address = symbolIsLinked("__asan_init")

    /// `kibibytes` for a plain build; four times that under ThreadSanitizer (its
    /// shadow and metadata cost 2-3× the application's memory), which still tells a
    /// streamed 200 MB line (~25 MB) from a held one. Under AddressSanitizer, 48 MiB
    /// more: its runtime's own pages, whatever the input. Its `analyze` (a debug
    /// build, with the 16 MB quarantine of scripts/sanitizers.sh) peaks at about
    /// 31 MB on a one-line input and at about 71.5 MB on 250 000, 1 million or 2
    /// million empty gzip members alike, where the release build peaks at 13 MB.
    static func memoryBudget(kibibytes: Int) -> Int {
        if thread { return 4 * kibibytes }
        if address { return kibibytes + 48 * 1024 }
        return kibibytes
    }

    private static func symbolIsLinked(_ name: String) -> Bool {
        guard let program = dlopen(nil, RTLD_LAZY) else { return false }
        defer { dlclose(program) }
        return dlsym(program, name) != nil
    }
}
