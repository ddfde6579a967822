/// The static content of the synthetic world: onboardings, their screens and questions
/// (modelled on seed 000's `onStateUpdatedAction` payloads), answer options with
/// popularity weights, free-text inputs, unknown event payloads and ignored extra keys.
///
/// Three onboardings:
/// * `onboarding_main_v3` (6 screens): goal (select, labels with a comma and an emoji),
///   interests (multiSelect, a label with `"quotes"`, one with an escaped newline, Japanese),
///   name (input) + birthday (datePicker) on one screen, e-mail (input, fires
///   `user_email_collected`), plan (select; people in label variant B see other labels).
/// * `quiz_ja_2026` (4 screens): experience (select, Japanese labels), favourite drinks
///   (multiSelect with an NFC `café` and an NFD `café` option id — two different ids;
///   options without a `label` key and with `"value": null`),
///   budget (select, labels with `<`, `$`, `"`, `,`), age (input number) + start month
///   (datePicker, day always absent).
/// * `upsell_v2` (2 screens): `plan_selector` again (same element id as in the main
///   onboarding, a different question) and `app_rating` (params type `rating`, a type the
///   analyzer must accept and ignore).
/// Every string is kept pre-escaped twice: plain UTF-8 and all-ASCII `\uXXXX` spelling.

struct JStr: Sendable {
    let plain: [UInt8]
    let escaped: [UInt8]
    init(_ s: String) {
        plain = jsonEscaped(s, asciiOnly: false)
        escaped = s.utf8.contains(where: { $0 >= 0x80 || $0 == 0x2F }) ? jsonEscaped(s, asciiOnly: true) : plain
    }
    @inline(__always) func bytes(_ escapedForm: Bool) -> [UInt8] { escapedForm ? escaped : plain }
}

enum QuestionType: UInt8, Sendable {
    case select, multiSelect, input, datePicker, rating
}

enum InputKind: UInt8, Sendable { case none, name, email, number }

struct OptionDef: Sendable {
    let id: JStr
    let value: JStr
    let label: JStr
    let labelB: JStr
    let weight: Int
    /// 0 written, 1 key absent, 2 `null` (null counts as absent).
    let valueMode: UInt8
    /// 0 written, 1 key absent.
    let labelMode: UInt8
}

struct QuestionDef: Sendable {
    let elementId: JStr
    let type: QuestionType
    let options: [OptionDef]
    let totalWeight: Int
    let input: InputKind
    /// datePicker: the day is never sent (month/year picker).
    let monthOnly: Bool
    /// A select that sometimes also receives an `input` event ("Other: …") for the same element.
    let hasOtherInput: Bool

    init(_ elementId: String, _ type: QuestionType, options: [OptionDef] = [], input: InputKind = .none,
         monthOnly: Bool = false, hasOtherInput: Bool = false) {
        self.elementId = JStr(elementId)
        self.type = type
        self.options = options
        self.totalWeight = options.reduce(0) { $0 + $1.weight }
        self.input = input
        self.monthOnly = monthOnly
        self.hasOtherInput = hasOtherInput
    }
}

struct ScreenDef: Sendable {
    let clientId: JStr
    let questions: [Int]
    let collectsEmail: Bool
}

struct OnboardingDef: Sendable {
    let id: JStr
    let screens: [ScreenDef]
}

/// A string in `RenderTables.strings`: plain and `\u`-escaped spellings.
struct SRef {
    var off: Int32 = 0
    var len: Int32 = 0
    var eoff: Int32 = 0
    var elen: Int32 = 0
}

struct RQuestion {
    var elementId: SRef
    var type: QuestionType
    var input: InputKind
    var optionStart: Int32
    var optionCount: Int32
    var totalWeight: Int32
    var monthOnly: Bool
    var hasOtherInput: Bool
}

struct ROption {
    var id: SRef, value: SRef, label: SRef, labelB: SRef
    var valueMode: UInt8
    var labelMode: UInt8
    var weight: Int32
}

struct RScreen {
    var clientId: SRef
    var question0: Int16  // -1: none
    var question1: Int16
    var collectsEmail: Bool
}

struct ROnboarding {
    var id: SRef
    var screenStart: Int32
    var screenCount: Int32
}

/// The catalog flattened into plain-old-data tables (no reference counting on the hot path).
/// Allocated once for the process and never freed.
struct RenderTables: @unchecked Sendable {
    let strings: UnsafeMutablePointer<UInt8>
    let questions: UnsafeMutablePointer<RQuestion>
    let options: UnsafeMutablePointer<ROption>
    let screens: UnsafeMutablePointer<RScreen>
    let onboardings: UnsafeMutablePointer<ROnboarding>
    /// names, otherAnswers, typeNames, analyticsNames, appVersions, osVersions, locales,
    /// products, placements — each a run of SRefs starting at `listStart[k]`.
    let lists: UnsafeMutablePointer<SRef>
    let listStart: (Int, Int, Int, Int, Int, Int, Int, Int, Int)

    init(_ c: Catalog) {
        var bytes: [UInt8] = []
        func ref(_ j: JStr) -> SRef {
            var r = SRef()
            r.off = Int32(bytes.count); r.len = Int32(j.plain.count); bytes += j.plain
            r.eoff = Int32(bytes.count); r.elen = Int32(j.escaped.count); bytes += j.escaped
            return r
        }
        var qs: [RQuestion] = [], os: [ROption] = []
        for q in c.questions {
            qs.append(RQuestion(elementId: ref(q.elementId), type: q.type, input: q.input,
                                optionStart: Int32(os.count), optionCount: Int32(q.options.count),
                                totalWeight: Int32(q.totalWeight), monthOnly: q.monthOnly, hasOtherInput: q.hasOtherInput))
            for o in q.options {
                os.append(ROption(id: ref(o.id), value: ref(o.value), label: ref(o.label), labelB: ref(o.labelB),
                                  valueMode: o.valueMode, labelMode: o.labelMode, weight: Int32(o.weight)))
            }
        }
        var ss: [RScreen] = [], obs: [ROnboarding] = []
        for o in c.onboardings {
            obs.append(ROnboarding(id: ref(o.id), screenStart: Int32(ss.count), screenCount: Int32(o.screens.count)))
            for sc in o.screens {
                precondition(sc.questions.count <= 2)
                ss.append(RScreen(clientId: ref(sc.clientId),
                                  question0: sc.questions.count > 0 ? Int16(sc.questions[0]) : -1,
                                  question1: sc.questions.count > 1 ? Int16(sc.questions[1]) : -1,
                                  collectsEmail: sc.collectsEmail))
            }
        }
        var ls: [SRef] = []
        var starts: [Int] = []
        for list in [c.names, c.otherAnswers, c.typeNames, c.analyticsNames, c.appVersions, c.osVersions,
                     c.locales, c.products, c.placements] {
            starts.append(ls.count)
            for j in list { ls.append(ref(j)) }
        }
        func copy<T>(_ a: [T]) -> UnsafeMutablePointer<T> {
            let p = UnsafeMutablePointer<T>.allocate(capacity: max(a.count, 1))
            p.initialize(from: a, count: a.count)
            return p
        }
        strings = copy(bytes)
        questions = copy(qs)
        options = copy(os)
        screens = copy(ss)
        onboardings = copy(obs)
        lists = copy(ls)
        listStart = (starts[0], starts[1], starts[2], starts[3], starts[4], starts[5], starts[6], starts[7], starts[8])
    }

    var nameCount: Int { listStart.1 - listStart.0 }
    var otherAnswerCount: Int { listStart.2 - listStart.1 }
    var appVersionCount: Int { listStart.5 - listStart.4 }
    var osVersionCount: Int { listStart.6 - listStart.5 }
    var localeCount: Int { listStart.7 - listStart.6 }

    /// Option index (within the question) drawn by popularity weight.
    @inline(__always) func pick(_ q: RQuestion, _ rng: inout Rng) -> Int {
        var r = Int32(rng.below(Int(q.totalWeight)))
        var i = 0
        while i < Int(q.optionCount) - 1 {
            let w = options[Int(q.optionStart) + i].weight
            if r < w { return i }
            r -= w
            i += 1
        }
        return i
    }

    @inline(__always) func name(_ i: Int) -> SRef { lists[listStart.0 + i] }
    @inline(__always) func otherAnswer(_ i: Int) -> SRef { lists[listStart.1 + i] }
    @inline(__always) func typeName(_ i: Int) -> SRef { lists[listStart.2 + i] }
    @inline(__always) func analyticsName(_ i: Int) -> SRef { lists[listStart.3 + i] }
    @inline(__always) func appVersion(_ i: Int) -> SRef { lists[listStart.4 + i] }
    @inline(__always) func osVersion(_ i: Int) -> SRef { lists[listStart.5 + i] }
    @inline(__always) func locale(_ i: Int) -> SRef { lists[listStart.6 + i] }
    @inline(__always) func product(_ i: Int) -> SRef { lists[listStart.7 + i] }
    @inline(__always) func placement(_ i: Int) -> SRef { lists[listStart.8 + i] }
}

final class Catalog: Sendable {
    static let shared = Catalog()
    static let tables = RenderTables(Catalog.shared)

    let questions: [QuestionDef]
    let onboardings: [OnboardingDef]
    let names: [JStr]
    let otherAnswers: [JStr]
    let typeNames: [JStr]  // by QuestionType raw value
    let analyticsNames: [JStr]
    let appVersions: [JStr]
    let osVersions: [JStr]
    let locales: [JStr]
    let products: [JStr]
    let placements: [JStr]

    /// Indices into `analyticsNames`.
    static let started: UInt16 = 0, presented: UInt16 = 1, completedScreen: UInt16 = 2,
        secondPresented: UInt16 = 3, emailCollected: UInt16 = 4, completed: UInt16 = 5

    private init() {
        func opt(_ id: String, _ value: String, _ label: String, _ w: Int, b: String? = nil,
                 valueMode: UInt8 = 0, labelMode: UInt8 = 0) -> OptionDef {
            OptionDef(id: JStr(id), value: JStr(value), label: JStr(label), labelB: JStr(b ?? label), weight: w,
                      valueMode: valueMode, labelMode: labelMode)
        }
        let q: [QuestionDef] = [
            // 0
            QuestionDef("goal_selector", .select, options: [
                opt("lose_weight", "lose_weight", "Lose weight", 40),
                opt("build_muscle", "build_muscle", "Build muscle", 25),
                opt("stay_fit", "stay_fit", "Stay fit, healthy & happy", 25),
                opt("reduce_stress", "reduce_stress", "Reduce stress 🧘", 10),
            ], hasOtherInput: true),
            // 1
            QuestionDef("interests_selector", .multiSelect, options: [
                opt("interest_1", "sports", "Sports", 30),
                opt("interest_2", "music", "Music", 25),
                opt("interest_3", "cooking", "Cooking \"at home\"", 15),
                opt("interest_4", "travel", "Travel ✈️", 15),
                opt("interest_5", "reading", "Reading\nand writing", 8),
                opt("interest_6", "gaming", "ゲーム", 7),
            ]),
            // 2
            QuestionDef("name_input", .input, input: .name),
            // 3
            QuestionDef("birthday_picker", .datePicker),
            // 4
            QuestionDef("email_input", .input, input: .email),
            // 5
            QuestionDef("plan_selector", .select, options: [
                opt("option_1", "premium", "Premium Plan", 45, b: "Premium Plan — best value"),
                opt("option_2", "basic", "Basic Plan", 35, b: "Basic"),
                opt("option_3", "trial", "7-day trial", 20, b: "Try free for 7 days"),
            ]),
            // 6
            QuestionDef("experience_level", .select, options: [
                opt("beginner", "beginner", "初心者", 50),
                opt("intermediate", "intermediate", "中級者", 35),
                opt("advanced", "advanced", "上級者 💪", 15),
            ]),
            // 7 — NFC "café" and NFD "café": different ids, byte-wise.
            QuestionDef("favorite_drinks", .multiSelect, options: [
                opt("caf\u{00E9}", "cafe_nfc", "Café au lait", 30),
                opt("cafe\u{0301}", "cafe_nfd", "Café crème", 20),
                opt("th\u{00E9}", "tea", "Thé vert, sans sucre", 20),
                opt("matcha", "matcha", "抹茶", 20),
                opt("water", "water", "Water 💧", 10),
                opt("juice", "juice", "", 6, labelMode: 1),  // no label key
                opt("soda", "", "Soda", 4, valueMode: 2),  // "value": null
            ]),
            // 8
            QuestionDef("budget", .select, options: [
                opt("under_10", "low", "< $10", 40),
                opt("10_50", "mid", "$10–$50", 45),
                opt("over_50", "high", "\"Premium\" > $50, or more", 15),
            ]),
            // 9
            QuestionDef("age_input", .input, input: .number),
            // 10
            QuestionDef("start_month", .datePicker, monthOnly: true),
            // 11 — same element id as question 5, other onboarding: another question.
            QuestionDef("plan_selector", .select, options: [
                opt("yearly_50", "yearly", "Yearly – 50% off", 60),
                opt("monthly", "monthly", "Monthly", 40),
            ]),
            // 12
            QuestionDef("app_rating", .rating),
        ]
        questions = q
        func screen(_ id: String, _ qs: [Int], email: Bool = false) -> ScreenDef {
            ScreenDef(clientId: JStr(id), questions: qs, collectsEmail: email)
        }
        onboardings = [
            OnboardingDef(id: JStr("onboarding_main_v3"), screens: [
                screen("welcome_screen", []),
                screen("goal_screen", [0]),
                screen("interests_screen", [1]),
                screen("profile_screen", [2, 3]),
                screen("email_screen", [4], email: true),
                screen("plan_screen", [5]),
            ]),
            OnboardingDef(id: JStr("quiz_ja_2026"), screens: [
                screen("level_screen", [6]),
                screen("drinks_screen", [7]),
                screen("budget_screen", [8]),
                screen("age_screen", [9, 10]),
            ]),
            OnboardingDef(id: JStr("upsell_v2"), screens: [
                screen("offer_screen", [11]),
                screen("rating_screen", [12]),
            ]),
        ]
        names = [
            "John Doe", "José Álvarez", "田中 太郎", "Anne \"Annie\" O'Neil", "Zoë, the 2nd",
            "Мария Иванова", "محمد علي", "Chloé 😀", "  padded name  ", "Søren Kierkegaard",
            "李小龍", "Back\\slash", "Tab\tName", "Ünïcödé Ünïcörn",
        ].map(JStr.init)
        otherAnswers = ["Other: run a marathon", "Other: sleep better, eat less", "その他: 体力づくり"].map(JStr.init)
        typeNames = ["select", "multiSelect", "input", "datePicker", "rating"].map(JStr.init)
        analyticsNames = [
            "onboarding_started", "screen_presented", "screen_completed", "second_screen_presented",
            "user_email_collected", "onboarding_completed",
        ].map(JStr.init)
        appVersions = ["3.2.1", "3.2.0", "3.1.7", "3.3.0-beta.2"].map(JStr.init)
        osVersions = ["18.1", "17.6.1", "14", "15", "13"].map(JStr.init)
        locales = ["ja_JP", "en_US", "de_DE", "fr_FR", "pt_BR"].map(JStr.init)
        products = ["com.example.premium.yearly", "com.example.premium.monthly", "com.example.lifetime"].map(JStr.init)
        placements = ["onboarding_end", "settings", "home_banner", "paywall/δ-test"].map(JStr.init)
    }
}
