import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How a child process ended and what it wrote.
struct ChildResult {
    /// The exit status when it exited, nil when a signal ended it.
    var exitCode: Int32?
    var signal: Int32?
    var stdout: String
    var stderr: String
    /// Peak resident set size: the largest `VmHWM` of /proc/PID/status seen while
    /// waiting (sampled every 2 ms; not `wait4`'s `ru_maxrss`, which for a child
    /// started by posix_spawn — clone with CLONE_VM — includes the test process's
    /// own peak, recorded when the child's exec left the shared address space).
    /// Only samples whose `Name:` is already the executable's count: the
    /// kernel wakes the spawning thread before the child's exec has switched
    /// to its own address space, so an early sample can read the test
    /// process's peak instead (a CI failure: 208 MB "peak" for analyze).
    var maxRSSKiB: Int

    static let failedToStart = ChildResult(exitCode: nil, signal: nil, stdout: "", stderr: "(not started)", maxRSSKiB: 0)
}

/// One child process started with `posix_spawn`.
final class Child {
    enum Input {
        case null, closed
        case file(String)
        /// A pipe the test writes with ``writeToStandardInput(_:)``.
        case pipe
        /// The standard output of `/bin/sh -c command`.
        case command(String)
    }

    enum Output {
        /// Into a file, returned as text.
        case capture
        case closed
        /// A pipe whose reading end is closed before the child starts.
        case brokenPipe
        /// A pseudo-terminal `columns` wide, its output returned as text (the
        /// terminal's own line discipline turns each line feed into CR LF).
        case terminal(columns: Int)
        /// Into what is at `path` (a FIFO the test reads), opened for writing; not returned.
        case path(String)
    }

    let pid: pid_t
    /// What `/proc/PID/status` names the child once its exec has replaced the
    /// spawning process's image: the executable's file name, cut to 15 bytes.
    private let processName: String
    private var stdinWriter: Int32 = -1
    private var feeder: pid_t = 0
    private let stdoutPath: String
    private let stderrPath: String
    /// The controlling side of a ``Output/terminal(columns:)`` standard error.
    private var terminal: Int32 = -1

    init(_ executable: String, _ arguments: [String], stdin: Input = .null, stdout: Output = .capture,
         stderr: Output = .capture) throws {
        processName = String(decoding: URL(fileURLWithPath: executable).lastPathComponent.utf8.prefix(15), as: UTF8.self)
        let tag = NSTemporaryDirectory() + "analyze-child-\(getpid())-\(UUID().uuidString)"
        stdoutPath = tag + ".out"
        stderrPath = tag + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var closeInParent: [Int32] = []

        switch stdin {
        case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .closed: posix_spawn_file_actions_addclose(&actions, 0)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        case .pipe, .command:
            var fds: [Int32] = [0, 0]
            try Child.makePipe(&fds)
            posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
            closeInParent.append(fds[0])
            if case .command(let command) = stdin {
                feeder = try Child.spawnFeeder(command, into: fds[1])
                close(fds[1])
            } else {
                stdinWriter = fds[1]
            }
        }
        for (fd, output, path) in [(Int32(1), stdout, stdoutPath), (Int32(2), stderr, stderrPath)] {
            switch output {
            case .capture: posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .closed: posix_spawn_file_actions_addclose(&actions, fd)
            case .path(let path): posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY, 0)
            case .brokenPipe:
                var fds: [Int32] = [0, 0]
                try Child.makePipe(&fds)
                close(fds[0])
                posix_spawn_file_actions_adddup2(&actions, fds[1], fd)
                closeInParent.append(fds[1])
            case .terminal(let columns):
                let (controller, device) = try Child.openTerminal(columns: columns)
                terminal = controller
                posix_spawn_file_actions_adddup2(&actions, device, fd)
                closeInParent.append(device)
            }
        }
        pid = try Child.spawn(executable, arguments, actions: &actions)
        for fd in closeInParent { close(fd) }
    }

    /// A pseudo-terminal of one row's width `columns`: its controlling side
    /// and its device, both closed on exec (the child gets the device by dup2).
    ///
    /// glibc declares `posix_openpt` and its companions only for XSI
    /// sources, which Swift's Glibc module is not: they are looked up by name.
    private static func openTerminal(columns: Int) throws -> (Int32, Int32) {
        typealias OpenFunction = @convention(c) (Int32) -> Int32
        typealias NameFunction = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        func function<F>(_ name: String, as type: F.Type) throws -> F {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { throw POSIXError(.ENOSYS) }
            return unsafeBitCast(symbol, to: type)
        }
        let openpt = try function("posix_openpt", as: OpenFunction.self)
        let grantpt = try function("grantpt", as: OpenFunction.self)
        let unlockpt = try function("unlockpt", as: OpenFunction.self)
        let ptsname = try function("ptsname", as: NameFunction.self)
        // A machine without pseudo-terminals (no /dev/pts in a container)
        // skips the test that asked for one.
        let controller = openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard controller >= 0, grantpt(controller) == 0, unlockpt(controller) == 0, let name = ptsname(controller) else {
            throw XCTSkip("no pseudo-terminal here (posix_openpt: \(String(cString: strerror(errno))))")
        }
        let device = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard device >= 0 else { throw XCTSkip("no pseudo-terminal here (\(String(cString: name)): \(String(cString: strerror(errno))))") }
        var size = winsize(ws_row: 24, ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(device, UInt(TIOCSWINSZ), &size) == 0 else { throw POSIXError(.ENOTTY) }
        return (controller, device)
    }

    /// What the terminal showed before ``waitForTerminal(toShow:timeout:)`` returned.
    private var terminalBytes: [UInt8] = []

    /// Waits until the terminal has shown `text` `times` times (true), or
    /// `timeout` seconds passed (false), reading what the child wrote so far.
    func waitForTerminal(toShow text: String, times: Int = 1, timeout: Double) -> Bool {
        let deadline = Child.monotonicSeconds() + timeout
        while Child.monotonicSeconds() < deadline {
            var ready = pollfd(fd: terminal, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, 50) > 0 { _ = readTerminal() }
            if String(decoding: terminalBytes, as: UTF8.self).components(separatedBy: text).count - 1 >= times { return true }
        }
        return false
    }

    /// Appends one read of the terminal to ``terminalBytes``; false once it
    /// has nothing more (EIO when the child has exited).
    private func readTerminal() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(terminal, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n > 0 { terminalBytes += buffer[0..<n] }
            return n > 0
        }
    }

    /// Everything written to the terminal, once the child has exited.
    private func drainTerminal() -> String {
        while readTerminal() {}
        close(terminal)
        terminal = -1
        return String(decoding: terminalBytes, as: UTF8.self)
    }

    /// A pipe whose ends are closed on exec (the child gets its end by dup2).
    private static func makePipe(_ fds: inout [Int32]) throws {
        guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }

    private static func spawn(_ executable: String, _ arguments: [String], actions: inout posix_spawn_file_actions_t) throws -> pid_t {
        // Default dispositions and an empty mask, whatever the test runner set.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        // No descriptor of the test runner's past the three standard ones,
        // last (after the dup2s from them): a runner that leaves some open
        // (make's jobserver, some CI agents) would take the room the
        // descriptor-limit tests count on. glibc 2.34 and later; looked up
        // by name, as it is not in Swift's Glibc module.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
        return pid
    }

    /// `/bin/sh -c command` writing into `fd`.
    private static func spawnFeeder(_ command: String, into fd: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fd, 1)
        return try spawn("/bin/sh", ["-c", command], actions: &actions)
    }

    /// Writes everything (blocking); the pipe stays open until ``closeStandardInput()`` or ``wait(timeout:)``.
    func writeToStandardInput(_ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(stdinWriter, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }

    func closeStandardInput() {
        if stdinWriter >= 0 { close(stdinWriter) }
        stdinWriter = -1
    }

    func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Waits for the child (killing it after `timeout` seconds, a test failure).
    /// Its standard input is closed first, unless `keepingStandardInputOpen`:
    /// then only once the child has exited, so that a run sent a signal ends
    /// by that signal and not by the end of its input. (Regression: on a
    /// loaded machine the signal's thread was sometimes scheduled only after
    /// the run had read the end of its input and written its outputs, and
    /// it exited 0.)
    func wait(timeout: Double = 120, keepingStandardInputOpen: Bool = false,
              file: StaticString = #filePath, line: UInt = #line) -> ChildResult {
        if !keepingStandardInputOpen { closeStandardInput() }
        defer { closeStandardInput() }
        var status: Int32 = 0
        var peak = 0
        let deadline = Child.monotonicSeconds() + timeout
        var killed = false
        while true {
            peak = max(peak, Child.highWaterMarkKiB(of: pid, named: processName))
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR { break }
            if !killed && Child.monotonicSeconds() > deadline {
                // Where each thread waits, for a hang in a CI log.
                XCTFail("child \(pid) still running after \(timeout) s; killed (threads waiting in: \(Child.waitChannels(of: pid)))",
                        file: file, line: line)
                kill(pid, SIGKILL)
                killed = true
            }
            usleep(2_000)
        }
        if feeder > 0 {
            kill(feeder, SIGKILL)
            var ignored: Int32 = 0
            waitpid(feeder, &ignored, 0)
        }
        let stdout = Child.text(of: stdoutPath)
        let stderr = terminal >= 0 ? drainTerminal() : Child.text(of: stderrPath)
        unlink(stdoutPath)
        unlink(stderrPath)
        let signal = status & 0x7f
        return ChildResult(
            exitCode: signal == 0 ? (status >> 8) & 0xff : nil,
            signal: signal == 0 ? nil : signal,
            stdout: stdout, stderr: stderr, maxRSSKiB: peak)
    }

    /// A captured stream, read with read(2): FileManager.contents(atPath:) leaks its
    /// buffer for empty files (swift-foundation; LeakSanitizer reports it).
    private static func text(of path: String) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Seconds on a clock that never steps (a deadline on `Date()` moves
    /// when the clock of a freshly started machine is set).
    static func monotonicSeconds() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    /// The kernel functions the threads of `pid` wait in (`/proc/PID/task/*/wchan`).
    static func waitChannels(of pid: pid_t) -> String {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.sorted().map { "\($0): " + text(of: "/proc/\(pid)/task/\($0)/wchan") }.joined(separator: ", ")
    }

    /// Waits until the process `pid`, running the executable `name`, blocks
    /// (`disposition` "SigBlk": its thread for them then takes them) or
    /// ignores ("SigIgn") every one of `signals`: a signal sent before then
    /// would meet the default action of a process still starting up. False
    /// after `timeout` seconds.
    static func waitUntil(_ pid: pid_t, named name: String, has disposition: String, for signals: [Int32],
                          timeout: Double = 120) -> Bool {
        let mask = signals.reduce(UInt64(0)) { $0 | (UInt64(1) << UInt64($1 - 1)) }
        let deadline = monotonicSeconds() + timeout
        while monotonicSeconds() < deadline {
            let field = statusFields(of: pid)
            if field("Name") == String(name.prefix(15)), let bits = field(disposition).flatMap({ UInt64($0, radix: 16) }),
               bits & mask == mask {
                return true
            }
            usleep(1_000)
        }
        return false
    }

    /// ``waitUntil(_:named:has:for:timeout:)`` for this child's taking of
    /// SIGINT, SIGTERM and SIGHUP (a test failure when it never starts).
    func waitUntilHandlingSignals(file: StaticString = #filePath, line: UInt = #line) {
        if !Child.waitUntil(pid, named: processName, has: "SigBlk", for: [SIGINT, SIGTERM, SIGHUP]) {
            XCTFail("child \(pid) never started taking its signals", file: file, line: line)
        }
    }

    /// A reader of the fields of `/proc/PID/status` as it is now (nil: no such field).
    private static func statusFields(of pid: pid_t) -> (String) -> String? {
        let lines = text(of: "/proc/\(pid)/status").split(separator: "\n")
        return { key in
            lines.first(where: { $0.hasPrefix(key + ":") })
                .map { $0.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces) }
        }
    }

    /// `VmHWM` (peak RSS, KiB) of a running process once it is `name`; 0 before
    /// its exec has taken effect and once it has exited.
    static func highWaterMarkKiB(of pid: pid_t, named name: String) -> Int {
        let field = statusFields(of: pid)
        guard field("Name") == name, let peak = field("VmHWM") else { return 0 }
        return Int(peak.split(separator: " ").first ?? "") ?? 0
    }

    /// Starts, waits, returns.
    static func run(_ executable: String, _ arguments: [String], stdin: Input = .null, stdout: Output = .capture,
                    stderr: Output = .capture, timeout: Double = 120) throws -> ChildResult {
        try Child(executable, arguments, stdin: stdin, stdout: stdout, stderr: stderr).wait(timeout: timeout)
    }

    /// The standard output of `/bin/sh -c command` fed `stdin`.
    static func shell(_ command: String, stdin: Data) throws -> Data {
        let scratch = Scratch()
        let input = scratch.write("stdin", stdin)
        let output = scratch.path + "/stdout"
        let run = try Child.run("/bin/sh", ["-c", command + " > \"$0\"", output], stdin: .file(input))
        guard run.exitCode == 0 else { throw POSIXError(.EIO) }
        return FileManager.default.contents(atPath: output) ?? Data()
    }
}
