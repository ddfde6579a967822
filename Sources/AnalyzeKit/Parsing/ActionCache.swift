import CSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What reading `action` objects gave, remembered by their exact bytes, so an
/// action seen before (the same screen, question and option, spelled the same
/// way) is neither validated nor read again.
///
/// **Exact by construction.** An entry holds the complete bytes of an object
/// that was validated and read. When a line holds those same bytes where its
/// `action` value starts, the value *is* that object: a JSON value ends where
/// its own bytes say, whatever follows them. So it is valid, has no repeated
/// key, and has the same fields at the same offsets from its first byte. What
/// the cache holds changes only the speed, never a result; the parser tests
/// and the parser fuzzer check a cached reading against a fresh one.
///
/// What is remembered: objects of 8 to ``maxBytes`` bytes with at most
/// ``maxOptions`` options, read for an accepted onboarding event. A field
/// spelled without escapes is remembered as its place in the object; one
/// with escapes (`json.dumps` writes every non-ASCII letter as `\uXXXX`)
/// as its decoded bytes, kept with the way (at most ``maxDecodedBytes``),
/// which a hit copies into the parser's arena. A
/// reading is per event type (the two onboarding types read different keys);
/// a hit for the other type reads the object once more and adds its reading.
///
/// Performance: a set-associative table (``setCount`` sets of ``ways`` ways)
/// indexed by a hash of the object's first ``prefixLength`` bytes, so a lookup
/// needs no search for the object's end: hash 96 bytes, compare 8 stored
/// hashes, then the bytes of the (usually one) way whose hash matches. An
/// object not found is remembered at its second reading (an object met once,
/// such as a typed answer, is never copied in and evicts nothing), in place
/// of the least-hit way of its set; the set's counts halve every 64
/// replacements, so old favourites age out. On the benchmark
/// exports 83 % of actions are found (1 M and 5 M events), and a found one
/// costs about 600 instructions (lookup and copying the reading) against
/// about 4 000 to validate and read it. Where almost nothing is found (fewer
/// than 1 in 32 of a sample of lookups), lookups pause and the cache is only
/// sampled (``sample(found:)``). About 2.1 MiB per parser, reserved (zeroed
/// by `calloc`) at the first lookup and touched only as it fills.
///
/// Not thread-safe: one parser (one worker) owns it.
struct ActionCache {
    static let prefixLength = 96
    static let setCount = 256
    static let ways = 8
    /// Ways in all (a way's index is below this).
    static let wayCount = setCount * ways
    static let maxBytes = 512
    /// Decoded bytes of fields with escapes, per way (both readings).
    static let maxDecodedBytes = 256
    static let maxOptions = 8
    private static let agingPeriod: UInt16 = 64
    /// Slots remembering objects read once (``admits(_:in:)``): 32 KiB.
    private static let seenOnceSlots = 4096
    /// Lookups per verdict on whether looking up pays (``sample(found:)``).
    static let sampleSize = 1024
    /// Hits a sample needs for lookups to go on (1 in 32).
    static let minimumHitsPerSample = 32
    /// Actions read without a lookup after a poor sample (15 samples' worth).
    static let lookupsSkippedAfterAPoorSample = 15 * 1024

    /// A string field as an offset from the object's first byte (`start` -1:
    /// absent), or, decoded from escapes, as an offset into the way's
    /// decoded bytes (`start` -2 - offset).
    struct Span: Equatable {
        var start: Int32
        var count: Int32

        static let absent = Span(start: -1, count: 0)

        static func decoded(at offset: Int, count: Int) -> Span { Span(start: Int32(-2 - offset), count: Int32(count)) }
    }

    /// The reading of an action for one onboarding type, offsets relative to the object.
    struct Reading {
        var elementID = Span.absent
        var onboardingID = Span.absent
        var name = Span.absent
        var paramsType = Span.absent
        var fingerprint: UInt64 = 0
        var optionCount: UInt8 = 0
        var answerKind = AnswerKind.none
        var isWellFormed = false
    }

    /// Where a lookup left off: the way found, or the hash to insert under.
    enum Probe {
        /// The object is the `length` bytes remembered in `way`.
        case hit(way: Int, length: Int)
        case miss(hash: UInt64)
    }

    /// A way's readings and hit count; its prefix hash and length are kept
    /// apart (``Tables/prefixHashes``, ``Tables/lengths``), so a lookup
    /// reads two small arrays instead of whole ways.
    private struct Way {
        var hasStateUpdated = false
        var hasAnalytics = false
        var stateUpdated = Reading()
        var analytics = Reading()
    }

    private struct OptionSpans {
        var id: Span
        var value: Span
        var label: Span
    }

    /// The cache's memory, as pointers: a trivial value, so reading it
    /// costs no reference counting (binding a class reference per lookup or
    /// remember cost a retain and a release). ``Owner`` frees it.
    private struct Tables {
        let prefixHashes: UnsafeMutablePointer<UInt64>
        /// Bytes of each way's object; 0 for an empty way.
        let lengths: UnsafeMutablePointer<Int32>
        let ways: UnsafeMutablePointer<Way>
        let bytes: UnsafeMutablePointer<UInt8>
        /// Each way's decoded fields (``maxDecodedBytes``), and how many it holds.
        let decoded: UnsafeMutablePointer<UInt8>
        let decodedCounts: UnsafeMutablePointer<UInt16>
        let options: UnsafeMutablePointer<OptionSpans>
        let replacements: UnsafeMutablePointer<UInt16>
        /// Each way's hits since it was filled (halved as the set ages).
        let hitCounts: UnsafeMutablePointer<UInt16>
        /// Each way's fill number (``fill(of:)``); 0 for a way never filled.
        let fills: UnsafeMutablePointer<UInt64>
        /// Hashes of whole objects read once and not remembered
        /// (``admits(_:in:)``), by their low bits.
        let seenOnce: UnsafeMutablePointer<UInt64>

        /// Zeroed memory from `calloc`, untouched until used: all zero bits is an
        /// empty way (length 0, no hits, no reading), so nothing is written up
        /// front — a parser that meets few actions touches few pages.
        init() {
            let wayCount = ActionCache.wayCount
            func zeroed<T>(_ count: Int, _: T.Type) -> UnsafeMutablePointer<T> {
                // Failing like a Swift allocation, with a message (a bare
                // `!` trapped with none: found by a review, under `ulimit -v`).
                guard let memory = calloc(count, MemoryLayout<T>.stride) else {
                    fatalError("failed to allocate \(count * MemoryLayout<T>.stride) bytes of memory for the action cache")
                }
                return memory.bindMemory(to: T.self, capacity: count)
            }
            prefixHashes = zeroed(wayCount, UInt64.self)
            lengths = zeroed(wayCount, Int32.self)
            ways = zeroed(wayCount, Way.self)
            bytes = zeroed(wayCount * ActionCache.maxBytes, UInt8.self)
            decoded = zeroed(wayCount * ActionCache.maxDecodedBytes, UInt8.self)
            decodedCounts = zeroed(wayCount, UInt16.self)
            options = zeroed(wayCount * ActionCache.maxOptions, OptionSpans.self)
            replacements = zeroed(ActionCache.setCount, UInt16.self)
            hitCounts = zeroed(wayCount, UInt16.self)
            fills = zeroed(wayCount, UInt64.self)
            seenOnce = zeroed(ActionCache.seenOnceSlots, UInt64.self)
        }
    }

    /// Frees the ``Tables`` when the last copy of the cache is gone.
    private final class Owner {
        let tables = Tables()

        deinit {  // every element type is trivial: nothing to deinitialize
            free(tables.prefixHashes)
            free(tables.lengths)
            free(tables.ways)
            free(tables.bytes)
            free(tables.decoded)
            free(tables.decodedCounts)
            free(tables.options)
            free(tables.replacements)
            free(tables.hitCounts)
            free(tables.fills)
            free(tables.seenOnce)
        }
    }

    private var owner: Owner?
    /// `owner`'s tables, once reserved.
    private var tables: Tables?
    /// Lookups that found their object (for tests and measurements).
    private(set) var hits = 0
    /// The number the next way filled gets (``fill(of:)``).
    private var nextFill: UInt64 = 1
    /// Lookups and hits since the last verdict (``sample(found:)``).
    private var sampledLookups = 0
    private var sampledHits = 0
    /// Actions still to read without a lookup, after a poor sample.
    private(set) var lookupsToSkip = 0

    init() {}

    /// Looks for the object starting at `start` in `scanner`'s line; nil when
    /// not looked for: fewer than ``prefixLength`` bytes are left in the
    /// line, or lookups are paused (``sample(found:)``). Nothing is
    /// remembered then.
    mutating func lookup(in scanner: JSONScanner, at start: Int) -> Probe? {
        if lookupsToSkip > 0 {
            lookupsToSkip &-= 1
            return nil
        }
        let available = scanner.end - start
        guard available >= Self.prefixLength else { return nil }
        let object = UnsafeRawPointer(scanner.base + start)
        // Nor when the line ends sooner: a scanner that reads a line at the
        // start of a chunk (``EventParser/parseLine(atStartOf:)``) ends at
        // the chunk's end, and the next line is not part of the prefix.
        guard analyze_has_line_feed96(object) == 0 else { return nil }  // 96: prefixLength
        let hash = Self.prefixHash(object)
        if tables == nil {
            owner = Owner()
            tables = owner!.tables
        }
        let tables = self.tables!
        let first = Self.set(of: hash) * Self.ways
        for w in first..<(first + Self.ways) where tables.prefixHashes[w] == hash {
            let length = Int(tables.lengths[w])
            guard length != 0 && length <= available else { continue }
            // Objects that share the first 96 bytes (the options of one
            // question) mostly differ near their end: compare the last word
            // before all the bytes.
            let stored = UnsafeRawPointer(tables.bytes + w * Self.maxBytes)
            if object.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
                == stored.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
                && memcmp(stored, object, length) == 0 {
                if tables.hitCounts[w] < UInt16.max { tables.hitCounts[w] += 1 }
                hits += 1
                sample(found: true)
                return .hit(way: w, length: length)
            }
        }
        sample(found: false)
        return .miss(hash: hash)
    }

    /// Counts a lookup; after every ``sampleSize`` lookups that found fewer
    /// than ``minimumHitsPerSample`` objects, pauses lookups for the next
    /// ``lookupsSkippedAfterAPoorSample`` actions.
    ///
    /// Performance: a lookup that finds nothing costs about 80 ns (hashing
    /// the prefix, remembering the object's hash for admission, and at the
    /// second reading copying it in) and saves nothing; a hit saves a few
    /// hundred. On an export whose actions are all unique (a session id in
    /// each, `bench/unique_actions.py`) about 1 % are found, and the lookups
    /// were about 4.6 % of the CPU samples. Paused, the cache is sampled one
    /// action in 16, so an export whose actions start to recur is found
    /// again within a sample. The generator's 1 M export finds at least 54 %
    /// of each sample, the independent exporter's at least 8 % (its first):
    /// neither pauses.
    @inline(__always)
    private mutating func sample(found: Bool) {
        sampledLookups &+= 1
        if found { sampledHits &+= 1 }
        guard sampledLookups == Self.sampleSize else { return }
        if sampledHits < Self.minimumHitsPerSample { lookupsToSkip = Self.lookupsSkippedAfterAPoorSample }
        sampledLookups = 0
        sampledHits = 0
    }

    /// The reading of the object in `way` for `type` (an onboarding type), if
    /// it was read for that type; appends its options, made absolute from
    /// `objectStart`, to `options`.
    ///
    /// `mutating` though it changes nothing: called on the parser's cache
    /// while the parser's `options` are passed `inout`, a non-mutating method
    /// is handed a copy of the cache, which retains and releases its owner
    /// once per hit.
    mutating func reading(
        _ way: Int, for type: EventType, objectStart: Int, into fields: inout ActionFields, options: inout [OptionRefs],
        arena: inout [UInt8]
    ) -> UInt64? {
        guard let tables else { return nil }
        let ways = tables.ways, allOptions = tables.options
        let isStateUpdate = type == .onboardingStateUpdated
        guard isStateUpdate ? ways[way].hasStateUpdated : ways[way].hasAnalytics else { return nil }
        let reading = isStateUpdate ? ways[way].stateUpdated : ways[way].analytics
        let decoded = tables.decoded + way * Self.maxDecodedBytes
        func ref(_ span: Span) -> StringRef? {
            if span.start >= 0 {
                return StringRef(start: objectStart + Int(span.start), count: Int(span.count), isDecoded: false)
            }
            guard span.start <= -2 else { return nil }
            // Decoded bytes: copied to the arena, where decoding would have put them.
            let start = arena.count
            arena.append(contentsOf: UnsafeBufferPointer(start: decoded + Int(-2 - span.start), count: Int(span.count)))
            return StringRef(start: start, count: Int(span.count), isDecoded: true)
        }
        fields.isWellFormed = reading.isWellFormed
        fields.elementID = ref(reading.elementID)
        fields.onboardingID = ref(reading.onboardingID)
        fields.name = ref(reading.name)
        fields.paramsType = ref(reading.paramsType)
        fields.answerKind = reading.answerKind
        let stored = allOptions + way * Self.maxOptions
        for k in 0..<Int(reading.optionCount) {
            let option = stored[k]
            options.append(OptionRefs(id: ref(option.id) ?? .empty, value: ref(option.value) ?? .empty,
                                      label: ref(option.label) ?? .empty))
        }
        return reading.fingerprint
    }

    /// Which filling of `way` holds its object now: a number no other object
    /// in any way of this cache ever had. So a fact derived from an object
    /// found in `way` (``EventParser/cachedAction``) holds for every later
    /// object found there while the number is the same.
    func fill(of way: Int) -> UInt64 { tables?.fills[way] ?? 0 }

    /// Remembers what reading the object `object` (a span of `line`) for
    /// `type` gave, when it can be remembered: in the way `probe` found, or,
    /// for an object not found that ``admits(_:in:)`` lets in, in place of
    /// its set's least-hit way. Returns the way that holds it, or nil.
    mutating func remember(
        _ probe: Probe, object: JSONValue, line: UnsafeRawBufferPointer, arena: UnsafeRawBufferPointer, type: EventType,
        fields: ActionFields, options: [OptionRefs], fingerprint: UInt64
    ) -> Int? {
        // (At least a word long: a lookup compares the last word first.)
        let length = object.end - object.start
        guard let tables, length >= 8, length <= Self.maxBytes, options.count <= Self.maxOptions else { return nil }
        // Decoded fields need room among the way's decoded bytes (after the
        // other type's, when the way holds its reading).
        var decodedNeeded = 0
        func countDecoded(_ ref: StringRef?) { if let ref, ref.isDecoded { decodedNeeded += ref.count } }
        countDecoded(fields.elementID); countDecoded(fields.onboardingID)
        countDecoded(fields.name); countDecoded(fields.paramsType)
        for option in options { countDecoded(option.id); countDecoded(option.value); countDecoded(option.label) }
        var decodedStart = 0
        if case .hit(let found, _) = probe { decodedStart = Int(tables.decodedCounts[found]) }
        guard decodedStart + decodedNeeded <= Self.maxDecodedBytes else { return nil }

        let way: Int
        switch probe {
        case .hit(let found, _):
            way = found
        case .miss(let hash):
            let bytes = UnsafeRawBufferPointer(rebasing: line[object.start..<object.end])
            guard Self.admits(Self.admissionHash(bytes, prefixHash: hash), in: tables) else { return nil }
            way = Self.replace(in: tables, set: Self.set(of: hash))
            tables.fills[way] = nextFill
            nextFill += 1
            tables.prefixHashes[way] = hash
            tables.lengths[way] = Int32(length)
            tables.ways[way] = Way()
            tables.hitCounts[way] = 0
            tables.decodedCounts[way] = 0
            (tables.bytes + way * Self.maxBytes).update(
                from: line.baseAddress!.assumingMemoryBound(to: UInt8.self) + object.start, count: length)
        }
        let decoded = tables.decoded + way * Self.maxDecodedBytes
        var decodedCount = decodedStart
        func span(_ ref: StringRef?) -> Span {
            guard let ref else { return .absent }
            if ref.count == 0 { return Span(start: 0, count: 0) }
            guard ref.isDecoded else { return Span(start: Int32(ref.start - object.start), count: Int32(ref.count)) }
            // Decoded into the parser's arena: its bytes are kept with the way.
            (decoded + decodedCount).update(
                from: arena.baseAddress!.assumingMemoryBound(to: UInt8.self) + ref.start, count: ref.count)
            defer { decodedCount += ref.count }
            return .decoded(at: decodedCount, count: ref.count)
        }
        let reading = Reading(
            elementID: span(fields.elementID), onboardingID: span(fields.onboardingID), name: span(fields.name),
            paramsType: span(fields.paramsType), fingerprint: fingerprint, optionCount: UInt8(options.count),
            answerKind: fields.answerKind, isWellFormed: fields.isWellFormed)
        // The options' spans, gathered on the stack (``maxOptions`` at most).
        return withUnsafeTemporaryAllocation(of: OptionSpans.self, capacity: Self.maxOptions) { optionSpans -> Int? in
            for (k, option) in options.enumerated() {
                optionSpans.initializeElement(
                    at: k, to: OptionSpans(id: span(option.id), value: span(option.value), label: span(option.label)))
            }
            tables.decodedCounts[way] = UInt16(decodedCount)
            if type == .onboardingStateUpdated {
                tables.ways[way].stateUpdated = reading
                tables.ways[way].hasStateUpdated = true
                // Only state updates carry options.
                (tables.options + way * Self.maxOptions).update(from: optionSpans.baseAddress!, count: options.count)
            } else {
                tables.ways[way].analytics = reading
                tables.ways[way].hasAnalytics = true
            }
            return way
        }
    }

    /// Whether an object not found is worth remembering: only on its second
    /// reading. Objects met once (an answer typed by one respondent, an id
    /// unique to an event) are then neither copied in nor allowed to evict
    /// one that recurs; each recurring object costs one more full reading.
    /// The first reading leaves the object's hash in ``seenOnceSlots``
    /// direct-mapped slots (a later object may overwrite it: the object is
    /// then read in full once more).
    private static func admits(_ hash: UInt64, in tables: Tables) -> Bool {
        let slot = Int(truncatingIfNeeded: hash) & (seenOnceSlots - 1)
        if tables.seenOnce[slot] == hash { return true }
        tables.seenOnce[slot] = hash
        return false
    }

    /// A hash of the ``prefixLength`` bytes at `bytes`: ``HashLanes`` over its
    /// twelve words, a word of every 32 bytes to each lane. It only picks the
    /// set and spares byte compares (every hit is confirmed byte for byte), so
    /// it needs to spread well, not to resist collisions.
    ///
    /// Performance: about a third of ``ByteHash``'s instructions, and four
    /// independent chains of three steps instead of one of twelve: the walk
    /// waits on this hash (the object's length comes from the way it picks),
    /// so its latency counts, about 25 cycles instead of about 70.
    /// (Internal for the tests.)
    @inline(__always)
    static func prefixHash(_ bytes: UnsafeRawPointer) -> UInt64 {
        var lanes = HashLanes(first: 0x9e37_79b9_7f4a_7c15)
        for k in 0..<(prefixLength / 32) { lanes.addBlock(at: bytes + k &* 32) }
        return lanes.folded()
    }

    /// A hash of a whole object not found, for ``admits(_:in:)``: the
    /// lookup's `prefixHash` (which covers an object of at most
    /// ``prefixLength`` bytes, and what follows it, as lookups do) and, for a
    /// longer object, the rest of its bytes in ``HashLanes``, and its length.
    /// A collision only lets an object in at its first reading; it changes no
    /// result.
    ///
    /// Performance: the first 96 bytes are not hashed again, and the chains
    /// are a quarter as long as ``ByteHash``'s over the whole object (the
    /// walk waits on this hash too, through the admission's branch).
    /// (Internal for the tests.)
    static func admissionHash(_ object: UnsafeRawBufferPointer, prefixHash: UInt64) -> UInt64 {
        let n = object.count
        guard n > prefixLength, let base = object.baseAddress else { return prefixHash }
        var lanes = HashLanes(first: prefixHash)
        var i = prefixLength
        while i &+ 32 <= n {
            lanes.addBlock(at: base + i)
            i &+= 32
        }
        // Under 32 bytes left: whole words, then the last eight bytes
        // (overlapping), so every byte is read.
        let rest = n &- i
        if rest > 0 {
            func word(_ offset: Int) -> UInt64 { base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
            if rest > 8 { lanes.h0 = HashLanes.step(lanes.h0, word(i)) }
            if rest > 16 { lanes.h1 = HashLanes.step(lanes.h1, word(i &+ 8)) }
            if rest > 24 { lanes.h2 = HashLanes.step(lanes.h2, word(i &+ 16)) }
            lanes.h3 = HashLanes.step(lanes.h3, word(n &- 8))
        }
        return lanes.folded(with: UInt64(n))
    }

    @inline(__always)
    static func set(of hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash >> 40) & (setCount - 1)
    }

    /// The way of `set` to overwrite: an empty one, else the least hit.
    private static func replace(in tables: Tables, set: Int) -> Int {
        let first = set * ways
        var victim = first
        for w in first..<(first + ways) {
            if tables.lengths[w] == 0 { return w }
            if tables.hitCounts[w] < tables.hitCounts[victim] { victim = w }
        }
        tables.replacements[set] &+= 1
        if tables.replacements[set] % agingPeriod == 0 {
            for w in first..<(first + ways) { tables.hitCounts[w] /= 2 }
        }
        return victim
    }
}

/// Four independent multiply-xorshift chains, folded into one hash with
/// ``ByteHash/mix(_:_:)`` (the action cache's prefix and admission hashes).
/// A step is an exclusive or, a multiply and a shift; four chains let a
/// 32-byte block take the latency of one step.
private struct HashLanes {
    var h0: UInt64
    var h1: UInt64 = 0xc2b2_ae3d_27d4_eb4f
    var h2: UInt64 = 0x1656_67b1_9e37_79f9
    var h3: UInt64 = 0x27d4_eb2f_1656_67c5

    init(first: UInt64) { h0 = first }

    @inline(__always)
    static func step(_ h: UInt64, _ word: UInt64) -> UInt64 {
        let x = (h ^ word) &* 0xff51_afd7_ed55_8ccd
        return x ^ (x &>> 29)
    }

    /// Adds the 32 bytes at `block`, a word to each lane.
    @inline(__always)
    mutating func addBlock(at block: UnsafeRawPointer) {
        h0 = Self.step(h0, block.loadUnaligned(as: UInt64.self))
        h1 = Self.step(h1, block.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        h2 = Self.step(h2, block.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        h3 = Self.step(h3, block.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
    }

    @inline(__always)
    func folded(with extra: UInt64 = 0) -> UInt64 {
        ByteHash.mix(h0 ^ (h2 &<< 32 | h2 &>> 32), h1 ^ (h3 &<< 32 | h3 &>> 32) ^ extra)
    }
}
