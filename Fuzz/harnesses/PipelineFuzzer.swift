// libFuzzer harness for the whole engine on small inputs: the public
// `Analyzer(options:).analyze()` over a real file (plain or gzip), then the five
// CSVs rendered in memory. Lines reach the parser through ChunkReader and
// PartialAggregate (line splitting, CRLF, BOM, blank lines, the line limit, reject
// sampling, de-duplication, the merge, every metric table).
//
// Input layout: byte 0 holds options (gzip or plain, time zone, a small
// --max-line-bytes, --max-reject-rows), the rest is the file's decoded text.
//
// Invariants (SPEC §2 and §7):
//   1. `lines` = `events` + `duplicates` + `rejected`.
//   2. --threads never changes a byte of any CSV (1 vs 3 workers).
//   3. The same file given twice: every line counted twice, the second copy all
//      duplicates (or the same rejects), installs / switches / quiz CSVs unchanged.
//   4. A run over the input never fails: the body is text, so nothing is fatal.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Parsed once: an IANA zone with daylight saving time takes ~15 ms to load.
private let zones: [ReportingTimeZone] = ["UTC", "+05:30", "-10:00", "Asia/Tokyo", "America/New_York"].map {
    ReportingTimeZone(parsing: $0) ?? .utc
}

func fuzzPipeline(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count >= 1 else { return }
    let control = bytes[0]
    let text = Array(bytes[1...])
    // Plain text that happens to start with the gzip magic is gzip (SPEC §1) and
    // most likely damaged: not this harness's concern (fuzz-gzip covers it).
    if control & 1 == 0 && text.count >= 2 && text[0] == 0x1f && text[1] == 0x8b { return }
    let stored = control & 1 == 1 ? gzipMember(text[...], level: 1) : text
    let path = ScratchFile.path("pipeline-a")
    ScratchFile.write(stored, to: path)

    let zone = zones[Int(control >> 1) % zones.count]
    let maxLineBytes = control & 0x10 != 0 ? 40 + Int(control >> 5) * 16 : 1 << 20
    let maxRejectRows = Int(control >> 6)   // 0...3: exercises sample truncation and merging

    func run(_ paths: [String], threads: Int) -> AnalysisResult {
        var options = AnalyzeOptions(paths: paths, threads: threads)
        options.timeZone = zone
        options.maxLineBytes = maxLineBytes
        options.maxRejectRows = maxRejectRows
        do {
            return try Analyzer(options: options).analyze()
        } catch {
            fuzzFailure("analyze failed on a readable \(stored.count)-byte file: \(error.message)")
        }
    }

    let single = run([path], threads: 1)
    let q = single.quality
    guard q.lines == q.events + q.duplicates + q.rejected else {
        fuzzFailure("lines \(q.lines) != events \(q.events) + duplicates \(q.duplicates) + rejected \(q.rejected)")
    }
    let parallel = run([path], threads: 3)
    let a = single.csvFiles(), b = parallel.csvFiles()
    for (x, y) in zip(a, b) where x.contents != y.contents {
        fuzzFailure("--threads 1 and 3 differ in \(x.name)")
    }

    let twice = run([path, path], threads: 2)
    let t = twice.quality
    guard t.lines == 2 * q.lines, t.rejected == 2 * q.rejected, t.events == q.events,
          t.duplicates == 2 * q.duplicates + q.events
    else {
        fuzzFailure("the same file twice: lines \(t.lines) events \(t.events) duplicates \(t.duplicates) "
            + "rejected \(t.rejected), once: \(q.lines) \(q.events) \(q.duplicates) \(q.rejected)")
    }
    let c = twice.csvFiles()
    for index in 0..<3 where a[index].contents != c[index].contents {
        fuzzFailure("the same file twice changed \(a[index].name)")
    }
}
