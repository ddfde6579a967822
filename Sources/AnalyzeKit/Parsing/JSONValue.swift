/// What kind of JSON value a ``JSONValue`` span holds.
enum JSONKind: UInt8 {
    case string, number, object, array, boolean, null
}

/// A validated JSON value inside a line: its kind and byte range.
///
/// For strings the range includes the quotes; `hasEscapes` tells whether the
/// content can be used as-is or must go through ``JSONScanner/decodeString``.
/// For numbers `isPlainInteger` tells whether it is `-?(0|[1-9][0-9]*)`.
struct JSONValue {
    var start: Int
    var end: Int
    var kind: JSONKind
    /// Strings: holds a backslash escape. Numbers: has a fraction or exponent.
    var flag: Bool

    var hasEscapes: Bool { flag }
    var isPlainInteger: Bool { kind == .number && !flag }
    var isNull: Bool { kind == .null }
}
