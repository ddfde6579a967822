/// A small value made of quiz-string ids that a partial interns whole: an
/// answer's option (``AnswerOption``) or its question (``Question``).
protocol QuizStringTuple: Equatable {
    /// The table's hash of the value: keyed with the run's hash key
    /// (``ByteHash``), so that no one can write answers whose tuples crowd
    /// one stretch of the table.
    var hashBits: UInt64 { get }
    /// The value with each quiz-string id mapped through `strings` (merging).
    func remapped(_ strings: [UInt32]) -> Self
}

/// Dense ids for the quiz-string tuples met — the options of answers, each
/// an (`id`, `value`, `label`) triple, and their questions, each an
/// (`onboardingId`, `elementId`) pair — so that an answer stores 4 bytes per
/// option instead of 12, and 4 for its question instead of 8.
///
/// Performance: interning is one probe of a small open-addressing table
/// (about a third of the time a `Dictionary` took, which hashed with
/// SipHash). The hash is keyed (``QuizStringTuple/hashBits``): the ids are
/// dense and given in the order strings are first met, so with a fixed hash
/// anyone could compute tuples whose slots fall together, and linear probing
/// then costs time quadratic in their number (until the sixty-third session:
/// 52 000 such options, a 2.4 MB file, took 3 s instead of 0.04).
///
/// A slot holds the low 32 bits of the tuple's hash beside its id, so a
/// probe reads a tuple (a likely cache miss in a large table) only when
/// those bits match, and growing places each id by them without reading
/// or hashing its tuple. (Until the sixty-fifth session a slot held the id
/// alone: 6.6 million distinct options spent 3 s here, a third of their run.)
///
/// Memory: 4 bytes per use, plus the tuple and 16–32 (slots at ≤ 1/2 load)
/// per distinct tuple — a handful in real exports, where an
/// option id keeps its value and label and questions are few; at worst (a
/// new value or label on every answer) about 40 bytes per option instead
/// of 12.
struct TupleTable<Tuple: QuizStringTuple> {
    /// The tuple of each id.
    private(set) var tuples: [Tuple] = []
    /// Linear probing, ≤ 1/2 load: the hash's low 32 bits << 32 | (id + 1);
    /// 0 when empty.
    private var slots = [UInt64](repeating: 0, count: 64)

    var count: Int { tuples.count }

    /// The id of `tuple`, new if it was not met before.
    mutating func intern(_ tuple: Tuple) -> UInt32 {
        let mask = slots.count - 1
        let hash = Self.hash(tuple)
        let tag = hash << 32
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let entry = slots[slot]
            if entry & 0xFFFF_FFFF_0000_0000 == tag {
                let id = UInt32(truncatingIfNeeded: entry) - 1
                if tuples[Int(id)] == tuple { return id }
            }
            slot = (slot + 1) & mask
        }
        precondition(tuples.count < Int(UInt32.max) - 1, "too many distinct quiz options or questions")
        let id = UInt32(tuples.count)
        tuples.append(tuple)
        slots[slot] = tag | UInt64(id + 1)
        if tuples.count * 2 > slots.count { grow() }
        return id
    }

    /// The tuple of `id`.
    subscript(id: UInt32) -> Tuple {
        @inline(__always) get { tuples[Int(id)] }
    }

    /// Adds every tuple of `other`, whose quiz strings `strings` maps to
    /// this partial's; returns, for each of `other`'s ids, its id here.
    mutating func absorb(_ other: TupleTable, strings: [UInt32]) -> [UInt32] {
        other.tuples.map { intern($0.remapped(strings)) }
    }

    /// Frees the lookup index once every tuple is interned; ids and tuples stay.
    mutating func releaseIndex() {
        slots = []
    }

    /// The tuple's hash, its low bits the home slot.
    @inline(__always)
    static func hash(_ tuple: Tuple) -> UInt64 {
        let x = tuple.hashBits
        return x ^ x >> 31
    }

    /// Places every id in slots twice as many, by the hash bits its slot
    /// kept (a table past 2³² slots, beyond those bits, hashes the tuples again).
    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        let mask = slots.count - 1
        let tagsSuffice = slots.count <= 1 << 32
        for entry in old where entry != 0 {
            let id = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
            var slot = (tagsSuffice ? Int(truncatingIfNeeded: entry >> 32) : Int(truncatingIfNeeded: Self.hash(tuples[id]))) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }
}

typealias OptionTable = TupleTable<AnswerOption>
typealias QuestionTable = TupleTable<Question>

extension AnswerOption: QuizStringTuple {
    var hashBits: UInt64 {
        withUnsafeBytes(of: (id, value, label)) { ByteHash.hash($0, seed: 0x6f70_7469_6f6e_7331) }
    }

    func remapped(_ strings: [UInt32]) -> AnswerOption {
        AnswerOption(id: strings[Int(id)], value: strings[Int(value)], label: strings[Int(label)])
    }
}

/// A quiz question: its `meta.onboardingId` and `elementId`, as quiz-string ids.
struct Question: Equatable {
    var onboarding: UInt32
    var element: UInt32
}

extension Question: QuizStringTuple {
    var hashBits: UInt64 {
        withUnsafeBytes(of: (onboarding, element)) { ByteHash.hash($0, seed: 0x7175_6573_7469_6f6e) }
    }

    func remapped(_ strings: [UInt32]) -> Question {
        Question(onboarding: strings[Int(onboarding)], element: strings[Int(element)])
    }
}
