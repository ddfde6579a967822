/// Dense ids for the quiz options met, each an (`id`, `value`, `label`)
/// triple of quiz-string ids (``AnswerOption``), so that an answer stores
/// 4 bytes per option instead of 12.
///
/// Performance: interning is one probe of a small open-addressing table
/// per option of an answer (a select has one, a multiSelect a few): about
/// a third of the time a `Dictionary` took, which hashed with SipHash.
/// Memory: 4 bytes per option of every answer, plus 12 + 8–16 (slots at
/// ≤ 1/2 load) per distinct triple — few in real exports, where an option
/// id comes with the same value and label every time; at worst (a new value
/// or label on every answer) about 28 bytes per option instead of 12.
struct OptionTable {
    /// The triple of each id.
    private(set) var options: [AnswerOption] = []
    /// Linear probing, ≤ 1/2 load: an id plus one, 0 when empty.
    private var slots = [UInt32](repeating: 0, count: 64)

    var count: Int { options.count }

    @inline(__always)
    private static func hash(_ option: AnswerOption) -> Int {
        let x = (UInt64(option.id) << 32 | UInt64(option.value)) &* 0x9E37_79B9_7F4A_7C15
            ^ UInt64(option.label) &* 0xC2B2_AE3D_27D4_EB4F
        return Int(truncatingIfNeeded: x ^ x >> 31)
    }

    /// The id of `option`, new if it was not met before.
    mutating func intern(_ option: AnswerOption) -> UInt32 {
        let mask = slots.count - 1
        var slot = Self.hash(option) & mask
        while slots[slot] != 0 {
            let id = slots[slot] - 1
            if options[Int(id)] == option { return id }
            slot = (slot + 1) & mask
        }
        precondition(options.count < Int(UInt32.max), "too many distinct quiz options")
        let id = UInt32(options.count)
        options.append(option)
        slots[slot] = id + 1
        if options.count * 2 > slots.count { grow() }
        return id
    }

    private mutating func grow() {
        slots = [UInt32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (id, option) in options.enumerated() {
            var slot = Self.hash(option) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(id + 1)
        }
    }

    /// The triple of `id`.
    subscript(id: UInt32) -> AnswerOption {
        @inline(__always) get { options[Int(id)] }
    }

    /// Adds every option of `other`, whose quiz strings `strings` maps to
    /// this partial's; returns, for each of `other`'s ids, its id here.
    mutating func absorb(_ other: OptionTable, strings: [UInt32]) -> [UInt32] {
        other.options.map { option in
            intern(AnswerOption(id: strings[Int(option.id)], value: strings[Int(option.value)],
                                label: strings[Int(option.label)]))
        }
    }

    /// Frees the lookup index once every option is interned; ids and
    /// triples stay.
    mutating func releaseIndex() {
        slots = []
    }
}
