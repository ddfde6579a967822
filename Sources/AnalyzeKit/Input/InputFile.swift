#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One input to read, after directories were expanded (SPEC §1).
///
/// `displayName` is what reports and messages call it: the path as given, a
/// directory entry as `directory/name`, standard input as `-` (a byte of a
/// path that is not UTF-8 shows as U+FFFD there; the file is opened by its
/// bytes).
public struct InputFile: Sendable, Hashable {
    public enum Location: Sendable, Hashable {
        /// A file by the bytes of its path.
        case file([UInt8])
        case standardInput

        /// A file by its path as text.
        public static func path(_ path: String) -> Location { .file(Array(path.utf8)) }
    }

    public var displayName: String
    public var location: Location

    public init(displayName: String, location: Location) {
        self.displayName = displayName
        self.location = location
    }
}

extension InputFile {
    /// The names a directory contributes: NDJSON exports, plain or gzip.
    static let directorySuffixes = [".ndjson", ".ndjson.gz", ".jsonl", ".jsonl.gz"]
    /// The same as patterns, for messages: "*.ndjson, *.ndjson.gz, …".
    static let directoryPatterns = directorySuffixes.map { "*" + $0 }.joined(separator: ", ")

    /// Up to three names, quoted, then "…" when there are more: for messages.
    static func listed(_ names: [String]) -> String {
        names.prefix(3).map { "'\($0)'" }.joined(separator: ", ") + (names.count > 3 ? ", …" : "")
    }

    /// Expands command-line paths into the files to read, in input order.
    ///
    /// Directories contribute the regular files directly inside them whose
    /// names end in one of `directorySuffixes`, sorted byte-wise on the UTF-8
    /// name; dot-files, subdirectories and special files are skipped, while an
    /// entry that cannot be examined (a dangling link) is an input error, and
    /// so is a directory that contributes no file at all. A path that does not
    /// exist is reported here, before any work, as an input error.
    ///
    /// `lookalikes` gets, per directory, the names it skipped that look like
    /// exports in another form (``isLookalike(_:)``), for a warning: once per
    /// directory, however it is spelled (`d`, `d/`, a link to it), though a
    /// directory named twice is read twice.
    static func expand(
        _ arguments: [[UInt8]], lookalikes: inout [(directory: String, names: [String])]
    ) throws(AnalyzeError) -> [InputFile] {
        var files: [InputFile] = []
        var streams = StreamsSeen()
        var directoriesWarnedAbout = Set<FileIdentity>()
        for argument in arguments {
            let shown = String(decoding: argument, as: UTF8.self)
            var info = stat()
            if argument == [UInt8(ascii: "-")] {
                // Checked now, before any worker thread starts: once Dispatch
                // opens descriptors of its own, a closed standard input's
                // number may be taken by one of them.
                guard fcntl(STDIN_FILENO, F_GETFD) >= 0 else {
                    throw .input("cannot read '-': \(String(cString: strerror(errno)))")
                }
                if fstat(STDIN_FILENO, &info) == 0 { try streams.add(info, shown: "-") }
                files.append(InputFile(displayName: "-", location: .standardInput))
                continue
            }
            guard withCPath(argument, { stat($0, &info) }) == 0 else {
                throw .input("cannot open '\(shown)': \(String(cString: strerror(errno)))")
            }
            try streams.add(info, shown: shown)
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                files.append(InputFile(displayName: shown, location: .file(argument)))
                continue
            }
            let prefix = argument.last == UInt8(ascii: "/") ? argument : argument + [UInt8(ascii: "/")]
            let before = files.count
            let (names, skipped) = try directoryEntries(argument, shown: shown)
            if !skipped.isEmpty && directoriesWarnedAbout.insert(FileIdentity(info)).inserted {
                lookalikes.append((shown, skipped.map { String(decoding: $0, as: UTF8.self) }))
            }
            for name in names {
                let path = prefix + name
                // Subdirectories, FIFOs and devices are skipped (a FIFO would
                // block forever); an entry that cannot even be examined (a
                // dangling link) is kept, so reading it fails loudly.
                var entry = stat()
                if withCPath(path, { stat($0, &entry) }) == 0 && (entry.st_mode & S_IFMT) != S_IFREG { continue }
                files.append(InputFile(displayName: String(decoding: path, as: UTF8.self), location: .file(path)))
            }
            // A directory with no export in it is most likely an export that
            // did not arrive: an input error, not an empty report that would
            // replace the last good one (docs/data-model.md).
            guard files.count > before else {
                let named = listed(skipped.map { String(decoding: $0, as: UTF8.self) })
                throw .input("no export files (\(directoryPatterns)) in directory '\(shown)'" + skippedEntries(in: argument)
                    + (skipped.isEmpty ? "" : "; \(named) \(skipped.count == 1 ? "looks like an export" : "look like exports") in another form"))
            }
        }
        return files
    }

    /// As ``expand(_:lookalikes:)``, with the lookalikes left out.
    static func expand(_ arguments: [[UInt8]]) throws(AnalyzeError) -> [InputFile] {
        var lookalikes: [(directory: String, names: [String])] = []
        return try expand(arguments, lookalikes: &lookalikes)
    }

    /// As ``expand(_:)-([[UInt8]])``, from paths as text.
    static func expand(_ arguments: [String]) throws(AnalyzeError) -> [InputFile] {
        try expand(arguments.map { Array($0.utf8) })
    }

    /// Whether `path` is a regular file, or a link to one.
    private static func isRegularFile(_ path: [UInt8]) -> Bool {
        var info = stat()
        return withCPath(path, { stat($0, &info) }) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether a name a directory does not contribute looks like an export in
    /// another form: `.ndjson` or `.jsonl`, in any case, followed by nothing
    /// or by extensions of compression, archives and downloads only
    /// (`events.ndjson.zst`, `EVENTS.NDJSON.GZ`, `day.ndjson.gz.part` still
    /// being written). A file beside an export (`day.ndjson.gz.sha256`,
    /// `events.ndjson.schema.json`) is not one. Regression: any name holding
    /// `.ndjson` was, and such files were warned about on every run.
    static func isLookalike(_ name: [UInt8]) -> Bool {
        let lower = name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        return [".ndjson", ".jsonl"].contains { stem in
            guard let found = lower.ranges(of: Array(stem.utf8)).last else { return false }
            let tail = lower[found.upperBound...]
            return tail.isEmpty || (tail.first == UInt8(ascii: ".")
                && tail.dropFirst().split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
                    .allSatisfy { lookalikeExtensions.contains(Array($0)) })
        }
    }

    /// The extensions that may follow `.ndjson` or `.jsonl` in a lookalike.
    private static let lookalikeExtensions: Set<[UInt8]> = Set([
        "gz", "gzip", "z", "xz", "lzma", "lz", "zst", "zstd", "bz2", "lz4", "br", "sz", "zip", "7z", "tar", "tgz",
        "part", "partial", "tmp", "crdownload", "download",
    ].map { Array($0.utf8) })

    /// Calls `body` with `path` as a C string (argv bytes hold no NUL).
    static func withCPath<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        (path + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }

    /// Calls `body` with the name of each entry of `directory` but the
    /// dot-files (`.`, `..` and hidden names); false when it cannot be opened.
    private static func forEachVisibleEntry(of directory: [UInt8], _ body: ([UInt8]) -> Void) -> Bool {
        guard let handle = withCPath(directory, { opendir($0) }) else { return false }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            if name.first != UInt8(ascii: ".") { body(name) }
        }
        return true
    }

    /// For the message about a directory with no export in it: what it
    /// holds instead, as ", which holds 2 subdirectories (not searched) and
    /// 1 other file"; empty when it holds nothing but dot-files. (Read again
    /// only on this failure, so a run never stats the names it skips.)
    private static func skippedEntries(in directory: [UInt8]) -> String {
        var (directories, others) = (0, 0)
        _ = forEachVisibleEntry(of: directory) { name in
            var info = stat()
            if withCPath(directory + [UInt8(ascii: "/")] + name, { stat($0, &info) }) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                directories += 1
            } else {
                others += 1
            }
        }
        let parts = [
            directories == 0 ? nil : "\(directories) \(directories == 1 ? "subdirectory" : "subdirectories") (not searched)",
            others == 0 ? nil : "\(others) other \(others == 1 ? "file" : "files")",
        ].compactMap { $0 }
        return parts.isEmpty ? "" : ", which holds " + parts.joined(separator: " and ")
    }

    /// The names of `directory` that it contributes, sorted byte-wise, and
    /// the lookalikes it skips (``isLookalike(_:)``, regular files only),
    /// sorted too.
    private static func directoryEntries(_ directory: [UInt8], shown: String) throws(AnalyzeError)
        -> (names: [[UInt8]], lookalikes: [[UInt8]])
    {
        var names: [[UInt8]] = []
        var lookalikes: [[UInt8]] = []
        let opened = forEachVisibleEntry(of: directory) { name in
            if directorySuffixes.contains(where: { name.ends(with: Array($0.utf8)) }) {
                names.append(name)
            } else if isLookalike(name), isRegularFile(directory + [UInt8(ascii: "/")] + name) {
                lookalikes.append(name)
            }
        }
        guard opened else {
            throw .input("cannot read directory '\(shown)': \(String(cString: strerror(errno)))")
        }
        names.sort { $0.lexicographicallyPrecedes($1) }
        lookalikes.sort { $0.lexicographicallyPrecedes($1) }
        return (names, lookalikes)
    }
}

/// The pipes, FIFOs and sockets among the inputs. Each can be read only
/// once: named twice (`-` and `/dev/stdin`, a FIFO given twice), its two
/// readers would each take part of its bytes, and the counts come out wrong
/// with exit 0 (found by a review). A regular file named twice is read twice
/// (SPEC §1); so is a device.
private struct StreamsSeen {
    /// Each stream's first name.
    private var seen: [FileIdentity: String] = [:]

    mutating func add(_ info: stat, shown: String) throws(AnalyzeError) {
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFIFO || kind == S_IFSOCK else { return }
        if let first = seen[FileIdentity(info)] {
            throw .usage(shown == first
                ? "'\(shown)' is given twice; a pipe can be read only once"
                : "'\(shown)' and '\(first)' are the same pipe; a pipe can be read only once")
        }
        seen[FileIdentity(info)] = shown
    }
}

/// What a file is, whatever the path that names it: its device and inode.
private struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        (device, inode) = (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
