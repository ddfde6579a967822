extension CommandLineParser {
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
}
