/// One accepted event, reduced to what the metrics read (24 bytes).
///
/// Identities are ids of the partial's ``IdentityTable`` plus one (0 = none).
/// Quiz answers, and identity events whose `event_id` is not a bare id
/// (``BareID``), also have an ``EventExtra`` (their `event_id` bytes, for
/// ordering ties, and their answer); an identity event with a bare id keeps
/// it in `PartialAggregate.bareIDs` instead (``EventRecord/hasBareID``).
/// What settling duplicates reads is kept apart, in an ``EventCopy`` per
/// record, and freed before the metrics are computed.
///
/// Memory: the fields are packed into three words, each field in the fewest
/// bits its range needs (at 5 M events, 40 MB less than 32-byte records with
/// a field per value); reading one is a shift and a mask:
///
/// | word | bits, high to low |
/// |---|---|
/// | 0 | seconds since ``Instant/minimum`` (39) · nanoseconds >> 5 (25) |
/// | 1 | device (30) · profile (30) · type (3) · ``hasBareID`` (1) |
/// | 2 | customer user (30) · extra + 1 (29) · nanoseconds & 31 (5) |
///
/// So an instant is in years 0001–9999 (all the parser accepts), an identity
/// id plus one below 2³⁰ (``identityLimit``), and an extra handle below
/// 2²⁹ − 1 (``extraLimit``); setting a value outside stops the run.
struct EventRecord {
    private var word0: UInt64
    private var word1: UInt64
    private var word2: UInt64

    /// Identity ids plus one are below this.
    static let identityLimit: UInt32 = 1 << 30
    /// Extra handles are below this.
    static let extraLimit: Int32 = (1 << 29) - 1

    init(seconds: Int64, nanoseconds: UInt32, extra: Int32, device: UInt32, profile: UInt32,
         customerUser: UInt32, type: EventType, hasBareID: Bool = false) {
        (word0, word1, word2) = (0, 0, 0)
        self.hasBareID = hasBareID
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.extra = extra
        self.device = device
        self.profile = profile
        self.customerUser = customerUser
        self.type = type
    }

    /// The bits `[shift, shift + width)` of `word`.
    @inline(__always)
    private static func field(_ word: UInt64, _ shift: UInt64, _ width: UInt64) -> UInt64 {
        word >> shift & (1 << width - 1)
    }

    /// `word` with the bits `[shift, shift + width)` replaced by `value`.
    @inline(__always)
    private static func replacing(_ word: UInt64, _ shift: UInt64, _ width: UInt64, with value: UInt64) -> UInt64 {
        precondition(value < 1 << width, "a value too large for its field of an event record")
        return word & ~((1 << width - 1) << shift) | value << shift
    }

    var seconds: Int64 {
        @inline(__always) get { Int64(word0 >> 25) + Instant.minimum.seconds }
        set { word0 = Self.replacing(word0, 25, 39, with: UInt64(newValue - Instant.minimum.seconds)) }
    }

    var nanoseconds: UInt32 {
        @inline(__always) get { UInt32(truncatingIfNeeded: (word0 & (1 << 25 - 1)) << 5 | word2 & 31) }
        set {
            precondition(newValue < 1 << 30, "nanoseconds out of range")
            word0 = Self.replacing(word0, 0, 25, with: UInt64(newValue >> 5))
            word2 = Self.replacing(word2, 0, 5, with: UInt64(newValue & 31))
        }
    }

    var device: UInt32 {
        @inline(__always) get { UInt32(truncatingIfNeeded: word1 >> 34) }
        set { word1 = Self.replacing(word1, 34, 30, with: UInt64(newValue)) }
    }

    var profile: UInt32 {
        @inline(__always) get { UInt32(truncatingIfNeeded: Self.field(word1, 4, 30)) }
        set { word1 = Self.replacing(word1, 4, 30, with: UInt64(newValue)) }
    }

    var type: EventType {
        @inline(__always) get { EventType(rawValue: UInt8(truncatingIfNeeded: Self.field(word1, 1, 3))).unsafelyUnwrapped }
        set { word1 = Self.replacing(word1, 1, 3, with: UInt64(newValue.rawValue)) }
    }

    /// Whether the event's id is a bare id (an identity event whose
    /// `event_id` fits in 16 bytes, ``BareID``: those bytes and nothing
    /// else), and ``extra`` then says where and of which kind
    /// (``bareIDIndex``, ``bareIDKind``), rather than being a handle in
    /// `PartialAggregate.extras`.
    var hasBareID: Bool {
        @inline(__always) get { word1 & 1 != 0 }
        set { word1 = word1 & ~1 | (newValue ? 1 : 0) }
    }

    var customerUser: UInt32 {
        @inline(__always) get { UInt32(truncatingIfNeeded: word2 >> 34) }
        set { word2 = Self.replacing(word2, 34, 30, with: UInt64(newValue)) }
    }

    /// Handle into `PartialAggregate.extras`, or -1; for a record with a
    /// bare id, that id's index in `PartialAggregate.bareIDs` (0 until
    /// settling moves it there) times four, plus its kind.
    var extra: Int32 {
        @inline(__always) get { Int32(truncatingIfNeeded: Self.field(word2, 5, 29)) - 1 }
        set {
            precondition(newValue >= -1 && newValue < Self.extraLimit, "more than about 2²⁹ identity events and quiz answers")
            word2 = Self.replacing(word2, 5, 29, with: UInt64(newValue + 1))
        }
    }

    /// The kind of a bare id (``hasBareID``).
    var bareIDKind: BareID.Kind { BareID.indexAndKind(inExtra: extra).kind }

    /// A bare id's index in `PartialAggregate.bareIDs`, once settling moved it there.
    var bareIDIndex: Int { BareID.indexAndKind(inExtra: extra).index }

    /// Makes the record's id a bare id of `kind`, at `index` in
    /// `PartialAggregate.bareIDs` (0 until settling moves it there).
    mutating func setBareID(index: Int, kind: BareID.Kind) {
        hasBareID = true
        extra = BareID.extra(index: index, kind: kind)
    }

    var instant: Instant { Instant(seconds: seconds, nanoseconds: nanoseconds) }

    /// The record's place in the SPEC's ordering key.
    var orderingKey: OrderingKey {
        OrderingKey(seconds: seconds, nanoseconds: nanoseconds, extra: extra, hasBareID: hasBareID)
    }

    /// The nanoseconds of a record that settling found to be a later copy of
    /// a kept one (no instant has them): it stays where it is (records are
    /// never moved) and every scan skips it.
    static let removedNanoseconds: UInt32 = (1 << 30) - 1

    var isRemoved: Bool { nanoseconds == Self.removedNanoseconds }

    /// Whether a dropped duplicate differs from the kept one in anything the
    /// metrics read (SPEC §2, conflicting duplicates), given both copies.
    func hasSameContent(as other: EventRecord, fingerprints: (UInt32, UInt32)) -> Bool {
        type == other.type && seconds == other.seconds && nanoseconds == other.nanoseconds
            && device == other.device && profile == other.profile && customerUser == other.customerUser
            && fingerprints.0 == fingerprints.1
    }
}
