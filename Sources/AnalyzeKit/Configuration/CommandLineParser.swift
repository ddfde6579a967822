/// What the command line asks for.
public enum CommandLineRequest: Equatable, Sendable {
    case help
    case version
    case run(AnalyzeOptions)
}

/// Turns raw arguments into a validated ``CommandLineRequest`` before any work
/// is done; every problem is a usage error (exit 1) naming the argument.
///
/// `--opt value` and `--opt=value` both work, options may follow paths, `--`
/// ends options, and a lone `-` is standard input. A repeated option keeps
/// its last value.
public enum CommandLineParser {
    public static func parse(_ arguments: [String]) throws(AnalyzeError) -> CommandLineRequest {
        var options = AnalyzeOptions(paths: [])
        var paths: [String] = []
        var index = 0
        var optionsEnded = false

        func value(for name: String, inline: String?) throws(AnalyzeError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw .usage("option \(name) needs a value") }
            return arguments[index]
        }

        while index < arguments.count {
            let argument = arguments[index]
            defer { index += 1 }
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                paths.append(argument)
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
            case "-h", "--help":
                return .help
            case "--version":
                return .version
            case "--quiet":
                guard inline == nil else { throw .usage("option --quiet takes no value") }
                options.quiet = true
            case "--out":
                let text = try value(for: name, inline: inline)
                guard !text.isEmpty else { throw .usage("option --out needs a directory") }
                options.outputDirectory = text
            case "--timezone":
                let text = try value(for: name, inline: inline)
                guard let zone = ReportingTimeZone(parsing: text) else {
                    throw .usage("unknown time zone '\(text)' for --timezone (an IANA name such as Asia/Tokyo, or ±HH:MM)")
                }
                options.timeZone = zone
            case "--threads":
                options.threads = try positiveInteger(try value(for: name, inline: inline), for: name)
            case "--max-line-bytes":
                options.maxLineBytes = try positiveInteger(try value(for: name, inline: inline), for: name)
            case "--max-reject-rows":
                options.maxRejectRows = try integer(try value(for: name, inline: inline), for: name)
            case "--max-reject-rate":
                options.maxRejectRate = try rate(try value(for: name, inline: inline), for: name)
            default:
                throw .usage("unknown option '\(name)' (see --help)")
            }
        }
        guard !paths.isEmpty else { throw .usage("no input path given (see --help)") }
        guard paths.filter({ $0 == "-" }).count <= 1 else { throw .usage("standard input '-' given more than once") }
        options.paths = paths
        return .run(options)
    }

    private static func integer(_ text: String, for name: String) throws(AnalyzeError) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let number = Int(text)
        else {
            if text.hasPrefix("-") { throw .usage("option \(name) must not be negative, got '\(text)'") }
            throw .usage("option \(name) needs a whole number, got '\(text)'")
        }
        return number
    }

    private static func positiveInteger(_ text: String, for name: String) throws(AnalyzeError) -> Int {
        let number = try integer(text, for: name)
        guard number > 0 else { throw .usage("option \(name) must be at least 1, got '\(text)'") }
        return number
    }

    private static func rate(_ text: String, for name: String) throws(AnalyzeError) -> Double {
        if text.hasPrefix("-") { throw .usage("option \(name) must not be negative, got '\(text)'") }
        let allowed = text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || ".eE+-".utf8.contains(byte)
        }
        guard allowed, let number = Double(text), number.isFinite else {
            throw .usage("option \(name) needs a number such as 0.05, got '\(text)'")
        }
        return number
    }

    /// The `--help` text: every option with its default.
    public static let helpText = """
        Usage: analyze [options] <path>...

        Summarise Adapty SDK event exports (gzipped or plain NDJSON) into CSV reports:
        installs per day (by device, customer user and profile ID), profile switches,
        quiz answer distributions, a quality report and a list of rejected lines.

        A <path> is a file (gzip is detected by its content), a directory (its *.ndjson,
        *.ndjson.gz, *.jsonl and *.jsonl.gz files, in name order), or - for standard input.

        Options:
          --out DIR            where the CSVs go (default: ./analyze-out; created if missing)
          --timezone TZ        reporting time zone: an IANA name such as Asia/Tokyo, or ±HH:MM
                               (default: UTC)
          --threads N          worker threads (default and most: the cores this process may use)
          --max-reject-rate R  fail with exit 3 when rejected/lines exceeds R (default: 1.0 = never)
          --max-reject-rows N  rows kept in rejects.csv (default: 10000)
          --max-line-bytes N   longer lines are rejected as line_too_long (default: 1048576)
          --quiet              no progress or summary on standard error
          -h, --help           show this help
          --version            show the version and the gzip inflater in use

        Outputs (in --out): installs.csv, profile_switches.csv, quiz_answers.csv,
        quality.csv, rejects.csv. They are replaced together, only when a run succeeds.

        Exit status: 0 success, 1 usage error, 2 input or output error (unreadable file,
        corrupt or truncated gzip), 3 --max-reject-rate exceeded.
        """
}
