/// The `event_type`s the SPEC knows (§2), in the order of its table, plus
/// everything else as `.unknown`.
enum EventType: UInt8, CaseIterable, Sendable {
    case sdkActivate
    case identify
    case logout
    case onboardingStateUpdated
    case onboardingAnalytics
    case unknown

    /// The known types, in the SPEC table's order (quality report order).
    static let known: [EventType] = [.sdkActivate, .identify, .logout, .onboardingStateUpdated, .onboardingAnalytics]

    var name: String {
        switch self {
        case .sdkActivate: "sdk_activate"
        case .identify: "identify"
        case .logout: "logout"
        case .onboardingStateUpdated: "onboarding_state_updated"
        case .onboardingAnalytics: "onboarding_analytics"
        case .unknown: "unknown"
        }
    }

    /// Matches the decoded `event_type` bytes, case-sensitively.
    @inline(__always)
    init(matching bytes: UnsafeRawBufferPointer) {
        switch bytes.count {
        case 6 where bytes.equals("logout"): self = .logout
        case 8 where bytes.equals("identify"): self = .identify
        case 12 where bytes.equals("sdk_activate"): self = .sdkActivate
        case 20 where bytes.equals("onboarding_analytics"): self = .onboardingAnalytics
        case 24 where bytes.equals("onboarding_state_updated"): self = .onboardingStateUpdated
        default: self = .unknown
        }
    }

    /// Types that carry the device's profile changes (SPEC §4.2).
    @inline(__always)
    var isIdentityEvent: Bool { self == .sdkActivate || self == .identify || self == .logout }

    @inline(__always)
    var isOnboarding: Bool { self == .onboardingStateUpdated || self == .onboardingAnalytics }
}
