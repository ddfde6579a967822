/// The decoded NDJSON text of one input, whether stored plain or as gzip.
///
/// An input is gzip exactly when its first two bytes are `1f 8b` (SPEC §1);
/// the file name never decides.
final class DecodedTextSource {
    let reader: RawFileReader
    let isGzip: Bool
    private let inflater: GzipInflater?
    /// Plain inputs: bytes already read while sniffing, not yet handed out.
    private var pending: [UInt8]
    private var pendingStart = 0
    /// Whether the text is gzip's and the caller checks its members' trailers.
    let checksTrailersElsewhere: Bool
    /// A format analyze does not read, recognized from the input's first
    /// bytes once enough of them were read: a plain input's magic number (its
    /// decoded bytes are its stored ones), a tar header in the decoded text.
    /// Looked for in what the reads hand out, so that a pipe that delivers a
    /// byte at a time is never waited for.
    private(set) var foreignFormat: ForeignFormat?
    /// The first decoded bytes, kept until a tar header can be told
    /// (``ForeignFormat/decodedPrefixLength``); released after.
    private var decodedHead: [UInt8]? = []

    /// With `defersTrailerCheck`, gzip members' trailers are left to the
    /// caller (``takeMemberEnds()``).
    init(_ file: InputFile, defersTrailerCheck: Bool = false) throws(AnalyzeError) {
        reader = try RawFileReader(file)
        // Sniff: read until we have two bytes or the input ends.
        let head = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { head.deallocate() }
        var count = 0
        while count < 2 {
            let n = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: head[count...]))
            if n == 0 { break }
            count += n
        }
        let prefix = [UInt8](head[..<count])
        isGzip = count >= 2 && prefix[0] == 0x1f && prefix[1] == 0x8b
        if isGzip {
            inflater = GzipInflater(reader: reader, prefix: prefix, defersTrailerCheck: defersTrailerCheck)
            pending = []
        } else {
            inflater = nil
            pending = prefix
        }
        checksTrailersElsewhere = isGzip && defersTrailerCheck
    }

    /// Members that ended during the last ``read(into:)``, positions counted
    /// from the start of its destination (``GzipInflater/takeMemberEnds()``).
    func takeMemberEnds() -> [MemberEnd] {
        inflater?.takeMemberEnds() ?? []
    }

    /// Bytes of input as stored, read so far (`bytes_read`).
    var bytesRead: Int { reader.bytesRead }
    /// Decoded bytes handed out so far, a BOM included (`bytes_decoded`).
    private(set) var bytesDecoded = 0

    /// Fills part of `destination` with decoded text; 0 means the end.
    func read(into destination: UnsafeMutableRawBufferPointer) throws(AnalyzeError) -> Int {
        let n = try decode(into: destination)
        bytesDecoded += n
        if decodedHead != nil { keepHead(UnsafeRawBufferPointer(rebasing: destination[..<n]), ended: n == 0) }
        return n
    }

    private func keepHead(_ bytes: UnsafeRawBufferPointer, ended: Bool) {
        let before = decodedHead!.count
        let wanted = ForeignFormat.decodedPrefixLength
        decodedHead!.append(contentsOf: bytes.prefix(wanted - before))
        let count = decodedHead!.count
        let magicLength = ForeignFormat.storedPrefixLength
        if !isGzip && before < magicLength && (count >= magicLength || ended) {
            foreignFormat = ForeignFormat.recognize(stored: decodedHead!)
        }
        guard count == wanted || ended else { return }
        decodedHead!.withUnsafeBytes { head in
            if let format = ForeignFormat.recognize(decoded: head) { foreignFormat = format }
        }
        decodedHead = nil
    }

    private func decode(into destination: UnsafeMutableRawBufferPointer) throws(AnalyzeError) -> Int {
        if let inflater {
            return try inflater.read(into: destination)
        }
        if pendingStart < pending.count {
            let n = min(destination.count, pending.count - pendingStart)
            pending.withUnsafeBytes { raw in
                destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[pendingStart..<(pendingStart + n)]))
            }
            pendingStart += n
            return n
        }
        return try reader.read(into: destination)
    }
}
