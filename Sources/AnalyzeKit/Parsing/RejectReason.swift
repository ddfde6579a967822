/// Why a line was rejected (SPEC §2), in precedence order: when several apply,
/// the first one in this order is the line's reason.
public enum RejectReason: UInt8, CaseIterable, Sendable, Comparable {
    case lineTooLong
    case invalidJSON
    case notAnObject
    case missingField
    case wrongType
    case badTimestamp
    case badAction

    public var name: String {
        switch self {
        case .lineTooLong: "line_too_long"
        case .invalidJSON: "invalid_json"
        case .notAnObject: "not_an_object"
        case .missingField: "missing_field"
        case .wrongType: "wrong_type"
        case .badTimestamp: "bad_timestamp"
        case .badAction: "bad_action"
        }
    }

    public static func < (a: RejectReason, b: RejectReason) -> Bool { a.rawValue < b.rawValue }
}
