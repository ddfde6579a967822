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
/// Memory: 4 bytes per use, plus the tuple and 8–16 (slots at ≤ 1/2 load)
/// per distinct tuple — a handful in real exports, where an
/// option id keeps its value and label and questions are few; at worst (a
/// new value or label on every answer) about 28 bytes per option instead
/// of 12.
struct TupleTable<Tuple: QuizStringTuple> {
    /// The tuple of each id.
    private(set) var tuples: [Tuple] = []
    /// Linear probing, ≤ 1/2 load: an id plus one, 0 when empty.
    private var slots = [UInt32](repeating: 0, count: 64)

    var count: Int { tuples.count }

    /// The id of `tuple`, new if it was not met before.
    mutating func intern(_ tuple: Tuple) -> UInt32 {
        let mask = slots.count - 1
        var slot = Self.home(tuple) & mask
        while slots[slot] != 0 {
            let id = slots[slot] - 1
            if tuples[Int(id)] == tuple { return id }
            slot = (slot + 1) & mask
        }
        precondition(tuples.count < Int(UInt32.max) - 1, "too many distinct quiz options or questions")
        let id = UInt32(tuples.count)
        tuples.append(tuple)
        slots[slot] = id + 1
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

    @inline(__always)
    static func home(_ tuple: Tuple) -> Int {
        let x = tuple.hashBits
        return Int(truncatingIfNeeded: x ^ x >> 31)
    }

    private mutating func grow() {
        slots = [UInt32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (id, tuple) in tuples.enumerated() {
            var slot = Self.home(tuple) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(id + 1)
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
