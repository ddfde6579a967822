/// What the SPEC's `action`-shape rules read from an `action` object, for
/// both onboarding types at once (a line may name its type after its
/// `action`), however the object was read: in one pass (``ActionScan``) or
/// from its recorded structure (``ActionTape``).
///
/// Values are spans of the line; a field is nil when its key is absent, and
/// the fields inside `meta`, `params` and `params.value` are only read when
/// those are of the kind the rules look into.
struct ActionFacts {
    /// An option object's members: a `select`'s `params.value`, or an element
    /// of a `multiSelect`'s.
    struct Option {
        var id: JSONValue?
        var value: JSONValue?
        var label: JSONValue?
    }

    var elementID: JSONValue?
    var name: JSONValue?
    /// The kind of `meta` (nil: absent); its members are read when an object.
    var metaKind: JSONKind?
    var onboardingID: JSONValue?
    var screenClientID: JSONValue?
    var screenIndex: JSONValue?
    var screensTotal: JSONValue?
    /// The kind of `params` (nil: absent); its members are read when an object.
    var paramsKind: JSONKind?
    var paramsType: JSONValue?
    /// The kind of `params.value` (nil: absent).
    var valueKind: JSONKind?
    /// `params.value`'s option members and date members, when it is an object.
    var valueOption = Option()
    var day: JSONValue?
    var month: JSONValue?
    var year: JSONValue?
    /// `params.value`'s elements when it is an array: each one's members, or
    /// nil for an element that is not an object. Reused from action to action.
    var elements: [Option?] = []

    /// Forgets the previous action (keeping the elements' buffer).
    mutating func reset() {
        (elementID, name, metaKind, paramsKind, paramsType, valueKind) = (nil, nil, nil, nil, nil, nil)
        (onboardingID, screenClientID, screenIndex, screensTotal) = (nil, nil, nil, nil)
        (valueOption, day, month, year) = (Option(), nil, nil, nil)
        if !elements.isEmpty { elements.removeAll(keepingCapacity: true) }
    }
}
