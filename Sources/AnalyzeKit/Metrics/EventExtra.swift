/// What only identity events and quiz answers carry: where their `event_id`
/// bytes are (ordering ties) and their answer, if any.
///
/// Memory: 20 bytes (4-byte aligned): the id's 16 bytes, and one word for
/// the answer's handle and how the id is stored.
struct EventExtra {
    /// A packed id's 16 bytes (see ``packedKind``); for an id stored as it
    /// was, its handle in `PartialAggregate.eventIDs` (the first two words)
    /// and its length (the third).
    private(set) var id: (UInt32, UInt32, UInt32, UInt32)
    /// The answer's handle plus one (0: none), times four, plus how the id is
    /// kept (``asWritten``, or a ``BareID`` kind's raw value plus one).
    private var answerAndStorage: UInt32

    /// An id kept as written, in `PartialAggregate.eventIDs`.
    private static let asWritten: UInt32 = 0

    /// An extra whose id was packed into `bytes` (``BareID/pack(_:into:)``) as `kind`.
    init(packedID bytes: (UInt64, UInt64), kind: BareID.Kind, answer: Int32) {
        id = unsafeBitCast(bytes, to: (UInt32, UInt32, UInt32, UInt32).self)
        answerAndStorage = UInt32(kind.rawValue) + 1
        self.answer = answer
    }

    /// An extra whose id's bytes are at `idOffset` in `PartialAggregate.eventIDs`.
    init(idOffset: Int, idCount: Int32, answer: Int32) {
        id = (0, 0, UInt32(idCount), 0)
        answerAndStorage = Self.asWritten
        self.idOffset = idOffset
        self.answer = answer
    }

    /// The handle of the id's bytes in `PartialAggregate.eventIDs` (ids
    /// stored as they were).
    var idOffset: Int {
        get { Int(UInt64(id.1) << 32 | UInt64(id.0)) }
        set { (id.0, id.1) = (UInt32(truncatingIfNeeded: newValue), UInt32(truncatingIfNeeded: newValue >> 32)) }
    }

    /// The length of an id stored as it was.
    var idCount: Int32 { Int32(bitPattern: id.2) }

    /// Handle into `PartialAggregate.answers`, or -1.
    var answer: Int32 {
        @inline(__always) get { Int32(bitPattern: answerAndStorage >> 2) - 1 }
        set {
            precondition(newValue >= -1 && newValue < (1 << 30) - 1, "too many quiz answers")
            answerAndStorage = UInt32(newValue + 1) << 2 | answerAndStorage & 3
        }
    }

    /// How the id was packed, or nil when it is stored as it was.
    var packedKind: BareID.Kind? {
        let storage = answerAndStorage & 3
        return storage == Self.asWritten ? nil : BareID.Kind(rawValue: Int32(storage) - 1)
    }
}
