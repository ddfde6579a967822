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
    static let valueOptions = [
        "--out", "--timezone", "--threads", "--max-reject-rate", "--max-reject-rows", "--max-line-bytes",
    ]

    public static func parse(_ arguments: [String]) throws(AnalyzeError) -> CommandLineRequest {
        try parse(rawArguments: arguments.map { Array($0.utf8) })
    }

    /// As ``parse(_:)``, from the bytes of each argument (`argv` on Linux,
    /// which need not be UTF-8): input paths keep their bytes, everything
    /// else is read as text.
    public static func parse(rawArguments: [[UInt8]]) throws(AnalyzeError) -> CommandLineRequest {
        // Two stages: the arguments are read into raw options (names, values
        // and paths, nothing checked but their shape), then validated.
        switch try read(rawArguments) {
        case .help: return .help
        case .version: return .version
        case .options(let raw): return .run(try validate(raw))
        }
    }

    /// The command line as read, before any value is checked.
    private struct RawOptions {
        /// The last value of each value option given.
        var values: [String: String] = [:]
        /// Value options whose value was not UTF-8 (read with U+FFFD in its place).
        var notUTF8: Set<String> = []
        var quiet = false
        /// Input paths, as their bytes.
        var paths: [[UInt8]] = []
    }

    /// What reading the arguments found: `--help` or `--version`, else the options.
    private enum ReadArguments {
        case help, version
        case options(RawOptions)
    }

    /// Reads options, values and paths. Throws the first problem in the
    /// arguments themselves (an unknown option, a value missing or given to
    /// a flag), once no `--help` or `--version` has turned up further on.
    private static func read(_ rawArguments: [[UInt8]]) throws(AnalyzeError) -> ReadArguments {
        let arguments = rawArguments.map { String(decoding: $0, as: UTF8.self) }
        var raw = RawOptions()
        var index = 0
        var optionsEnded = false
        var firstProblem: AnalyzeError?

        while index < arguments.count {
            let argument = arguments[index]
            defer { index += 1 }
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                raw.paths.append(rawArguments[index])
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
                    raw.quiet = true
                } else {
                    return name == "--version" ? .version : .help
                }
            case _ where valueOptions.contains(name):
                if let inline {
                    raw.values[name] = inline
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
                    raw.values[name] = arguments[index]
                }
                if String(validating: rawArguments[index], as: UTF8.self) == nil {
                    raw.notUTF8.insert(name)
                } else {
                    raw.notUTF8.remove(name)
                }
            default:
                // `--=x` has no name before its `=`: the whole argument is
                // named (not `--`, the end of options, which it is not).
                let shown = name == "--" ? argument : name
                firstProblem = firstProblem ?? .usage("unknown option '\(shown)'" + hint(forUnknown: shown))
            }
        }
        if let firstProblem { throw firstProblem }
        return .options(raw)
    }

    /// Checks every value read and the paths: the first problem is the usage error.
    private static func validate(_ raw: RawOptions) throws(AnalyzeError) -> AnalyzeOptions {
        var options = AnalyzeOptions(paths: [])
        options.quiet = raw.quiet
        if let text = raw.values["--out"] {
            guard !text.isEmpty else { throw .usage("option --out needs a directory") }
            // Read as text, such a path would name another directory (U+FFFD
            // in place of each stray byte), and the outputs would go there.
            guard !raw.notUTF8.contains("--out") else {
                throw .usage("the --out directory '\(text)' is not valid UTF-8; give a directory whose name is valid UTF-8")
            }
            options.outputDirectory = text
        }
        if let text = raw.values["--timezone"] {
            guard let zone = ReportingTimeZone(parsing: text) else {
                throw .usage("unknown time zone '\(text)' for --timezone (an IANA name such as Asia/Tokyo, or +HH:MM / -HH:MM)")
            }
            options.timeZone = zone
        }
        if let text = raw.values["--threads"] { options.threads = try positiveInteger(text, for: "--threads") }
        if let text = raw.values["--max-reject-rate"] { options.maxRejectRate = try rate(text, for: "--max-reject-rate") }
        if let text = raw.values["--max-reject-rows"] { options.maxRejectRows = try integer(text, for: "--max-reject-rows") }
        if let text = raw.values["--max-line-bytes"] { options.maxLineBytes = try positiveInteger(text, for: "--max-line-bytes") }
        guard !raw.paths.isEmpty else { throw .usage("no input path given") }
        guard raw.paths.filter({ $0 == [UInt8(ascii: "-")] }).count <= 1 else {
            throw .usage("standard input '-' given more than once")
        }
        options.pathBytes = raw.paths
        return options
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
}
