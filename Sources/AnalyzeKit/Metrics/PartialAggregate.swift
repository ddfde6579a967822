import CSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Everything one worker learned from the chunks it parsed.
///
/// Partials merge with ``merge(_:)``: counters add, reject samples merge by
/// input position, and event stores chain their records; ``settle()`` then
/// keeps the earliest copy of each event. So the merge is associative and
/// commutative and the final result does not depend on which worker saw
/// which chunk. Metrics are computed once, from the merged and settled store
/// (``AnalysisResult``): de-duplication is global, and a dropped conflicting
/// copy must not have counted anywhere.
struct PartialAggregate {
    let maxLineBytes: Int
    let maxRejectRows: Int
    /// What one run can hold; see ``exceededLimit``.
    let capacity: RunCapacity

    private(set) var lines = 0
    private(set) var rejectCounts = [Int](repeating: 0, count: RejectReason.allCases.count)
    /// The first `maxRejectRows` rejects of this partial in input order, once
    /// trimmed (``trimRejectSample()``: by every merge and by ``settle()``);
    /// until then up to twice as many, in the order met (a merge appends the
    /// other sample and trims).
    private(set) var rejectSample: [RejectEntry] = []
    private(set) var chunkLines: [ChunkLines] = []
    private(set) var store = EventStore()
    /// device, profile and customer user ids.
    private(set) var identities: IdentityTable
    /// onboarding ids, element ids, option ids, values and labels.
    private(set) var quizStrings: Interner
    /// `event_id` bytes of events whose ordering ties matter.
    private(set) var eventIDs = SegmentedArray<UInt8>()
    private(set) var extras = SegmentedArray<EventExtra>()
    /// The `event_id`s of identity events that fit in 16 bytes (``BareID``:
    /// no answer to record, unlike an extra; the kind is in the event's record).
    /// Until ``settle()`` they are their events' copies in the store
    /// (``EventCopy/init(packedID:)``), which then moves them here.
    private(set) var bareIDs: [PackedID] = []
    private(set) var answers = SegmentedArray<AnswerRecord>()
    /// Each answer's options, as ids in `quizOptions`.
    private(set) var answerOptions = SegmentedArray<UInt32>()
    private(set) var quizOptions = OptionTable()
    private(set) var quizQuestions = QuestionTable()

    private var parser = EventParser()
    /// Accepted events of the current batch, all from the chunk numbered `chunkSequence`.
    private var pending: [PendingEvent] = []
    private var chunkSequence = 0
    /// The options of the answer being recorded (reused).
    private var answerScratch: [AnswerOption] = []
    /// The option ids of the answer being recorded, when it has more than
    /// ``idsCheckedByScan`` options (reused).
    private var answerIDsSeen = Set<UInt32>()
    /// Answers with up to this many options find a repeated id by scanning
    /// the options kept so far; longer ones in ``answerIDsSeen``, so that an
    /// answer of k options costs O(k), not O(k²) (a multiSelect of 32 000
    /// distinct ids took 0.23 s a line).
    private static let idsCheckedByScan = 16
    /// The answer recorded last for an `action` the parser's cache holds, by
    /// its way (``EventParser/cachedAction``): an answer found there again,
    /// with the same fill, is that record again (same question, kind and
    /// options: its options' run is shared, not interned and stored again).
    private var answerMemos: [AnswerMemo] = []
    /// The id (plus one) of each role's most recent identity, in line order.
    private var recentIdentities: (device: UInt32, profile: UInt32, customerUser: UInt32) = (0, 0, 0)
    /// The bytes of each role's most recent identity, while they are in the
    /// chunk being consumed (nil otherwise).
    private var lastIdentityBytes: (device: UnsafeRawBufferPointer?, profile: UnsafeRawBufferPointer?,
                                    customerUser: UnsafeRawBufferPointer?) = (nil, nil, nil)

    /// Events per batch: enough to prefetch ahead, few enough to stay in cache.
    private static let batchSize = 256
    /// How many events ahead a batch asks for hash-table slots.
    private static let prefetchDistance = 8

    /// The first limit of ``capacity`` passed while recording or merging
    /// (identities beyond it are marked in ``identities`` instead).
    private var passedLimit: CapacityLimit?

    init(maxLineBytes: Int, maxRejectRows: Int, capacity: RunCapacity = .standard) {
        self.maxLineBytes = maxLineBytes
        self.maxRejectRows = maxRejectRows
        self.capacity = capacity
        identities = IdentityTable(capacity: 256, limit: capacity.identities)
        quizStrings = Interner(capacity: 64, limit: capacity.quizStrings)
    }

    /// The limit of ``capacity`` this partial's inputs passed, if any: it then
    /// holds less than they did, and the run must stop without output.
    ///
    /// Checked by the worker after each chunk and by the run after merging.
    /// What would pass a limit is not recorded (an event with an extra
    /// beyond the limit, an answer's options, an identity), so no field's
    /// range check traps; a merge that would pass one stops before it
    /// renumbers anything.
    var exceededLimit: CapacityLimit? {
        if let passedLimit { return passedLimit }
        if identities.isOverfull { return .identities(capacity.identities) }
        if quizStrings.isOverfull { return .quizStrings(capacity.quizStrings) }
        return store.bareCount > capacity.bareIDs ? .bareIDs(capacity.bareIDs) : nil
    }

    /// Notes that `limit` was passed; the first one passed is the one reported.
    private mutating func pass(_ limit: CapacityLimit) {
        if passedLimit == nil { passedLimit = limit }
    }

    // MARK: Consuming chunks

    /// Parses and records every line of `chunk`.
    mutating func consume(_ chunk: Chunk) {
        // Work on the parser as a local (swapped out, not copied), so lines can
        // be recorded into `self` while the parser is read.
        var parser = EventParser.unallocated
        swap(&parser, &self.parser)
        defer { swap(&parser, &self.parser) }
        // Identity bytes are compared with the previous event's only inside one chunk.
        lastIdentityBytes = (nil, nil, nil)
        defer { flushPending() }
        let sequence = UInt64(chunk.sequence) << 32
        chunkSequence = chunk.sequence
        switch chunk.kind {
        case .oversizedLine(let isBlank):
            if !isBlank {
                lines += 1
                reject(.lineTooLong, at: sequence)
            }
            chunkLines.append(ChunkLines(sequence: chunk.sequence, fileIndex: chunk.fileIndex, lineCount: 1))
        case .lines:
            let base = UnsafeRawPointer(chunk.storage.baseAddress!)
            let end = chunk.count
            var i = chunk.start
            var lineIndex: UInt64 = 0
            // A chunk with a line longer than a run can hold (a chunk grows
            // for a long line) takes the path that measures a line first.
            let parsesAsFound = end - i <= capacity.lineBytes
            while i < end {
                // Most lines are an object and their end: parsed as found.
                if parsesAsFound, let (outcome, contentEnd, lineEnd) = parser.parseLine(
                    atStartOf: UnsafeRawBufferPointer(start: base + i, count: end - i)) {
                    lines += 1
                    let position = sequence | lineIndex
                    if contentEnd > maxLineBytes {
                        reject(.lineTooLong, at: position)
                    } else {
                        switch outcome {
                        case .rejected(let reason): reject(reason, at: position)
                        case .accepted: record(at: position, from: &parser)
                        }
                    }
                    lineIndex += 1
                    i += lineEnd + 1
                    continue
                }
                let lineEnd: Int
                var contentEnd: Int
                if let newline = memchr(base + i, 0x0A, end - i) {
                    lineEnd = UnsafeRawPointer(newline) - base
                    contentEnd = lineEnd
                    if contentEnd > i && base.load(fromByteOffset: contentEnd - 1, as: UInt8.self) == 0x0D {
                        contentEnd -= 1
                    }
                } else {
                    lineEnd = end
                    contentEnd = end
                }
                consumeLine(UnsafeRawBufferPointer(start: base + i, count: contentEnd - i), at: sequence | lineIndex,
                            parser: &parser)
                lineIndex += 1
                i = lineEnd + 1
            }
            chunkLines.append(ChunkLines(sequence: chunk.sequence, fileIndex: chunk.fileIndex, lineCount: Int(lineIndex)))
        }
    }

    private mutating func consumeLine(_ line: UnsafeRawBufferPointer, at position: UInt64, parser: inout EventParser) {
        guard !ChunkReader.isBlank(line) else { return }
        lines += 1
        guard line.count <= maxLineBytes else {
            reject(.lineTooLong, at: position)
            return
        }
        guard line.count <= capacity.lineBytes else {
            pass(.lineBytes(capacity.lineBytes))
            return
        }
        switch parser.parse(line) {
        case .rejected(let reason):
            reject(reason, at: position)
        case .accepted:
            record(at: position, from: &parser)
        }
    }

    private mutating func reject(_ reason: RejectReason, at position: UInt64) {
        rejectCounts[Int(reason.rawValue)] += 1
        guard maxRejectRows > 0 else { return }
        rejectSample.append(RejectEntry(position: position, reason: reason))
        // A worker that reads several inputs meets chunks out of input order:
        // keep every reject until the sample doubles, then the earliest.
        // (Halved, not doubled: `--max-reject-rows` may be as large as Int.max.)
        if rejectSample.count / 2 >= maxRejectRows { trimRejectSample() }
    }

    /// Adds the parser's current event to the batch: everything but its
    /// identities is recorded now, while the parser holds the line.
    ///
    /// The parser is only read. It is taken `inout` because, passed
    /// `borrowing` from ``consumeLine(_:at:parser:)``'s `inout`, it was copied
    /// per line (376 bytes and a retain and release of each of its arrays:
    /// 1.2 % of all instructions); its event's fields are read in place for
    /// the same reason.
    private mutating func record(at position: UInt64, from parser: inout EventParser) {
        // An id that fits in 16 bytes (a canonical UUID in one case, or a
        // short id) is kept as those bytes (when kept), and keyed by them
        // and its kind (see ``EventKey``).
        var packed: (UInt64, UInt64) = (0, 0)
        let (packedKind, key) = parser.withBytes(of: parser.event.eventID) { id in
            let kind = BareID.pack(id, into: &packed)
            return (kind, kind.map { EventKey(packedID: packed, kind: $0) } ?? EventKey(id))
        }
        let answer = parser.event.answerKind == .none ? -1 : recordAnswer(from: &parser)
        var extra: Int32 = -1
        var bareIDKind: BareID.Kind?
        if parser.event.type.isIdentityEvent || answer >= 0 {
            if let packedKind, answer < 0 {
                // An identity event's packed id is its copy (a bare copy), its
                // kind in its record, until settling moves it to `bareIDs`.
                // (Identity events have no content fingerprint, so a bare copy
                // need not keep one.)
                assert(parser.event.contentFingerprint == 0)
                bareIDKind = packedKind
            } else if extras.startOfNextRun(count: 1) >= capacity.extras {
                pass(.extras(capacity.extras))
                return
            } else if let packedKind {
                extra = Int32(extras.append(EventExtra(packedID: packed, kind: packedKind, answer: answer)))
            } else {
                parser.withBytes(of: parser.event.eventID) { id in
                    let offset = eventIDs.append(contentsOf: id.assumingMemoryBound(to: UInt8.self))
                    extra = Int32(extras.append(EventExtra(idOffset: offset, idCount: Int32(id.count), answer: answer)))
                }
            }
        }
        @inline(__always)
        func identity(_ ref: StringRef?, last: inout UnsafeRawBufferPointer?) -> PendingIdentity {
            guard let ref else { return .none }
            return parser.withBytes(of: ref) { bytes in
                guard !ref.isDecoded, let base = bytes.baseAddress else {
                    // Decoded from escapes, in the parser's arena (reused by the
                    // next line): not compared with the next line's.
                    last = nil
                    return PendingIdentity(key: IdentityTable.Key(bytes), state: .lookup)
                }
                defer { last = bytes }
                if let previous = last, previous.count == bytes.count,
                   RawBytes.equal(previous.baseAddress!, base, count: bytes.count) {
                    return PendingIdentity(key: .zero, state: .sameAsPrevious)
                }
                return PendingIdentity(key: IdentityTable.Key(bytes), state: .lookup)
            }
        }
        var record = EventRecord(
            seconds: parser.event.instant.seconds,
            nanoseconds: parser.event.instant.nanoseconds,
            extra: extra,
            device: 0,
            profile: 0,
            customerUser: 0,
            type: parser.event.type)
        if let bareIDKind { record.setBareID(index: 0, kind: bareIDKind) }
        pending.append(PendingEvent(
            record: record,
            copy: bareIDKind != nil
                ? EventCopy(packedID: packed) : EventCopy(key: key, fingerprint: parser.event.contentFingerprint),
            device: identity(parser.event.deviceID, last: &lastIdentityBytes.device),
            profile: identity(parser.event.profileID, last: &lastIdentityBytes.profile),
            customerUser: identity(parser.event.customerUserID, last: &lastIdentityBytes.customerUser),
            shard: UInt8(truncatingIfNeeded: EventStore.shard(of: key))))
        if pending.count == Self.batchSize { flushPending() }
    }

    /// Records the quiz answer of the accepted event in `parser` (a select or
    /// multiSelect answer); returns its handle in `answers`, or -1 when it has
    /// no onboarding or element id. An answer found in the parser's action
    /// cache with the way and fill of one recorded before is that record
    /// again (``answerMemos``).
    @inline(__always)
    private mutating func recordAnswer(from parser: inout EventParser) -> Int32 {
        guard answers.startOfNextRun(count: 1) < capacity.answers else {
            pass(.answers(capacity.answers))
            return -1
        }
        if let cached = parser.cachedAction, cached.way < answerMemos.count,
           answerMemos[cached.way].fill == cached.fill {
            return Int32(answers.append(answerMemos[cached.way].record))
        }
        if let onboarding = parser.event.onboardingID, let element = parser.event.elementID {
            // Gathered first, then stored as one run (an answer's options are
            // read back contiguously).
            answerScratch.removeAll(keepingCapacity: true)
            let scans = parser.options.count <= Self.idsCheckedByScan
            if !scans { answerIDsSeen.removeAll(keepingCapacity: true) }
            for option in parser.options {
                let id = parser.withBytes(of: option.id) { quizStrings.intern($0) }
                // An id repeated inside one answer counts once; the first wins.
                if scans ? answerScratch.contains(where: { $0.id == id }) : !answerIDsSeen.insert(id).inserted { continue }
                answerScratch.append(AnswerOption(
                    id: id,
                    value: parser.withBytes(of: option.value) { quizStrings.intern($0) },
                    label: parser.withBytes(of: option.label) { quizStrings.intern($0) }))
            }
            // The run's handles end, and the options' count, within the limit.
            let optionsCount = answerScratch.count
            guard answerOptions.startOfNextRun(count: optionsCount) + optionsCount <= capacity.answerOptions,
                  answerOptions.count + optionsCount <= capacity.answerOptions else {
                pass(.answerOptions(capacity.answerOptions))
                return -1
            }
            let start = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: answerScratch.count) { refs in
                for (i, option) in answerScratch.enumerated() { refs.initializeElement(at: i, to: quizOptions.intern(option)) }
                return answerOptions.append(contentsOf: UnsafeBufferPointer(refs))
            }
            let onboardingID = parser.withBytes(of: onboarding) { quizStrings.intern($0) }
            let elementID = parser.withBytes(of: element) { quizStrings.intern($0) }
            let question = quizQuestions.intern(Question(onboarding: onboardingID, element: elementID))
            let record = AnswerRecord(
                optionsStart: start, question: question, optionsCount: Int32(answerScratch.count), kind: parser.event.answerKind)
            if let cached = parser.cachedAction {
                if answerMemos.isEmpty { answerMemos = Array(repeating: AnswerMemo(), count: ActionCache.wayCount) }
                answerMemos[cached.way] = AnswerMemo(fill: cached.fill, record: record)
            }
            return Int32(answers.append(record))
        }
        return -1
    }

    /// Interns the identities of the batch's events and appends their records,
    /// in line order, asking for the slots of an event a few places ahead.
    private mutating func flushPending() {
        guard !pending.isEmpty else { return }
        // Swapped out (not copied), so the store and interner can be updated
        // while the batch is read, and its buffer is reused.
        var pending: [PendingEvent] = []
        swap(&pending, &self.pending)
        defer {
            pending.removeAll(keepingCapacity: true)
            swap(&pending, &self.pending)
        }
        let count = pending.count
        let distance = Self.prefetchDistance
        // The store's segments are made this partial's own once per batch,
        // not once per append (nothing copies the store while the batch runs).
        store.prepareForAppends()
        // Three stages, `distance` events apart: ask for the identities' index
        // slots; read them (arrived by now) and ask for the keys they point
        // at; intern and append. (Written out in the loop, not as local
        // functions: closures capturing `self` made Swift copy the store's and
        // interner's arrays per call.)
        for index in 0..<(count + 2 * distance) {
            if index < count {
                let ahead = pending[index]
                if ahead.device.needsLookup { identities.prefetch(ahead.device.key) }
                if ahead.profile.needsLookup { identities.prefetch(ahead.profile.key) }
                if ahead.customerUser.needsLookup { identities.prefetch(ahead.customerUser.key) }
            }
            if index >= distance && index - distance < count {
                let ahead = pending[index - distance]
                if ahead.device.needsLookup { identities.prefetchKey(ahead.device.key) }
                if ahead.profile.needsLookup { identities.prefetchKey(ahead.profile.key) }
                if ahead.customerUser.needsLookup { identities.prefetchKey(ahead.customerUser.key) }
            }
            guard index >= 2 * distance else { continue }
            let event = pending[index - 2 * distance]
            var record = event.record
            record.device = resolve(event.device, recent: recentIdentities.device)
            record.profile = resolve(event.profile, recent: recentIdentities.profile)
            record.customerUser = resolve(event.customerUser, recent: recentIdentities.customerUser)
            if event.device.isPresent { recentIdentities.device = record.device }
            if event.profile.isPresent { recentIdentities.profile = record.profile }
            if event.customerUser.isPresent { recentIdentities.customerUser = record.customerUser }
            store.appendPrepared(record, copy: event.copy, shard: Int(event.shard), sequence: chunkSequence)
        }
    }

    /// The id (plus one) of a pending identity, 0 when absent; `recent` is the
    /// id (plus one) of this role's previous identity.
    @inline(__always)
    private mutating func resolve(_ identity: PendingIdentity, recent: UInt32) -> UInt32 {
        switch identity.state {
        case .absent: return 0
        case .sameAsPrevious: return recent
        case .lookup: return identities.intern(identity.key) + 1
        }
    }

    // MARK: Merging

    /// Folds `other` into this partial (associative and commutative).
    ///
    /// When either partial, or the two together, pass a limit of
    /// ``capacity``, the merge stops there and ``exceededLimit`` says which:
    /// the run then stops without output.
    mutating func merge(_ other: consuming PartialAggregate) {
        var other = other
        // Handles, not counts: adopted handles start after our last segment,
        // past what it left unfilled.
        if let passed = exceededLimit ?? other.exceededLimit ?? capacity.exceeded(
            extras: extras.handleEnd(adopting: other.extras),
            answers: answers.handleEnd(adopting: other.answers),
            bareIDs: store.bareCount + other.store.bareCount,
            answerOptions: answerOptions.handleEnd(adopting: other.answerOptions),
            answerOptionCount: answerOptions.count + other.answerOptions.count) {
            pass(passed)
            return
        }
        // Take the store out of `other` so its shards are uniquely owned and
        // freed one by one while they are absorbed.
        let otherStore = other.store
        other.store = EventStore()
        lines += other.lines
        for i in rejectCounts.indices { rejectCounts[i] += other.rejectCounts[i] }
        rejectSample += other.rejectSample
        trimRejectSample()
        chunkLines += other.chunkLines

        let identityMap = identities.absorb(other.identities)
        let quizMap = quizStrings.absorb(other.quizStrings)
        guard !identities.isOverfull && !quizStrings.isOverfull else { return }
        // The other partial's side tables are renumbered in place, then
        // chained after ours: nothing is copied.
        let extraBase = Int32(extras.adoptionBase)
        let idBase = eventIDs.adoptionBase
        let answerBase = Int32(answers.adoptionBase)
        let optionBase = answerOptions.adoptionBase
        var otherExtras = other.extras
        var otherAnswers = other.answers
        var otherOptions = other.answerOptions
        let otherIDs = other.eventIDs
        (other.extras, other.answers, other.answerOptions, other.eventIDs) = (.init(), .init(), .init(), .init())
        otherExtras.updateEach { extra in
            if extra.packedKind == nil { extra.idOffset += idBase }
            if extra.answer >= 0 { extra.answer += answerBase }
        }
        let questionMap = quizQuestions.absorb(other.quizQuestions, strings: quizMap)
        otherAnswers.updateEach { answer in
            answer.question = questionMap[Int(answer.question)]
            answer.optionsStart += optionBase
        }
        let optionMap = quizOptions.absorb(other.quizOptions, strings: quizMap)
        otherOptions.updateEach { option in option = optionMap[Int(option)] }
        eventIDs.adopt(consume otherIDs)
        extras.adopt(consume otherExtras)
        answers.adopt(consume otherAnswers)
        answerOptions.adopt(consume otherOptions)
        store.absorb(otherStore) { record in
            var r = record
            if r.device != 0 { r.device = identityMap[Int(r.device - 1)] + 1 }
            if r.profile != 0 { r.profile = identityMap[Int(r.profile - 1)] + 1 }
            if r.customerUser != 0 { r.customerUser = identityMap[Int(r.customerUser - 1)] + 1 }
            // A bare record has no extra (its id is its copy until settling).
            if r.extra >= 0 && !r.hasBareID { r.extra += extraBase }
            return r
        }
    }

    /// Frees the parser and the batch buffers once the last chunk is
    /// consumed (its action cache alone may hold 2.1 MiB): what merging and
    /// the tables need is all recorded.
    mutating func releaseParser() {
        parser = .unallocated
        pending = []
        answerScratch = []
        answerIDsSeen = []
        answerMemos = []
    }

    /// Settles duplicates (``EventStore/settle()``), then frees what only
    /// settling and merging read: the copies' keys, and the lookup indexes of
    /// the identity table and the quiz-string interner. After the last merge,
    /// the metric tables only scan records and read strings by id.
    mutating func settle() {
        trimRejectSample()
        store.settle()
        bareIDs = store.releaseCopies()
        identities.releaseIndex()
        quizStrings.releaseIndex()
        quizOptions.releaseIndex()
        quizQuestions.releaseIndex()
        // The copies' segments (512 KiB each) are below malloc's mmap
        // threshold: without this they would stay resident, unused by the
        // tables' large arrays.
        analyze_return_free_memory()
    }

    /// Sorts the reject sample into input order and keeps its first
    /// `maxRejectRows`.
    private mutating func trimRejectSample() {
        rejectSample.sort { $0.position < $1.position }
        if rejectSample.count > maxRejectRows { rejectSample.removeLast(rejectSample.count - maxRejectRows) }
    }

    /// The answer of a record, if it is a quiz answer.
    func answer(of record: EventRecord) -> AnswerRecord? {
        guard record.extra >= 0 && !record.hasBareID else { return nil }
        let index = extras[Int(record.extra)].answer
        return index >= 0 ? answers[Int(index)] : nil
    }
}
