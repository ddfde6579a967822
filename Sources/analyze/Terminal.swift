// The standard streams (standard error's messages, standard output's help and
// version text), the progress line shown on a terminal, and its monotonic clock.
import AnalyzeKit
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

enum StandardError {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }
}

/// Writes what a flag asked for to standard output; a closed or broken
/// standard output is an I/O error (exit 2), not a silent success.
func writeStandardOutput(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                StandardError.write("analyze: cannot write to standard output: \(String(cString: strerror(errno)))\n")
                exit(2)
            }
            offset += n
        }
    }
}

enum MonotonicClock {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// Redraws one status line on standard error every half second: bytes and
/// lines per second and, when input sizes are known, an ETA.
final class ProgressDisplay: @unchecked Sendable {
    private let progress: Analyzer.Progress
    private let started: Double
    private let queue = DispatchQueue(label: "analyze.progress")
    private let timer: DispatchSourceTimer

    init(_ progress: Analyzer.Progress, started: Double) {
        self.progress = progress
        self.started = started
        timer = DispatchSource.makeTimerSource(queue: queue)
    }

    func start() {
        InterruptCleanup.setProgressLineShown(true)
        timer.schedule(deadline: .now() + 0.5, repeating: 0.5)
        timer.setEventHandler { [self] in draw() }
        timer.resume()
    }

    /// Stops drawing and erases the line. On the timer's own queue: a draw
    /// already running ends first, and none starts after (`cancel` alone
    /// does not wait for one, whose line could then follow the summary).
    func stop() {
        queue.sync {
            timer.cancel()
            StandardError.write("\r\u{1B}[K")
            InterruptCleanup.setProgressLineShown(false)
        }
    }

    private func draw() {
        let line = progress.line(elapsed: MonotonicClock.now() - started, columns: Self.columns())
        // Not after an interrupt's message, which erases this line first.
        InterruptCleanup.withInterruptsHeld { StandardError.write("\r" + line + "\u{1B}[K") }
    }

    /// The terminal's width, asked at every draw (a window can be resized);
    /// 0 when it does not say (`Progress.line` then takes 80).
    private static func columns() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 else { return 0 }
        return Int(size.ws_col)
    }
}
