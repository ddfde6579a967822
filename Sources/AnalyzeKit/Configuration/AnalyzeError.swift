/// Why a run stopped, and the exit status that says so (SPEC §6).
///
/// Messages never quote input content: exports carry personal data.
public enum AnalyzeError: Error, Sendable, Equatable {
    /// Exit 1: the command line was wrong. Nothing was read or written.
    case usage(String)
    /// Exit 2: an input could not be read or was damaged, the inputs hold
    /// more than one run can (``RunCapacity``), or an output could not be written.
    case input(String)
    /// Exit 3: more lines were rejected than `--max-reject-rate` allows.
    case rejectRateExceeded(String)

    public var exitCode: Int32 {
        switch self {
        case .usage: 1
        case .input: 2
        case .rejectRateExceeded: 3
        }
    }

    /// The message, on one line: control characters from the paths and
    /// values it quotes are escaped (``PrintableText``).
    public var message: String {
        switch self {
        case .usage(let text), .input(let text), .rejectRateExceeded(let text): PrintableText.escaped(text)
        }
    }
}
