/// `generate-events`: writes a deterministic synthetic Adapty SDK event export (NDJSON,
/// optionally gzip with several members) for tests, samples and benchmarks.
///
/// The world behind it (EventGenerator): people install the app on devices, get anonymous
/// profiles, log in (`identify`: link or switch), log out (new anonymous profile), relaunch
/// (`sdk_activate`, sometimes landing on another profile), reinstall, use several devices,
/// and answer onboarding quizzes; noise adds redeliveries, conflicting duplicates, late
/// arrivals, blank lines and one rejected line per SPEC §2 reject variant.
/// Same flags → same bytes.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import EventGenerator

let usage = """
    usage: generate-events [options]
      --events N       approximate number of events (default 10000); noise lines come on top
      --seed S         seed, an unsigned 64-bit integer (default 1)
      --start DATE     first day of the window, YYYY-MM-DD, UTC (default 2026-11-01)
      --days D         window length in days (default 30)
      --noise [R]      per-event probability of a noise card (default 0 = clean;
                       --noise alone means \(GeneratorConfiguration.defaultNoise))
      --crlf           end every line with CRLF
      --bom            start with a UTF-8 byte order mark
      --huge-line      add a line of exactly 1,048,576 bytes (accepted) and one of
                       1,048,577 bytes (line_too_long at the default limit)
      --gzip           gzip the output
      --level L        gzip level 0-9 (default 6)
      --members M      split the gzip output into M members at arbitrary byte positions
                       (implies --gzip)
      --out FILE       write to FILE instead of standard output
      --stats          print what was generated (the expected quality counts) to stderr
      -h, --help       this help

    """

/// Writes text to a file descriptor (no C stdio globals: Swift 6 strict concurrency).
func emit(_ text: String, to fd: Int32) {
    var t = text
    t.withUTF8 { p in
        var off = 0
        while off < p.count {
            let n = write(fd, p.baseAddress! + off, p.count - off)
            if n <= 0 { if n < 0 && errno == EINTR { continue }; return }
            off += n
        }
    }
}

func fail(_ message: String, code: Int32 = 1) -> Never {
    emit("generate-events: \(message)\n", to: 2)
    exit(code)
}

struct WriteError: Error { let message: String }

func run() {
    var config = GeneratorConfiguration()
    var gzip = false
    var level = 6
    var members = 1
    var outPath: String? = nil
    var stats = false

    let args = Array(CommandLine.arguments.dropFirst())
    var i = 0
    func value(_ name: String, _ inline: String?) -> String {
        if let inline { return inline }
        i += 1
        guard i < args.count else { fail("\(name) needs a value") }
        return args[i]
    }
    func integer(_ name: String, _ s: String) -> Int {
        guard let v = Int(s), v >= 0 else { fail("\(name): not a non-negative integer: \(s)") }
        return v
    }

    while i < args.count {
        var arg = args[i]
        var inline: String? = nil
        if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
            inline = String(arg[arg.index(after: eq)...])
            arg = String(arg[..<eq])
        }
        switch arg {
        case "-h", "--help":
            emit(usage, to: 1)
            exit(0)
        case "--events": config.events = integer(arg, value(arg, inline))
        case "--seed":
            let s = value(arg, inline)
            guard let v = UInt64(s) else { fail("--seed: not an unsigned 64-bit integer: \(s)") }
            config.seed = v
        case "--start": config.startDate = value(arg, inline)
        case "--days": config.days = integer(arg, value(arg, inline))
        case "--noise":
            if let inline {
                guard let r = Double(inline) else { fail("--noise: not a number: \(inline)") }
                config.noise = r
            } else if i + 1 < args.count, let r = Double(args[i + 1]) {
                config.noise = r
                i += 1
            } else {
                config.noise = GeneratorConfiguration.defaultNoise
            }
        case "--crlf": config.crlf = true
        case "--bom": config.bom = true
        case "--huge-line": config.includeHugeLine = true
        case "--gzip": gzip = true
        case "--level":
            level = integer(arg, value(arg, inline))
            guard level <= 9 else { fail("--level must be 0-9") }
        case "--members":
            members = integer(arg, value(arg, inline))
            guard members >= 1 else { fail("--members must be >= 1") }
            gzip = true
        case "--out": outPath = value(arg, inline)
        case "--stats": stats = true
        default: fail("unknown option: \(args[i]) (see --help)")
        }
        i += 1
    }
    if let problem = config.problem { fail(problem) }

    // MARK: output

    var fd: Int32 = 1
    if let path = outPath {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if fd < 0 { fail("cannot open \(path): \(String(cString: strerror(errno)))", code: 2) }
    }

    func writeAll(_ p: UnsafeRawBufferPointer) throws {
        guard var base = p.baseAddress else { return }
        var left = p.count
        while left > 0 {
            let n = write(fd, base, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw WriteError(message: String(cString: strerror(errno)))
            }
            base += n
            left -= n
        }
    }

    var generator = EventGenerator(config)
    do {
        if gzip {
            var cuts: [Int] = []
            if members > 1 {
                // A first pass measures the text so the members come out evenly sized.
                let total = generator.measure()
                cuts = gzipMemberBoundaries(totalBytes: total, members: members, seed: config.seed)
            }
            let writer = GzipWriter(level: level, memberBoundaries: cuts, output: writeAll)
            try generator.write { try writer.write($0) }
            try writer.finish()
        } else {
            try generator.write(to: writeAll)
        }
    } catch let e as WriteError {
        fail("write failed: \(e.message)", code: 2)
    } catch {
        fail("\(error)", code: 2)
    }
    if outPath != nil && close(fd) != 0 { fail("close failed: \(String(cString: strerror(errno)))", code: 2) }

    if stats {
        let r = generator.report
        var lines = [
            "people=\(r.people)", "bytes_decoded=\(r.bytes)", "lines=\(r.lines)", "blank_lines=\(r.blankLines)",
            "events=\(r.events)", "duplicates=\(r.duplicates)", "conflicting_duplicates=\(r.conflictingDuplicates)",
            "rejected=\(r.rejected)",
        ]
        for (k, name) in GenerationReport.rejectReasons.enumerated() { lines.append("rejected_\(name)=\(r.rejectedByReason[k])") }
        lines.append("unknown_event_type=\(r.unknownEventType)")
        for (k, name) in GenerationReport.knownEventTypes.enumerated() { lines.append("events_\(name)=\(r.eventsByType[k])") }
        lines.append("first_event_ns=\(r.firstEventNanoseconds.map(String.init) ?? "")")
        lines.append("last_event_ns=\(r.lastEventNanoseconds.map(String.init) ?? "")")
        for (kind, n) in r.noiseSorted { lines.append("noise.\(kind)=\(n)") }
        emit(lines.joined(separator: "\n") + "\n", to: 2)
    }
}

run()
