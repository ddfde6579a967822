#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads one input's stored bytes with `read(2)`, counting them.
///
/// Owns the descriptor unless it is standard input.
final class RawFileReader {
    let name: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// Bytes of input as stored, read so far (`bytes_read` in the quality report).
    private(set) var bytesRead = 0

    init(_ file: InputFile) throws(AnalyzeError) {
        name = file.displayName
        switch file.location {
        case .standardInput:
            descriptor = STDIN_FILENO
            ownsDescriptor = false
        case .file(let path):
            let fd = InputFile.withCPath(path) { open($0, O_RDONLY | O_CLOEXEC) }
            guard fd >= 0 else {
                throw .input("cannot open '\(file.displayName)': \(String(cString: strerror(errno)))")
            }
            var info = stat()
            if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                throw .input("cannot read '\(file.displayName)': is a directory")
            }
            descriptor = fd
            ownsDescriptor = true
        }
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Reads up to `buffer.count` bytes; 0 means end of input.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(AnalyzeError) -> Int {
        guard buffer.count > 0 else { return 0 }
        while true {
            let n = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if n >= 0 {
                bytesRead += n
                return n
            }
            if errno == EINTR { continue }
            throw .input("I/O error reading '\(name)' at byte offset \(bytesRead): \(String(cString: strerror(errno)))")
        }
    }
}
