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
    /// streamed 200 MB line (~25 MB) from a held one. AddressSanitizer runs with a
    /// 16 MB quarantine (scripts/sanitizers.sh) and keeps the plain bound.
    static func memoryBudget(kibibytes: Int) -> Int {
        thread ? 4 * kibibytes : kibibytes
    }

    private static func symbolIsLinked(_ name: String) -> Bool {
        guard let program = dlopen(nil, RTLD_LAZY) else { return false }
        defer { dlclose(program) }
        return dlsym(program, name) != nil
    }
}
