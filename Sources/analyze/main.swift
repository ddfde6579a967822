// The `analyze` command: parse flags, run the engine, report, exit.
import AnalyzeKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

signal(SIGPIPE, SIG_IGN)
// Past a file-size limit (`ulimit -f`, systemd's LimitFSIZE=) write(2) then fails
// with EFBIG and the run exits 2 through the same cleanup as a full device,
// instead of dying of SIGXFSZ with its temporary files left in --out.
signal(SIGXFSZ, SIG_IGN)
if let warning = InterruptCleanup.install() { StandardError.write("analyze: warning: \(warning)\n") }

func fail(_ error: AnalyzeError) -> Never {
    StandardError.write("analyze: \(error.message)\n")
    if case .usage = error { StandardError.write("analyze: see 'analyze --help'\n") }
    exit(error.exitCode)
}

let request: CommandLineRequest
do {
    // argv's bytes, not `CommandLine.arguments`: a path need not be UTF-8.
    let arguments = (1..<Int(CommandLine.argc)).map { index in
        CommandLine.unsafeArgv[index].map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? []
    }
    request = try CommandLineParser.parse(rawArguments: arguments)
} catch {
    fail(error)
}

switch request {
case .help:
    writeStandardOutput(CommandLineParser.helpText + "\n")
case .version:
    writeStandardOutput(
        "analyze \(Analyzer.version) (inflater: \(Analyzer.inflaterDescription); "
            + "time zones: \(Analyzer.timeZoneDataDescription))\n")
case .run(let options):
    // The hash key's override (docs/data-model.md) is checked, not ignored when malformed.
    if Analyzer.hashSeedIsMalformed {
        fail(.usage("ANALYZE_HASH_SEED must be an unsigned 64-bit decimal integer"))
    }
    let started = MonotonicClock.now()
    let progress = Analyzer.Progress()
    let showsProgress = !options.quiet && isatty(STDERR_FILENO) != 0
    // Made and started once the checks before reading have passed
    // (Analyzer.analyze's beforeReading); nil until then.
    var display: ProgressDisplay?
    let result: AnalysisResult
    // Shown once the progress line is gone (and with --quiet: they are not
    // progress or a summary).
    var warnings: [String] = []
    func showWarnings() {
        for warning in warnings { StandardError.write("analyze: warning: \(PrintableText.escaped(warning))\n") }
    }
    do {
        result = try Analyzer(options: options).run(progress: progress, beforeReading: {
            guard showsProgress else { return }
            display = ProgressDisplay(progress, started: started)
            display?.start()
        }) { warnings.append($0) }
    } catch {
        display?.stop()
        showWarnings()
        fail(error)
    }
    display?.stop()
    showWarnings()
    if !options.quiet {
        let q = result.quality
        let seconds = MonotonicClock.now() - started
        StandardError.write(
            "analyze: \(q.files) file(s), \(q.lines) lines, \(q.events) events, \(q.duplicates) duplicates, "
                + "\(q.rejected) rejected in \(Analyzer.Progress.formatSeconds(seconds)) → \(PrintableText.escaped(options.outputDirectory))\n")
    }
}
exit(0)
