/// The world model: people, their installs (devices), Adapty profiles and customer user IDs.
///
/// A *person* arrives (first install) at some instant of the window and lives as a small
/// simulation of *agents*, one per installation (`device_id`):
/// * **install** — `sdk_activate` on a new anonymous profile, or, when the app already
///   knows the person's customer user ID at launch, with that ID (an ID that already owns
///   a profile lands on it; a new one is linked to the new profile). The first install
///   usually runs an onboarding; some people sign up (`identify`) inside it or soon after.
/// * **sessions** — relaunches (`sdk_activate` again, on the current profile; after a
///   logout, apps that pass the customer user ID to `activate` land back on the user's
///   profile: a *switch by sdk_activate*), unknown events (`paywall_shown`,
///   `purchase_completed`, …), logins (`identify`: a new ID links the current profile, an
///   ID that already owns a profile — e.g. from another device — *switches* to it),
///   re-identify with the current ID (no switch), logouts (`logout` onto a NEW anonymous
///   profile; sometimes an immediate re-login at the very same instant, a timestamp tie
///   that only `event_id` orders), the upsell onboarding.
/// * **churn / reinstall** — an agent stops; some come back as a reinstall (new
///   `device_id`, new anonymous profile unless activate passes the ID); some people also
///   use a second device with the same customer user ID.
/// Some customers pre-exist the export (their ID already owns a profile never seen
/// before), some have two accounts. Customer user IDs include e-mails, digits, Japanese,
/// and an NFC/NFD pair (`renée.N`) that must count as two different users.
/// Everything after the window's end is cut. Events carry the profile's customer user ID
/// at that moment (anonymous otherwise).

enum EventKind: UInt8 {
    case activate = 0, identify, logout, state, analytics, unknown
}

/// Unknown event subtypes (`Ev.a` when `kind == .unknown`).
enum UnknownKind: UInt16 {
    case paywallShown = 0, purchaseCompleted, sessionStart, accessLevelUpdated, subscriptionRenewed
}

/// One scripted event, compact; rendered to JSON only when emitted.
struct Ev {
    var t: Int64  // instant, ns since epoch
    var kind: EventKind
    var device: UInt8
    var cuid: UInt8  // 0 = anonymous, k = person.cuids[k - 1]
    var flags: UInt8
    var profile: UInt16
    var a: UInt16  // onboarding << 8 | screen; unknown subtype
    var b: UInt16  // analytics name index; question index
    var c: UInt32  // answer payload

    static let variantB: UInt8 = 1, dupGlitch: UInt8 = 2, otherInput: UInt8 = 4
}

struct DeviceInfo {
    var hi: UInt64
    var lo: UInt64
    var upper: Bool
    var android: Bool
    /// 0 Z+millis, 1 epoch ms, 2 local offset, 3 Z+micros, 4 Z+nanos, 5 varied spelling
    var tsPref: UInt8
    var extras: UInt8
    var appVersion: UInt8
    var osVersion: UInt8
    var locale: UInt8
    /// Older SDK: onboarding meta without screenClientId / screensTotal.
    var metaLite: Bool
    var eventIdUpper: Bool
}

struct Person {
    var events: [Ev] = []
    var next = 0
    var devices: [DeviceInfo] = []
    var profileHi: [UInt64] = []
    var profileLo: [UInt64] = []
    var cuids: [JStr] = []
    var email = JStr("")
    var zoneBase = 0  // minutes
    var zoneRule: UInt8 = 0  // 0 fixed, 1 US DST, 2 EU DST
    /// Pre-rendered text (Engine.prepareText), owned by the engine while the person is
    /// alive: device ids (36 bytes each), then profile ids, then each device's compact
    /// ignored-key block (`extrasStart[d]..<extrasStart[d + 1]`).
    var text: UnsafeMutablePointer<UInt8>? = nil
    var extrasStart: UnsafeMutablePointer<Int32>? = nil

    func releaseText() {
        text?.deallocate()
        extrasStart?.deallocate()
    }

    /// Local UTC offset in minutes at instant `ns`.
    func offsetMinutes(at ns: Int64) -> Int {
        if zoneRule == 0 { return zoneBase }
        let secs = floorDiv(ns, 1_000_000_000)
        let (y, _, _) = civilFromDays(floorDiv(secs, 86_400))
        func sundayOnOrAfter(_ d: Int64) -> Int64 {
            let dow = ((d + 4) % 7 + 7) % 7  // 0 = Sunday
            return d + (7 - dow) % 7
        }
        let start: Int64, end: Int64
        if zoneRule == 1 {
            // second Sunday of March, 02:00 standard → first Sunday of November, 02:00 daylight
            start = (sundayOnOrAfter(daysFromCivil(y, 3, 8))) * 86_400 + 7_200 - Int64(zoneBase) * 60
            end = (sundayOnOrAfter(daysFromCivil(y, 11, 1))) * 86_400 + 7_200 - Int64(zoneBase + 60) * 60
        } else {
            // last Sunday of March 01:00 UTC → last Sunday of October 01:00 UTC
            start = sundayOnOrAfter(daysFromCivil(y, 3, 25)) * 86_400 + 3_600
            end = sundayOnOrAfter(daysFromCivil(y, 10, 25)) * 86_400 + 3_600
        }
        return secs >= start && secs < end ? zoneBase + 60 : zoneBase
    }
}

private let second: Int64 = 1_000_000_000
private let minute: Int64 = 60 * second
private let hour: Int64 = 60 * minute
private let day: Int64 = 24 * hour

private struct Agent {
    var device: Int
    var profile = -1
    var nextT: Int64
    var installed = false
    var active = true
    var sessions = 0
    var justLoggedOut = false
    var upsellDone = false
    var reinstall: Bool
}

struct PersonBuilder {
    static let maxEvents = 600
    static let maxDevices = 12

    var rng: Rng
    let tables = Catalog.tables
    let windowEnd: Int64
    let index: Int
    var person = Person()
    private var profileCuid: [UInt8] = []
    private var cuidProfile: [Int] = []
    private var agents: [Agent] = []
    private var hasAccount = false
    private var activateWithCuid = false
    private var knowsCuidAtFirstLaunch = false
    private var twoAccounts = false
    private var variantB = false
    private var onboarded = false
    private var firstOnboarding = 0
    private var account = 0  // current account (cuid index)

    init(seed: UInt64, index: Int, windowEnd: Int64, accentSerial: inout Int) {
        rng = Rng(seed: seed, stream: UInt64(index) &+ 0x5045_5253_4F4E)
        self.windowEnd = windowEnd
        self.index = index
        makeTraits(accentSerial: &accentSerial)
    }

    /// (UTC offset minutes, DST rule, weight)
    private static let zones: [(Int, UInt8, Int)] = [
        (540, 0, 38), (0, 0, 8), (-300, 1, 12), (-480, 1, 7), (60, 2, 10), (0, 2, 5),
        (330, 0, 6), (600, 0, 4), (-180, 0, 5), (480, 0, 5),
    ]
    private static let zoneWeights = zones.map(\.2)
    private static let zoneTotal = zoneWeights.reduce(0, +)
    private static let firstNames = ["john", "mika", "ana", "li", "sam", "yuki", "omar", "eva"]

    private mutating func makeTraits(accentSerial: inout Int) {
        let z = rng.weighted(PersonBuilder.zoneWeights, total: PersonBuilder.zoneTotal)
        person.zoneBase = PersonBuilder.zones[z].0
        person.zoneRule = PersonBuilder.zones[z].1

        hasAccount = rng.chance(0.55)
        activateWithCuid = hasAccount && rng.chance(0.4)
        let preexisting = hasAccount && rng.chance(0.08)
        knowsCuidAtFirstLaunch = activateWithCuid && (preexisting || rng.chance(0.3))
        twoAccounts = hasAccount && rng.chance(0.05)
        variantB = rng.chance(0.3)
        firstOnboarding = rng.chance(0.7) ? 0 : 1

        let n = index + 1000
        var primary = ""
        if hasAccount {
            switch rng.below(100) {
            case 0..<38: primary = "user_\(n)"
            case 38..<63: primary = "\(PersonBuilder.firstNames[rng.below(8)]).\(n)@example.com"
            case 63..<76: primary = "\(9_000_000 + n * 7)"
            case 76..<86:
                var b = ByteBuffer(capacity: 40)
                b.uuid(rng.next(), rng.next(), upper: true)
                primary = String(decoding: UnsafeRawBufferPointer(start: b.base, count: b.count), as: UTF8.self)
                b.release()
            case 86..<93: primary = "ユーザー\(n)"
            default:
                // NFC / NFD pair: "renée.K" twice, two different customers.
                let k = accentSerial / 2
                primary = accentSerial % 2 == 0 ? "ren\u{00E9}e.\(k)" : "rene\u{0301}e.\(k)"
                accentSerial += 1
            }
            person.cuids.append(JStr(primary))
            cuidProfile.append(-1)
            if twoAccounts {
                person.cuids.append(JStr("work_\(n)@corp.example"))
                cuidProfile.append(-1)
            }
        }
        if primary.contains("@") {
            person.email = person.cuids[0]
        } else {
            person.email = JStr(rng.chance(0.2) ? "User\(n)@Example.COM" : "user\(n)@example.com")
        }
        if preexisting { cuidProfile[0] = newProfile(cuid: 1) }
    }

    // MARK: building blocks

    private mutating func newProfile(cuid: UInt8) -> Int {
        person.profileHi.append(rng.next())
        person.profileLo.append(rng.next())
        profileCuid.append(cuid)
        return person.profileHi.count - 1
    }

    private mutating func newDevice() -> Int {
        let android = rng.chance(0.35)
        let prefRoll = rng.below(100)
        let pref: UInt8
        switch prefRoll {
        case 0..<52: pref = 0
        case 52..<66: pref = 1
        case 66..<78: pref = 2
        case 78..<87: pref = 3
        case 87..<92: pref = 4
        default: pref = 5
        }
        person.devices.append(DeviceInfo(
            hi: rng.next(), lo: rng.next(), upper: !android && rng.chance(0.9), android: android,
            tsPref: pref, extras: extras(),
            appVersion: UInt8(rng.below(tables.appVersionCount)), osVersion: UInt8(rng.below(tables.osVersionCount)),
            locale: UInt8(rng.below(tables.localeCount)), metaLite: rng.chance(0.08), eventIdUpper: rng.chance(0.1)))
        return person.devices.count - 1
    }

    /// Which ignored keys a device's SDK adds (bits: platform, app_version, sdk_version,
    /// os_version, locale, context object, legacy `eventId`).
    private mutating func extras() -> UInt8 {
        var x: UInt8 = 0
        for (bit, p) in [(0, 0.6), (1, 0.6), (2, 0.4), (3, 0.3), (4, 0.3), (5, 0.08), (6, 0.05)] where rng.chance(p) {
            x |= 1 << UInt8(bit)
        }
        return x
    }

    /// Sub-millisecond part for devices that report finer precision.
    /// The simulation clock runs in nanoseconds; a device reports milliseconds (most),
    /// microseconds or nanoseconds.
    private mutating func stamp(_ t0: Int64, device: Int) -> Int64 {
        let t = t0 - ((t0 % 1_000_000) + 1_000_000) % 1_000_000
        switch person.devices[device].tsPref {
        case 3: return t + Int64(rng.below(1000)) * 1000
        case 4: return t + Int64(rng.below(1_000_000))
        case 5: return rng.chance(0.3) ? t + Int64(rng.below(1000)) * 1000 : t
        default: return t
        }
    }

    private mutating func ms(_ lo: Int, _ hi: Int) -> Int64 {
        Int64(rng.between(lo, hi)) * 1_000_000
    }

    private mutating func add(_ kind: EventKind, _ t: Int64, _ ag: Agent, cuid: UInt8? = nil,
                              a: UInt16 = 0, b: UInt16 = 0, c: UInt32 = 0, flags: UInt8 = 0, exact: Bool = false) {
        guard person.events.count < PersonBuilder.maxEvents else { return }
        var at = exact ? t : stamp(t, device: ag.device)
        if kind == .unknown && (a == UnknownKind.subscriptionRenewed.rawValue || a == UnknownKind.accessLevelUpdated.rawValue) {
            at -= ((at % 1_000_000_000) + 1_000_000_000) % 1_000_000_000  // server-side: whole seconds
        }
        guard at < windowEnd else { return }
        person.events.append(Ev(t: at, kind: kind, device: UInt8(ag.device),
                                cuid: cuid ?? profileCuid[ag.profile], flags: flags,
                                profile: UInt16(ag.profile), a: a, b: b, c: c))
    }

    // MARK: the person's life

    mutating func build(arrival: Int64) -> Person {
        agents.append(Agent(device: newDevice(), nextT: arrival, reinstall: false))
        if rng.chance(hasAccount ? 0.16 : 0.04) {
            let later = arrival + hour + Int64(rng.exponential(5.0) * Double(day))
            agents.append(Agent(device: newDevice(), nextT: later, reinstall: false))
        }
        while person.events.count < PersonBuilder.maxEvents {
            var best = -1
            for i in agents.indices where agents[i].active {
                if best < 0 || agents[i].nextT < agents[best].nextT { best = i }
            }
            if best < 0 || agents[best].nextT >= windowEnd { break }
            var ag = agents[best]
            var spawn: Agent? = nil
            if !ag.installed { install(&ag) } else { session(&ag, spawn: &spawn) }
            agents[best] = ag
            if let s = spawn { agents.append(s) }
        }
        // Person-local time order (agents interleave rarely: a stable insertion sort, ties keep
        // generation order).
        person.events.withUnsafeMutableBufferPointer { e in
            var i = 1
            while i < e.count {
                let x = e[i]
                var j = i
                while j > 0 && e[j - 1].t > x.t {
                    e[j] = e[j - 1]
                    j -= 1
                }
                e[j] = x
                i += 1
            }
        }
        return person
    }

    private mutating func install(_ ag: inout Agent) {
        var t = ag.nextT
        ag.installed = true
        // The app knows the customer user ID at launch when it is configured up front, or
        // after a reinstall that kept the login in the keychain.
        let known = !cuidProfile.isEmpty && (knowsCuidAtFirstLaunch
            || (ag.reinstall && cuidProfile[account] >= 0 && rng.chance(0.7)))
        if activateWithCuid && known {
            // activate(with: customerUserId): an ID that owns a profile lands on it, a new one is linked.
            if cuidProfile[account] < 0 { cuidProfile[account] = newProfile(cuid: UInt8(account + 1)) }
            ag.profile = cuidProfile[account]
        } else {
            ag.profile = newProfile(cuid: 0)
        }
        let activateT = stamp(t, device: ag.device)
        add(.activate, activateT, ag, exact: true)
        t += ms(800, 4000)
        let onboard = onboarded ? rng.chance(0.12) : rng.chance(0.85)
        var tiedIdentifyDone = false
        if onboard {
            t = runOnboarding(&ag, onboarding: onboarded ? rng.below(2) : firstOnboarding, start: t)
            onboarded = true
        } else if hasAccount && profileCuid[ag.profile] == 0 && rng.chance(0.1) {
            // identify fired in the same millisecond as activate: a tie only event_id orders.
            identify(&ag, at: activateT, cuidIndex: account, tie: true)
            tiedIdentifyDone = true
        }
        if !tiedIdentifyDone && hasAccount && profileCuid[ag.profile] == 0 && rng.chance(0.6) {
            t += ms(5_000, 600_000)
            identify(&ag, at: t, cuidIndex: account)
        }
        sessionExtras(ag, &t)
        ag.nextT = nextSession(after: t)
    }

    private mutating func session(_ ag: inout Agent, spawn: inout Agent?) {
        var t = ag.nextT
        if ag.sessions > 0 && rng.chance(0.17) {
            ag.active = false
            if rng.chance(0.3) && person.devices.count < PersonBuilder.maxDevices {
                // reinstall: same phone, new device_id
                let back = t + 10 * minute + Int64(rng.exponential(1.5) * Double(day))
                spawn = Agent(device: newDevice(), nextT: back, reinstall: true)
            }
            return
        }
        ag.sessions += 1
        // relaunch
        var passCuid: Int? = nil
        if activateWithCuid && !cuidProfile.isEmpty {
            if profileCuid[ag.profile] != 0 {
                passCuid = Int(profileCuid[ag.profile]) - 1
            } else if ag.justLoggedOut && rng.chance(0.6) {
                passCuid = account  // the app remembers who logged in last: switch by sdk_activate
            }
        }
        if let k = passCuid {
            if cuidProfile[k] < 0 { cuidProfile[k] = ag.profile; profileCuid[ag.profile] = UInt8(k + 1) }
            ag.profile = cuidProfile[k]
        }
        ag.justLoggedOut = false
        add(.activate, t, ag)
        t += ms(500, 3000)
        sessionExtras(ag, &t)
        if !ag.upsellDone && rng.chance(0.07) {
            ag.upsellDone = true
            t = runOnboarding(&ag, onboarding: 2, start: t + ms(1000, 20_000))
        }
        if hasAccount && profileCuid[ag.profile] == 0 {
            if rng.chance(0.45) {
                t += ms(2000, 300_000)
                identify(&ag, at: t, cuidIndex: account)
            }
        } else if hasAccount {
            if rng.chance(0.03) {
                // identify with the ID the profile already has: no switch
                t += ms(1000, 60_000)
                identify(&ag, at: t, cuidIndex: Int(profileCuid[ag.profile]) - 1)
            }
            if rng.chance(0.09) {
                t += ms(10_000, 900_000)
                let logoutT = stamp(t, device: ag.device)
                ag.profile = newProfile(cuid: 0)
                add(.logout, logoutT, ag, exact: true)
                ag.justLoggedOut = true
                if rng.chance(0.35) {
                    // immediate re-login (maybe the other account), often in the same instant
                    if twoAccounts && rng.chance(0.6) { account = 1 - account }
                    if rng.chance(0.6) {
                        identify(&ag, at: logoutT, cuidIndex: account, tie: true)
                    } else {
                        identify(&ag, at: logoutT + ms(300, 5000), cuidIndex: account)
                    }
                    ag.justLoggedOut = false
                }
            }
        }
        ag.nextT = nextSession(after: t)
    }

    /// identify(cuid): a new ID links the current profile; an ID that owns a profile switches to it.
    /// `tie`: `t` is an already stamped instant shared with the previous identity event.
    private mutating func identify(_ ag: inout Agent, at t: Int64, cuidIndex k: Int, tie: Bool = false) {
        if cuidProfile[k] < 0 {
            cuidProfile[k] = ag.profile
            profileCuid[ag.profile] = UInt8(k + 1)
        } else {
            ag.profile = cuidProfile[k]
        }
        add(.identify, t, ag, cuid: UInt8(k + 1), exact: tie)
    }

    private mutating func nextSession(after t: Int64) -> Int64 {
        var n = t + 10 * minute + Int64(rng.exponential(1.3) * Double(day))
        let localHour = Int(floorDiv(n + Int64(person.zoneBase) * minute, hour) % 24)
        if localHour < 7 { n += Int64(7 - localHour) * hour + Int64(rng.below(90)) * minute }
        return n
    }

    private mutating func sessionExtras(_ ag: Agent, _ t: inout Int64) {
        if rng.chance(0.3) {
            add(.unknown, t, ag, a: UnknownKind.sessionStart.rawValue, c: UInt32(truncatingIfNeeded: rng.next()))
            t += ms(100, 2000)
        }
        if rng.chance(0.35) {
            t += ms(2000, 120_000)
            add(.unknown, t, ag, a: UnknownKind.paywallShown.rawValue, c: UInt32(truncatingIfNeeded: rng.next()))
            if rng.chance(0.12) {
                t += ms(5000, 60_000)
                add(.unknown, t, ag, a: UnknownKind.purchaseCompleted.rawValue, c: UInt32(truncatingIfNeeded: rng.next()))
                if rng.chance(0.8) {
                    t += ms(200, 3000)
                    add(.unknown, t, ag, a: UnknownKind.accessLevelUpdated.rawValue, c: UInt32(truncatingIfNeeded: rng.next()))
                }
            }
        }
        if rng.chance(0.02) {
            add(.unknown, t + ms(1000, 100_000), ag, a: UnknownKind.subscriptionRenewed.rawValue,
                c: UInt32(truncatingIfNeeded: rng.next()))
        }
    }

    // MARK: onboarding

    private mutating func runOnboarding(_ ag: inout Agent, onboarding o: Int, start: Int64) -> Int64 {
        let def = tables.onboardings[o]
        let screenCount = Int(def.screenCount)
        var t = start
        func a(_ s: Int) -> UInt16 { UInt16(o << 8 | s) }
        add(.analytics, t, ag, a: a(0), b: Catalog.started)
        var s = 0
        var backs = 0
        while s < screenCount {
            let screen = tables.screens[Int(def.screenStart) + s]
            t += ms(300, 3000)
            add(.analytics, t, ag, a: a(s), b: Catalog.presented)
            if s == 1 { add(.analytics, t + ms(0, 40), ag, a: a(s), b: Catalog.secondPresented) }
            if screen.question0 >= 0 {
                t = answer(ag, question: Int(screen.question0), onboarding: o, screen: s, start: t + ms(1500, 20_000))
            }
            if screen.question1 >= 0 {
                t = answer(ag, question: Int(screen.question1), onboarding: o, screen: s, start: t + ms(1500, 20_000))
            }
            if screen.collectsEmail {
                t += ms(100, 800)
                add(.analytics, t, ag, a: a(s), b: Catalog.emailCollected)
                if hasAccount && profileCuid[ag.profile] == 0 && rng.chance(0.5) {
                    t += ms(500, 4000)
                    identify(&ag, at: t, cuidIndex: account)  // sign-up inside the onboarding
                }
            }
            if rng.chance(0.07) { return t }  // drop-off
            t += ms(200, 2000)
            add(.analytics, t, ag, a: a(s), b: Catalog.completedScreen)
            if s >= 2 && backs < 2 && rng.chance(0.05) {
                backs += 1
                s -= 1  // back to the previous screen: answers change
                continue
            }
            s += 1
        }
        t += ms(100, 1500)
        add(.analytics, t, ag, a: a(screenCount - 1), b: Catalog.completed)
        return t
    }

    private mutating func answer(_ ag: Agent, question qi: Int, onboarding o: Int, screen s: Int, start: Int64) -> Int64 {
        let q = tables.questions[qi]
        var t = start
        let a = UInt16(o << 8 | s)
        let b = UInt16(qi)
        let flags: UInt8 = (variantB && o == 0) ? Ev.variantB : 0
        switch q.type {
        case .select:
            var pick = tables.pick(q, &rng)
            add(.state, t, ag, a: a, b: b, c: UInt32(pick), flags: flags)
            var changes = 0
            while changes < 2 && rng.chance(0.12) {
                changes += 1
                t += ms(800, 15_000)
                let other = tables.pick(q, &rng)
                pick = other == pick ? (pick + 1) % Int(q.optionCount) : other
                add(.state, t, ag, a: a, b: b, c: UInt32(pick), flags: flags)
            }
            if q.hasOtherInput && rng.chance(0.05) {
                t += ms(2000, 20_000)
                add(.state, t, ag, a: a, b: b, c: UInt32(rng.below(tables.otherAnswerCount)), flags: flags | Ev.otherInput)
            }
        case .multiSelect:
            var mask: UInt32 = 0
            let toggles = rng.between(1, 4)
            for _ in 0..<toggles {
                let k = tables.pick(q, &rng)
                mask ^= 1 << UInt32(k)
                let glitch: UInt8 = mask != 0 && rng.chance(0.04) ? Ev.dupGlitch : 0
                add(.state, t, ag, a: a, b: b, c: mask, flags: flags | glitch)
                t += ms(400, 6000)
            }
            if mask != 0 && rng.chance(0.06) {
                mask = 0  // cleared everything: an empty final answer
                add(.state, t, ag, a: a, b: b, c: 0, flags: flags)
            }
        case .input:
            switch q.input {
            case .name:
                add(.state, t, ag, a: a, b: b, c: UInt32(rng.below(tables.nameCount)))
                if rng.chance(0.1) {
                    t += ms(1000, 9000)
                    add(.state, t, ag, a: a, b: b, c: UInt32(rng.below(tables.nameCount)))
                }
            case .number:
                add(.state, t, ag, a: a, b: b, c: UInt32(rng.between(13, 80)))
            default:
                add(.state, t, ag, a: a, b: b, c: 0)
            }
        case .datePicker:
            let y = UInt32(q.monthOnly ? rng.between(2026, 2027) : rng.between(1950, 2010))
            let m = UInt32(rng.between(1, 12))
            let d = UInt32(rng.between(1, 28))
            var absent: UInt32 = 0
            if q.monthOnly { absent = 1 } else if rng.chance(0.1) { absent = 1 } else if rng.chance(0.03) { absent = 3 }
            add(.state, t, ag, a: a, b: b, c: d | m << 5 | y << 9 | absent << 24)
        case .rating:
            add(.state, t, ag, a: a, b: b, c: UInt32(rng.between(1, 5)))
        }
        return t
    }
}
