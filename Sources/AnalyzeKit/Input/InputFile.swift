#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One input to read, after directories were expanded (SPEC §1).
///
/// `displayName` is what reports and messages call it: the path as given, a
/// directory entry as `directory/name`, standard input as `-`.
public struct InputFile: Sendable, Hashable {
    public enum Location: Sendable, Hashable {
        case path(String)
        case standardInput
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

    /// Expands command-line paths into the files to read, in input order.
    ///
    /// Directories contribute the regular files directly inside them whose
    /// names end in one of `directorySuffixes`, sorted byte-wise on the UTF-8
    /// name; dot-files, subdirectories and special files are skipped, while an
    /// entry that cannot be examined (a dangling link) is an input error. A path that does not exist is
    /// reported here, before any work, as an input error.
    static func expand(_ arguments: [String]) throws(AnalyzeError) -> [InputFile] {
        var files: [InputFile] = []
        for argument in arguments {
            if argument == "-" {
                // Checked now, before any worker thread starts: once Dispatch
                // opens descriptors of its own, a closed standard input's
                // number may be taken by one of them.
                guard fcntl(STDIN_FILENO, F_GETFD) >= 0 else {
                    throw .input("cannot read '-': \(String(cString: strerror(errno)))")
                }
                files.append(InputFile(displayName: "-", location: .standardInput))
                continue
            }
            var info = stat()
            guard stat(argument, &info) == 0 else {
                throw .input("cannot open '\(argument)': \(String(cString: strerror(errno)))")
            }
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                files.append(InputFile(displayName: argument, location: .path(argument)))
                continue
            }
            let prefix = argument.hasSuffix("/") ? argument : argument + "/"
            for name in try directoryEntries(argument) {
                let path = prefix + name
                // Subdirectories, FIFOs and devices are skipped (a FIFO would
                // block forever); an entry that cannot even be examined (a
                // dangling link) is kept, so reading it fails loudly.
                var entry = stat()
                if stat(path, &entry) == 0 && (entry.st_mode & S_IFMT) != S_IFREG { continue }
                files.append(InputFile(displayName: path, location: .path(path)))
            }
        }
        return files
    }

    /// Names in `directory` that look like exports, byte-wise sorted.
    private static func directoryEntries(_ directory: String) throws(AnalyzeError) -> [String] {
        guard let handle = opendir(directory) else {
            throw .input("cannot read directory '\(directory)': \(String(cString: strerror(errno)))")
        }
        defer { closedir(handle) }
        var names: [[UInt8]] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix(while: { $0 != 0 }))
            }
            guard name.first != UInt8(ascii: "."),
                  directorySuffixes.contains(where: { name.ends(with: Array($0.utf8)) })
            else { continue }
            names.append(name)
        }
        names.sort { $0.lexicographicallyPrecedes($1) }
        return names.map { String(decoding: $0, as: UTF8.self) }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
