/// What the command line asks for.
public enum CommandLineRequest: Equatable, Sendable {
    case help
    case version
    case run(AnalyzeOptions)
}

/// Turns raw arguments into a validated ``CommandLineRequest`` before any work
/// is done; every problem is a usage error (exit 1) naming the argument.
///
/// `--opt value` and `--opt=value` both work (`--opt value` refuses a value
/// that starts with `--`: `--out --quiet` is a missing value), options may
/// follow paths, `--` ends options, and a lone `-` is standard input. A
/// repeated option keeps its last value, and only that value is checked
/// (`--threads 0 --threads 4` runs with 4, as the reference implementation
/// does). `--help`, `-h` and `--version` win wherever they stand among the
/// options, even after an unknown option or a bad value (`analyze --bogus
/// --version` prints the version, exit 0, as `analyze --version --bogus`
/// does); the first of them decides which.
public enum CommandLineParser {
    /// The options that take a value (checked once all arguments are read).
    private static let valueOptions = [
        "--out", "--timezone", "--threads", "--max-reject-rate", "--max-reject-rows", "--max-line-bytes",
    ]

    public static func parse(_ arguments: [String]) throws(AnalyzeError) -> CommandLineRequest {
        try parse(rawArguments: arguments.map { Array($0.utf8) })
    }

    /// As ``parse(_:)``, from the bytes of each argument (`argv` on Linux,
    /// which need not be UTF-8): input paths keep their bytes, everything
    /// else is read as text.
    public static func parse(rawArguments: [[UInt8]]) throws(AnalyzeError) -> CommandLineRequest {
        let arguments = rawArguments.map { String(decoding: $0, as: UTF8.self) }
        var values: [String: String] = [:]
        /// Options whose value was not UTF-8 (read with U+FFFD in its place).
        var notUTF8: Set<String> = []
        var quiet = false
        var paths: [[UInt8]] = []
        var index = 0
        var optionsEnded = false
        // The first problem in the arguments themselves, thrown once no
        // `--help` or `--version` has turned up further on.
        var firstProblem: AnalyzeError?

        while index < arguments.count {
            let argument = arguments[index]
            defer { index += 1 }
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                paths.append(rawArguments[index])
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            switch name {
            case "-h", "--help", "--version", "--quiet":
                guard inline == nil else {
                    firstProblem = firstProblem ?? .usage("option \(name) takes no value")
                    continue
                }
                if name == "--quiet" {
                    quiet = true
                } else {
                    return name == "--version" ? .version : .help
                }
            case _ where valueOptions.contains(name):
                if let inline {
                    values[name] = inline
                } else {
                    guard index + 1 < arguments.count else {
                        firstProblem = firstProblem ?? .usage("option \(name) needs a value")
                        continue
                    }
                    // A long option (or `--`) where the value should be
                    // (`--out $DIR --quiet` with DIR unset) is read as itself,
                    // not taken for the value: such a run would write to a
                    // directory named `--quiet`. No time zone or number starts
                    // with `--`; `-05:00` and `-1` are still values, and `-h`
                    // is still help.
                    let next = arguments[index + 1]
                    if next.hasPrefix("--") || next == "-h" {
                        firstProblem = firstProblem ?? .usage(
                            "option \(name) needs a value, but the next argument is '\(next)'; "
                                + "to use that as the value, write \(name)=\(next)")
                        continue
                    }
                    index += 1
                    values[name] = arguments[index]
                }
                if String(validating: rawArguments[index], as: UTF8.self) == nil {
                    notUTF8.insert(name)
                } else {
                    notUTF8.remove(name)
                }
            default:
                firstProblem = firstProblem ?? .usage("unknown option '\(name)'" + hint(forUnknown: name))
            }
        }
        if let firstProblem { throw firstProblem }

        var options = AnalyzeOptions(paths: [])
        options.quiet = quiet
        if let text = values["--out"] {
            guard !text.isEmpty else { throw .usage("option --out needs a directory") }
            // Read as text, such a path would name another directory (U+FFFD
            // in place of each stray byte), and the outputs would go there.
            guard !notUTF8.contains("--out") else {
                throw .usage("the --out directory '\(text)' is not valid UTF-8; give a directory whose name is valid UTF-8")
            }
            options.outputDirectory = text
        }
        if let text = values["--timezone"] {
            guard let zone = ReportingTimeZone(parsing: text) else {
                throw .usage("unknown time zone '\(text)' for --timezone (an IANA name such as Asia/Tokyo, or +HH:MM / -HH:MM)")
            }
            options.timeZone = zone
        }
        if let text = values["--threads"] { options.threads = try positiveInteger(text, for: "--threads") }
        if let text = values["--max-reject-rate"] { options.maxRejectRate = try rate(text, for: "--max-reject-rate") }
        if let text = values["--max-reject-rows"] { options.maxRejectRows = try integer(text, for: "--max-reject-rows") }
        if let text = values["--max-line-bytes"] { options.maxLineBytes = try positiveInteger(text, for: "--max-line-bytes") }
        guard !paths.isEmpty else { throw .usage("no input path given") }
        guard paths.filter({ $0 == [UInt8(ascii: "-")] }).count <= 1 else {
            throw .usage("standard input '-' given more than once")
        }
        options.pathBytes = paths
        return .run(options)
    }

    /// Every option's name, for suggestions.
    private static let optionNames = valueOptions + ["--quiet", "--help", "--version"]

    /// What an unknown option was probably meant to be: the option or two it
    /// starts (`--ver`, `--max-reject`), else the one or two nearest within
    /// two typing slips (`--outt`, `--max_reject_rate`); for a lone letter
    /// (`-q`, `--q`), the long option it starts when only one does; or else,
    /// for something that reads like a file name (`-x.gz`), how to name such
    /// a file. Empty when nothing fits.
    static func hint(forUnknown name: String) -> String {
        let letters = Array(name.drop(while: { $0 == "-" }))
        if name.hasPrefix("-") && letters.count == 1 {
            let matches = optionNames.filter { $0.dropFirst(2).first == letters[0] }
            return matches.count == 1 ? "; did you mean '\(matches[0])'?" : ""
        }
        // Case and underscores are slips too: compared as lower-case dashes.
        let typed = "--" + String(letters.map { $0 == "_" ? "-" : $0 }).lowercased()
        if letters.count >= 2 {
            // The start of an option (`--ver`, `-qu`), else the nearest ones.
            // Two that fit equally well are both named; more, none.
            let starting = optionNames.filter { $0.hasPrefix(typed) }
            let distances = optionNames.map { editDistance(typed, $0) }
            let nearest = distances.min()!
            let near = nearest <= 2 ? optionNames.indices.filter { distances[$0] == nearest }.map { optionNames[$0] } : []
            let meant = starting.isEmpty ? near : starting
            if (1...2).contains(meant.count) {
                return "; did you mean " + meant.map { "'\($0)'" }.joined(separator: " or ") + "?"
            }
        }
        if name.contains(".") || name.contains("/") {
            return " (to read a file whose name starts with '-', write it as ./\(name) or after --)"
        }
        return ""
    }

    /// The Levenshtein distance between two short strings.
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        var previous = Array(0...b.count)
        for i in a.indices {
            var current = [i + 1]
            for j in b.indices {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    private static func integer(_ text: String, for name: String) throws(AnalyzeError) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            if text.hasPrefix("-") { throw .usage("option \(name) must not be negative, got '\(text)'") }
            throw .usage("option \(name) needs a whole number, got '\(text)'")
        }
        // Beyond Int.max every count here means "no limit" (threads are capped
        // at the cores anyway).
        return Int(text) ?? Int.max
    }

    private static func positiveInteger(_ text: String, for name: String) throws(AnalyzeError) -> Int {
        let number = try integer(text, for: name)
        guard number > 0 else { throw .usage("option \(name) must be at least 1, got '\(text)'") }
        return number
    }

    private static func rate(_ text: String, for name: String) throws(AnalyzeError) -> RejectRate {
        if text.hasPrefix("-") { throw .usage("option \(name) must not be negative, got '\(text)'") }
        guard let rate = RejectRate(parsing: text) else {
            throw .usage("option \(name) needs a number such as 0.05, got '\(text)'")
        }
        return rate
    }

    /// The `--help` text: every option with its default.
    public static let helpText = """
        Usage: analyze [options] <path>...

        Summarise Adapty SDK event exports (gzipped or plain NDJSON) into CSV
        reports: installs per day (by device, customer user and profile ID),
        profile switches, quiz answer distributions, a quality report and a list
        of rejected lines.

        A <path> is a file (gzip is detected by its content), a directory (its
        *.ndjson, *.ndjson.gz, *.jsonl and *.jsonl.gz files, in name order; not
        dot-files or subdirectories), or - for standard input. Other compressed
        formats and archives (zstd, xz, bzip2, lz4, zip, 7z, tar) are not
        unpacked: such a file named as a path is read as text (its lines are
        rejected, a tar's headers around its files' lines; a warning, exit 0),
        and a directory skips them. Unpack them first.

        Options:
          --out DIR            where the CSVs go (default: ./analyze-out;
                               created if missing)
          --timezone TZ        reporting time zone: an IANA name such as
                               Asia/Tokyo, or +HH:MM / -HH:MM (default: UTC)
          --threads N          worker threads (default and at most: the cores
                               this process may use)
          --max-reject-rate R  fail with exit 3 when rejected/lines exceeds R
                               (default: 1.0 = never)
          --max-reject-rows N  rows kept in rejects.csv (default: 10000)
          --max-line-bytes N   longer lines are rejected as line_too_long
                               (default: 1048576)
          --quiet              no progress or summary on standard error
                               (warnings and errors are still shown)
          -h, --help           show this help
          --version            show the version and the gzip inflater in use

        A value follows its option as --opt VALUE or --opt=VALUE (only the
        second takes a value that starts with --); options may follow paths;
        a repeated option keeps its last value; -- ends the options (write a
        file named -x.gz as ./-x.gz or after --).

        Outputs (in --out): installs.csv, profile_switches.csv, quiz_answers.csv,
        quality.csv, rejects.csv. They are replaced all together, and only when
        all the input was read without error and within --max-reject-rate.

        Exit status: 0 success, 1 usage error, 2 input or output error
        (unreadable file, a directory with no export file, corrupt or truncated
        gzip, unwritable --out, more input than one run can hold, too few free
        file descriptors or threads), 3 --max-reject-rate exceeded, 130 / 143 /
        129 interrupted by SIGINT / SIGTERM / SIGHUP, 152 stopped at the CPU
        time limit.

        Environment: ANALYZE_HASH_SEED=N (N an unsigned 64-bit decimal) fixes
        the key of the run's internal hashes (to reproduce a run exactly; the
        outputs do not depend on it, short of a hash collision).
        """
}
