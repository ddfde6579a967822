/// The emitter: merges the lives of all people into one export in timestamp order and
/// renders each event as one NDJSON line.
///
/// People arrive as a Poisson process over the window (rate adapted so the export has
/// about `events` events); each arriving person's script (World.swift) is built at once
/// and kept only while the person is alive, in a min-heap keyed by the next event's
/// instant, so memory is bounded by the people alive at a time, not by the export.
/// Rendering varies key order, whitespace, timestamp spelling (Z / z / ±HH:MM / -00:00,
/// 0–9 fraction digits, lowercase `t`, epoch milliseconds), the anonymous
/// `customer_user_id` spelling (null / absent / ""), `\u` escapes, and adds ignored keys.
/// Noise (Noise.swift) is injected per event with probability `noise`.

struct EventID {
    var hi: UInt64
    var lo: UInt64
    var upper: Bool
}

struct TsStyle {
    var epoch = false
    var zone: UInt8 = 0
    var lowerT = false
    var digits = 3
    var offset = 0
}

struct Style {
    var order: UInt32 = Engine.orders[0]
    var spaced = false
    var anon: UInt8 = 0  // 0 null, 1 absent, 2 ""
    var escaped = false
    var escapeId = false
    var ts = TsStyle()
    var actionVariant: UInt8 = 0
    var optionVariant: UInt8 = 0
    var nulls = false
    // conflicting-copy alterations
    var altLabel = false
    var altName = false
    var typeOverride = false
    var altProfile: UInt64 = 0
    var altDevice: UInt64 = 0
    var altCuid: UInt64 = 0
    var tsShift: Int64 = 0
    // ignored-key variations
    var receivedAt: Int64 = 0
    var dupIgnoredKey = false
}

protocol HeapOrdered { static func before(_ a: Self, _ b: Self) -> Bool }

struct BinaryHeap<T: HeapOrdered> {
    var items: [T] = []
    var isEmpty: Bool { items.isEmpty }
    var top: T? { items.first }

    mutating func push(_ x: T) {
        items.append(x)
        items.withUnsafeMutableBufferPointer { h in
            var i = h.count - 1
            while i > 0 {
                let p = (i - 1) >> 2
                if T.before(x, h[p]) { h[i] = h[p]; i = p } else { break }
            }
            h[i] = x
        }
    }

    @discardableResult mutating func pop() -> T {
        let first = items[0]
        let last = items.removeLast()
        if !items.isEmpty { siftDown(last) }
        return first
    }

    mutating func replaceTop(_ x: T) {
        siftDown(x)
    }

    /// Places `x` at the root and sifts it down. 4-ary: shallower than binary, and the
    /// children of a node share a cache line.
    private mutating func siftDown(_ x: T) {
        items.withUnsafeMutableBufferPointer { h in
            let n = h.count
            var i = 0
            while true {
                let c = 4 * i + 1
                if c >= n { break }
                var m = c
                let end = min(c + 4, n)
                var j = c + 1
                while j < end {
                    if T.before(h[j], h[m]) { m = j }
                    j += 1
                }
                if T.before(h[m], x) {
                    h[i] = h[m]
                    i = m
                } else {
                    break
                }
            }
            h[i] = x
        }
    }
}

struct HeapEntry: HeapOrdered {
    var t: Int64
    var seq: UInt32
    var slot: Int32  // -1: next arrival
    @inline(__always) static func before(_ a: HeapEntry, _ b: HeapEntry) -> Bool {
        a.t < b.t || (a.t == b.t && a.seq < b.seq)
    }
}

enum LineAccount {
    case event(EventKind, Int64)
    case duplicate(conflict: Bool)
    case reject(Int)
    case blank
}

struct Delayed: HeapOrdered {
    var release: Int64
    var seq: UInt64
    var bytes: [UInt8]
    var account: LineAccount
    static func before(_ a: Delayed, _ b: Delayed) -> Bool {
        a.release < b.release || (a.release == b.release && a.seq < b.seq)
    }
}

struct Engine {
    /// Key orders: nibbles, low first. 0 id, 1 type, 2 timestamp, 3 device, 4 profile,
    /// 5 customer user id, 6 action / payload, 7 extra keys.
    static let orders: [UInt32] = [
        0x7654_3210, 0x7653_4201, 0x6754_3012, 0x6543_2107, 0x7621_0543,
        0x7543_2160, 0x6543_7021, 0x7601_2345, 0x0123_4576,
    ]
    static let second: Int64 = 1_000_000_000
    static let minute: Int64 = 60 * second
    static let hour: Int64 = 60 * minute
    static let day: Int64 = 24 * hour

    let config: GeneratorConfiguration
    let cat = Catalog.shared
    let tables = Catalog.tables
    var out = ByteBuffer(capacity: 1 << 20)
    var scratch = ByteBuffer(capacity: 1 << 14)
    var rng: Rng
    var arrivalRng: Rng
    var heap = BinaryHeap<HeapEntry>()
    var delayed = BinaryHeap<Delayed>()
    var persons: [Person] = []
    var freeSlots: [Int32] = []
    var seq: UInt32 = 0
    var delayedSeq: UInt64 = 0
    let windowStart: Int64
    let windowEnd: Int64
    var lineCount = 0
    var lastLineEndLength = 0
    var personCount = 0
    var arrivalsOpen = true
    var meanArrivalGap: Double? = nil
    var accentSerial = 0
    var deck: [NoiseKind] = []
    var deckPosition = 0
    var pending: [NoiseKind] = []
    var report = GenerationReport()
    var started = false
    var hugeDone: Bool
    let hugeAt: Int
    var stripFinalLineEnd = false
    var nextLineCRLF = false

    init(_ config: GeneratorConfiguration) {
        self.config = config
        rng = Rng(seed: config.seed, stream: 0xE417)
        arrivalRng = Rng(seed: config.seed, stream: 0xA221_7A15)
        let d = parseISODate(config.startDate) ?? 0
        windowStart = d * Engine.day
        windowEnd = (d + Int64(config.days)) * Engine.day
        hugeDone = !config.includeHugeLine
        hugeAt = config.events * 2 / 5
        if config.noise > 0 {
            deck = NoiseKind.deck
            stripFinalLineEnd = rng.chance(0.5)
        }
    }

    func release() {
        out.release()
        scratch.release()
        for p in persons { p.releaseText() }
    }

    @inline(__always) mutating func nextSeq() -> UInt32 {
        seq &+= 1
        return seq
    }

    // MARK: driving

    mutating func fill(threshold: Int) -> Bool {
        if !started {
            started = true
            if config.bom {
                out.append("\u{FEFF}")
                report.bytes += 3
            }
            if config.events > 0 { scheduleArrival(after: windowStart) }
        }
        while out.count < threshold {
            if !step() { return false }
        }
        return true
    }

    mutating func finishText() {
        if stripFinalLineEnd && lastLineEndLength > 0 {
            out.count -= lastLineEndLength
            report.bytes -= lastLineEndLength
            lastLineEndLength = 0
        }
    }

    private mutating func step() -> Bool {
        guard let top = heap.top else {
            if !delayed.isEmpty {
                writeDelayed(delayed.pop())
                return true
            }
            if !hugeDone { emitHugeLines(context: nil); return true }
            return false
        }
        if let d = delayed.top, d.release <= top.t {
            writeDelayed(delayed.pop())
            return true
        }
        if top.slot < 0 {
            arrive(top.t)
            return true
        }
        let slot = Int(top.slot)
        let ev = persons[slot].events[persons[slot].next]
        emitReal(ev, slot: slot)
        persons[slot].next += 1
        let n = persons[slot].next
        if n < persons[slot].events.count {
            heap.replaceTop(HeapEntry(t: persons[slot].events[n].t, seq: nextSeq(), slot: top.slot))
        } else {
            heap.pop()
            persons[slot].releaseText()
            persons[slot] = Person()
            freeSlots.append(top.slot)
        }
        return true
    }

    private mutating func arrive(_ t: Int64) {
        heap.pop()
        var builder = PersonBuilder(seed: config.seed, index: personCount, windowEnd: windowEnd,
                                    accentSerial: &accentSerial)
        // Installs happen in the person's waking hours.
        var at = t
        let localHour = Int(floorDiv(t + Int64(builder.person.zoneBase) * Engine.minute, Engine.hour) % 24)
        if localHour < 7 { at += Int64(7 - localHour) * Engine.hour + Int64(arrivalRng.below(120)) * Engine.minute }
        var p = builder.build(arrival: at)
        prepareText(&p)
        personCount += 1
        report.people = personCount
        if !p.events.isEmpty {
            let slot: Int32
            if let s = freeSlots.popLast() {
                slot = s
                persons[Int(s)] = p
            } else {
                slot = Int32(persons.count)
                persons.append(p)
            }
            heap.push(HeapEntry(t: p.events[0].t, seq: nextSeq(), slot: slot))
        }
        scheduleArrival(after: t)
    }

    /// Mean time between arrivals (ns) so that the export holds about `events` events:
    /// a pilot of people (a separate stream, discarded) arriving uniformly over the window
    /// measures how many in-window events a person yields.
    private mutating func plannedGap() -> Double {
        if let g = meanArrivalGap { return g }
        var serial = 0
        var total = 0
        let pilots = 600
        let span = windowEnd - windowStart
        for k in 0..<pilots {
            var b = PersonBuilder(seed: config.seed ^ 0x9110_7000_0000_0000, index: k, windowEnd: windowEnd,
                                  accentSerial: &serial)
            let at = windowStart + span / Int64(pilots) * Int64(k) + Int64(arrivalRng.below(1 << 20))
            total += b.build(arrival: at).events.count
        }
        let perPerson = max(Double(total) / Double(pilots), 1)
        let gap = Double(span) * perPerson / Double(max(config.events, 1))
        meanArrivalGap = gap
        return gap
    }

    private mutating func scheduleArrival(after t: Int64) {
        guard arrivalsOpen else { return }
        let gap = plannedGap()
        var next = t + Int64(arrivalRng.exponential(gap)) + 1
        if personCount == 0 && next >= windowStart + (windowEnd - windowStart) / 10 {
            // never an empty export: the first person arrives early in the window
            next = windowStart + Int64(arrivalRng.below(Int((windowEnd - windowStart) / 10)))
        }
        if next >= windowEnd { arrivalsOpen = false; return }
        heap.push(HeapEntry(t: next, seq: nextSeq(), slot: -1))
    }

    // MARK: lines and accounting

    mutating func endLine(_ account: LineAccount) {
        if config.crlf || nextLineCRLF {
            out.byte2(0x0D, 0x0A)
            lastLineEndLength = 2
        } else {
            out.byte(0x0A)
            lastLineEndLength = 1
        }
        nextLineCRLF = false
        count(account)
    }

    mutating func count(_ account: LineAccount) {
        lineCount += 1
        switch account {
        case .blank:
            report.blankLines += 1
            return
        case .event(let kind, let t):
            report.events += 1
            if kind == .unknown { report.unknownEventType += 1 } else { report.eventsByType[Int(kind.rawValue)] += 1 }
            if report.firstEventNanoseconds.map({ t < $0 }) ?? true { report.firstEventNanoseconds = t }
            if report.lastEventNanoseconds.map({ t > $0 }) ?? true { report.lastEventNanoseconds = t }
        case .duplicate(let conflict):
            report.duplicates += 1
            if conflict { report.conflictingDuplicates += 1 }
        case .reject(let reason):
            report.rejectedByReason[reason] += 1
        }
        report.lines += 1
    }

    /// Writes `bytes` as one line (line end added).
    mutating func writeLine(_ bytes: [UInt8], _ account: LineAccount) {
        let before = out.count
        out.append(bytes)
        endLine(account)
        report.bytes += out.count - before
    }

    private mutating func writeDelayed(_ d: Delayed) {
        writeLine(d.bytes, d.account)
    }

    mutating func delay(_ bytes: [UInt8], until release: Int64, _ account: LineAccount) {
        delayedSeq += 1
        delayed.push(Delayed(release: release, seq: delayedSeq, bytes: bytes, account: account))
    }

    /// Renders an event into a detached byte array (no line end).
    mutating func renderDetached(_ ev: Ev, slot: Int, id: EventID, style: Style) -> [UInt8] {
        swap(&out, &scratch)
        out.count = 0
        renderEvent(ev, slot: slot, id: id, style: style)
        let bytes = out.bytes(from: 0, to: out.count)
        swap(&out, &scratch)
        return bytes
    }

    /// Renders an event as a line of the output.
    mutating func renderLine(_ ev: Ev, slot: Int, id: EventID, style: Style, _ account: LineAccount) {
        let before = out.count
        renderEvent(ev, slot: slot, id: id, style: style)
        endLine(account)
        report.bytes += out.count - before
    }

    // MARK: styles

    mutating func drawStyle(_ ev: Ev, slot: Int) -> Style {
        let dev = persons[slot].devices[Int(ev.device)]
        var s = Style()
        let r = rng.next()
        if r & 0xFF >= 150 {
            s.order = Engine.orders[1 + Int((r >> 8) % UInt64(Engine.orders.count - 1))]
        }
        s.spaced = (r >> 16) & 0x3F == 0
        let a = (r >> 22) & 0xF
        s.anon = a < 8 ? 0 : (a < 14 ? 1 : 2)
        s.escaped = (r >> 26) & 0xFF == 0
        let v = (r >> 34) & 0x7
        s.actionVariant = v < 5 ? 0 : (v < 7 ? 1 : 2)
        s.optionVariant = (r >> 37) & 0x7 == 0 ? 1 : 0
        s.ts = drawTimestampStyle(ev.t, dev: dev, slot: slot, bits: r >> 40)
        return s
    }

    mutating func drawTimestampStyle(_ t: Int64, dev: DeviceInfo, slot: Int, bits b: UInt64) -> TsStyle {
        var ts = TsStyle()
        let need = neededFractionDigits(t)
        switch dev.tsPref {
        case 0: ts.digits = 3
        case 1: ts.epoch = true
        case 2:
            ts.zone = 4
            ts.offset = persons[slot].offsetMinutes(at: t)
        case 3: ts.digits = 6
        case 4: ts.digits = 9
        default:
            ts.digits = need + Int((b >> 30) % UInt64(10 - need))
            switch (b >> 26) & 3 {
            case 0: ts.zone = 2
            case 1:
                ts.zone = 4
                ts.offset = persons[slot].offsetMinutes(at: t)
            default: ts.zone = 0
            }
        }
        if b & 0x3F == 0 { ts.lowerT = true }
        if ts.zone == 0 {
            if (b >> 6) & 0x3F == 0 { ts.zone = 1 }
            else if (b >> 12) & 0x7F == 0 { ts.zone = 2 }
            else if (b >> 19) & 0x7F == 0 { ts.zone = 3 }
        }
        if (b >> 33) & 0x3F == 0 && !ts.epoch { ts.digits = need + Int((b >> 40) % UInt64(10 - need)) }
        if ts.digits < need { ts.digits = need }
        if ts.epoch && need > 3 { ts.epoch = false }
        return ts
    }

    /// The same instant, spelled differently.
    mutating func respell(_ s: Style, _ ev: Ev, slot: Int) -> Style {
        var r = s
        let x = rng.next()
        r.order = Engine.orders[Int(x % UInt64(Engine.orders.count))]
        if x & 0x100 != 0 { r.spaced.toggle() }
        r.anon = UInt8((x >> 9) % 3)
        if (x >> 12) & 3 == 0 { r.escaped.toggle() }
        if (x >> 14) & 3 == 0 { r.escapeId = true }
        r.actionVariant = UInt8((x >> 16) % 3)
        if (x >> 20) & 1 == 0 { r.receivedAt = ev.t + Int64((x >> 24) % 5000) * 1_000_000 + 1 }
        let dev = persons[slot].devices[Int(ev.device)]
        var ts = drawTimestampStyle(ev.t, dev: dev, slot: slot, bits: rng.next())
        switch (x >> 21) & 7 {
        case 0: ts.epoch = neededFractionDigits(ev.t) <= 3
        case 1: ts.epoch = false; ts.zone = 4; ts.offset = [540, -300, 330, -600, 0, 60][Int((x >> 30) % 6)]
        case 2: ts.epoch = false; ts.zone = 3
        case 3: ts.epoch = false; ts.digits = 9
        default: ts.epoch = false; ts.lowerT.toggle()
        }
        r.ts = ts
        return r
    }

    // MARK: rendering

    @inline(__always) mutating func key(_ k: StaticString, _ first: inout Bool, _ spaced: Bool) {
        let n = k.utf8CodeUnitCount
        out.reserve(n + 6)
        var p = out.base + out.count
        if !first {
            p[0] = 0x2C
            p += 1
            if spaced { p[0] = 0x20; p += 1 }
        }
        first = false
        p[0] = 0x22
        (p + 1).update(from: k.utf8Start, count: n)
        p += n + 1
        p[0] = 0x22
        p[1] = 0x3A
        p += 2
        if spaced { p[0] = 0x20; p += 1 }
        out.count = p - out.base
    }

    mutating func writeTimestamp(_ ns: Int64, _ ts: TsStyle) {
        let need = neededFractionDigits(ns)
        if ts.epoch && need <= 3 {
            out.int(floorDiv(ns, 1_000_000))
            return
        }
        out.byte(0x22)
        out.rfc3339(ns: ns, zone: ts.zone, offsetMinutes: ts.offset, lowerT: ts.lowerT,
                    fractionDigits: max(ts.digits, need))
        out.byte(0x22)
    }

    mutating func writeEventId(_ id: EventID, escape: Bool) {
        out.byte(0x22)
        let p = out.count
        out.uuid(id.hi, id.lo, upper: id.upper)
        if escape {
            // first character as \u00XX
            let c = out.base[p]
            out.reserve(5)
            (out.base + p + 6).update(from: out.base + p + 1, count: 35)
            out.base[p] = 0x5C; out.base[p + 1] = 0x75; out.base[p + 2] = 0x30; out.base[p + 3] = 0x30
            let hexd: StaticString = "0123456789abcdef"
            out.base[p + 4] = hexd.utf8Start[Int(c >> 4)]
            out.base[p + 5] = hexd.utf8Start[Int(c & 0xF)]
            out.count += 5
        }
        out.byte(0x22)
    }

    mutating func writeType(_ ev: Ev, _ style: Style) {
        if style.typeOverride { out.append("\"app_open\""); return }
        switch ev.kind {
        case .activate: out.append("\"sdk_activate\"")
        case .identify: out.append("\"identify\"")
        case .logout: out.append("\"logout\"")
        case .state: out.append("\"onboarding_state_updated\"")
        case .analytics: out.append("\"onboarding_analytics\"")
        case .unknown:
            switch UnknownKind(rawValue: ev.a) ?? .sessionStart {
            case .paywallShown: out.append("\"paywall_shown\"")
            case .purchaseCompleted: out.append("\"purchase_completed\"")
            case .sessionStart: out.append("\"session_start\"")
            case .accessLevelUpdated: out.append("\"access_level_updated\"")
            case .subscriptionRenewed: out.append("\"subscription_renewed\"")
            }
        }
    }

    mutating func renderEvent(_ ev: Ev, slot: Int, id: EventID, style: Style) {
        let dev = persons[slot].devices[Int(ev.device)]
        let sp = style.spaced
        out.byte(0x7B)
        var first = true
        var order = style.order
        for _ in 0..<8 {
            let f = order & 0xF
            order >>= 4
            switch f {
            case 0:
                key("event_id", &first, sp)
                writeEventId(id, escape: style.escapeId)
            case 1:
                key("event_type", &first, sp)
                writeType(ev, style)
            case 2:
                key("timestamp", &first, sp)
                writeTimestamp(ev.t + style.tsShift, style.ts)
            case 3:
                if ev.kind == .unknown && ev.a == UnknownKind.subscriptionRenewed.rawValue { break }  // server-side
                key("device_id", &first, sp)
                out.byte(0x22)
                if style.altDevice != 0 {
                    out.uuid(style.altDevice, ~style.altDevice, upper: dev.upper)
                } else {
                    out.append(persons[slot].text! + 36 * Int(ev.device), 36)
                }
                out.byte(0x22)
            case 4:
                key("profile_id", &first, sp)
                out.byte(0x22)
                if style.altProfile != 0 {
                    out.uuid(style.altProfile, style.altProfile &* 31, upper: false)
                } else {
                    out.append(persons[slot].text! + 36 * (persons[slot].devices.count + Int(ev.profile)), 36)
                }
                out.byte(0x22)
            case 5:
                if style.altCuid != 0 {
                    key("customer_user_id", &first, sp)
                    out.append("\"conflict_")
                    out.hex(style.altCuid, digits: 12, upper: false)
                    out.byte(0x22)
                } else if ev.cuid == 0 {
                    switch style.anon {
                    case 0:
                        key("customer_user_id", &first, sp)
                        out.append("null")
                    case 2:
                        key("customer_user_id", &first, sp)
                        out.byte2(0x22, 0x22)
                    default: break
                    }
                } else {
                    key("customer_user_id", &first, sp)
                    out.byte(0x22)
                    out.append(persons[slot].cuids[Int(ev.cuid) - 1].bytes(style.escaped))
                    out.byte(0x22)
                }
            case 6:
                switch ev.kind {
                case .state:
                    key("action", &first, sp)
                    writeStateAction(ev, slot: slot, dev: dev, style: style)
                case .analytics:
                    key("action", &first, sp)
                    writeAnalyticsAction(ev, dev: dev, style: style)
                case .unknown:
                    writeUnknownPayload(ev, &first, style)
                default: break
                }
            default:
                if sp || style.dupIgnoredKey {
                    writeExtras(ev, dev: dev, style: style, &first)
                } else {
                    let d = Int(ev.device)
                    let starts = persons[slot].extrasStart!
                    let a = Int(starts[d]), b = Int(starts[d + 1])
                    if b > a {
                        if !first { out.byte(0x2C) }
                        first = false
                        out.append(persons[slot].text! + a, b - a)
                    }
                    if style.receivedAt != 0 {
                        key("received_at", &first, sp)
                        out.byte(0x22)
                        out.rfc3339(ns: style.receivedAt, zone: 0, offsetMinutes: 0, lowerT: false, fractionDigits: 3)
                        out.byte(0x22)
                    }
                }
            }
        }
        out.byte(0x7D)
    }

    @inline(__always) mutating func str(_ r: SRef, _ escaped: Bool) {
        if escaped {
            out.append(tables.strings + Int(r.eoff), Int(r.elen))
        } else {
            out.append(tables.strings + Int(r.off), Int(r.len))
        }
    }

    @inline(__always) mutating func quoted(_ r: SRef, _ escaped: Bool) {
        out.byte(0x22)
        str(r, escaped)
        out.byte(0x22)
    }

    /// Renders a person's device ids, profile ids and per-device ignored-key blocks once.
    mutating func prepareText(_ p: inout Person) {
        swap(&out, &scratch)
        out.count = 0
        for d in p.devices { out.uuid(d.hi, d.lo, upper: d.upper) }
        for i in p.profileHi.indices { out.uuid(p.profileHi[i], p.profileLo[i], upper: false) }
        var starts: [Int32] = []
        for d in p.devices {
            starts.append(Int32(out.count))
            var first = true
            writeExtras(Ev(t: 0, kind: .activate, device: 0, cuid: 0, flags: 0, profile: 0, a: 0, b: 0, c: 0),
                        dev: d, style: Style(), &first, receivedAt: false)
        }
        starts.append(Int32(out.count))
        let e = UnsafeMutablePointer<Int32>.allocate(capacity: starts.count)
        e.initialize(from: starts, count: starts.count)
        p.extrasStart = e
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: max(out.count, 1))
        t.initialize(from: out.base, count: out.count)
        p.text = t
        swap(&out, &scratch)
    }

    private mutating func writeExtras(_ ev: Ev, dev: DeviceInfo, style: Style, _ first: inout Bool,
                                      receivedAt: Bool = true) {
        let sp = style.spaced
        let x = dev.extras
        if x & 1 != 0 {
            key("platform", &first, sp)
            if dev.android { out.append("\"android\"") } else { out.append("\"ios\"") }
        }
        if x & 2 != 0 {
            key("app_version", &first, sp)
            quoted(tables.appVersion(Int(dev.appVersion)), false)
        }
        if style.dupIgnoredKey {
            // a repeated key the spec does not read: must be accepted
            key("app_version", &first, sp)
            out.append("\"0.0.1\"")
            key("app_version", &first, sp)
            quoted(tables.appVersion(Int(dev.appVersion)), false)
        }
        if x & 4 != 0 {
            key("sdk_version", &first, sp)
            out.append("\"3.11.2\"")
        }
        if x & 8 != 0 {
            key("os_version", &first, sp)
            quoted(tables.osVersion(Int(dev.osVersion)), false)
        }
        if x & 16 != 0 {
            key("locale", &first, sp)
            quoted(tables.locale(Int(dev.locale)), false)
        }
        if x & 0x20 != 0 {
            key("context", &first, sp)
            out.append("{\"ip\":\"203.0.113.")
            out.uint(UInt64(dev.hi & 0x7F))
            out.append("\",\"screen\":{\"w\":1179,\"h\":2556},\"attribution\":null,\"tags\":[],\"event_id\":\"not-the-envelope\"}")
        }
        if x & 0x40 != 0 {
            key("eventId", &first, sp)  // not the envelope key (case and spelling differ)
            out.append("\"legacy-")
            out.hex(dev.lo & 0xFFFF_FFFF, digits: 8, upper: false)
            out.byte(0x22)
        }
        if receivedAt && style.receivedAt != 0 {
            key("received_at", &first, sp)
            out.byte(0x22)
            out.rfc3339(ns: style.receivedAt, zone: 0, offsetMinutes: 0, lowerT: false, fractionDigits: 3)
            out.byte(0x22)
        }
    }

    private mutating func writeUnknownPayload(_ ev: Ev, _ first: inout Bool, _ style: Style) {
        let sp = style.spaced
        let c = ev.c
        switch UnknownKind(rawValue: ev.a) ?? .sessionStart {
        case .paywallShown:
            key("placement_id", &first, sp)
            quoted(tables.placement(Int(c % 4)), style.escaped)
            key("paywall_variation_id", &first, sp)
            out.byte(0x22)
            out.uuid(UInt64(c) &* 0x9E37_79B9_7F4A_7C15, UInt64(c), upper: false)
            out.byte(0x22)
            key("revision", &first, sp)
            out.uint(UInt64(c % 7))
        case .purchaseCompleted, .subscriptionRenewed:
            key("product_id", &first, sp)
            quoted(tables.product(Int(c % 3)), false)
            key("price", &first, sp)
            out.append(c & 1 == 0 ? "59.99" : "9.99")
            key("currency", &first, sp)
            out.append("\"USD\"")
            key("transaction_id", &first, sp)
            out.append("\"20000")
            out.uint(UInt64(c))
            out.byte(0x22)
            key("is_trial", &first, sp)
            out.append(c & 4 != 0 ? "true" : "false")
        case .sessionStart:
            key("source", &first, sp)
            switch c % 4 {
            case 0: out.append("\"icon\"")
            case 1: out.append("\"push\"")
            case 2: out.append("\"deeplink\"")
            default: out.append("\"widget\"")
            }
        case .accessLevelUpdated:
            key("access_level", &first, sp)
            out.append("\"premium\"")
            key("is_active", &first, sp)
            out.append("true")
            key("expires_at", &first, sp)
            out.byte(0x22)
            out.rfc3339(ns: ev.t + 365 * Engine.day, zone: 0, offsetMinutes: 0, lowerT: false, fractionDigits: 0)
            out.byte(0x22)
        }
    }

    private mutating func writeMeta(_ ev: Ev, dev: DeviceInfo, style: Style) {
        let onb = tables.onboardings[Int(ev.a >> 8)]
        let s = Int(ev.a & 0xFF)
        let sp = style.spaced
        var first = true
        out.byte(0x7B)
        key("onboardingId", &first, sp)
        quoted(onb.id, style.escaped)
        if !dev.metaLite {
            key("screenClientId", &first, sp)
            if style.nulls {
                out.append("null")
            } else {
                quoted(tables.screens[Int(onb.screenStart) + s].clientId, style.escaped)
            }
        }
        key("screenIndex", &first, sp)
        if style.nulls { out.append("null") } else { out.uint(UInt64(s)) }
        if !dev.metaLite {
            key("screensTotal", &first, sp)
            if style.nulls { out.append("null") } else { out.uint(UInt64(onb.screenCount)) }
        }
        out.byte(0x7D)
    }

    private mutating func writeAnalyticsAction(_ ev: Ev, dev: DeviceInfo, style: Style) {
        let sp = style.spaced
        var first = true
        out.byte(0x7B)
        if style.actionVariant == 1 {
            key("meta", &first, sp)
            writeMeta(ev, dev: dev, style: style)
        }
        key("name", &first, sp)
        if style.altName { out.append("\"screen_skipped\"") } else { quoted(tables.analyticsName(Int(ev.b)), false) }
        if style.actionVariant != 1 {
            key("meta", &first, sp)
            writeMeta(ev, dev: dev, style: style)
        }
        out.byte(0x7D)
    }

    private mutating func writeStateAction(_ ev: Ev, slot: Int, dev: DeviceInfo, style: Style) {
        let q = tables.questions[Int(ev.b)]
        let sp = style.spaced
        var first = true
        out.byte(0x7B)
        // 0: elementId, meta, params; 1: params, meta, elementId; 2: meta, elementId, params
        var sq: UInt32 = style.actionVariant == 0 ? 0x210 : (style.actionVariant == 1 ? 0x012 : 0x201)
        for _ in 0..<3 {
            switch sq & 0xF {
            case 0:
                key("elementId", &first, sp)
                quoted(q.elementId, style.escaped)
            case 1:
                key("meta", &first, sp)
                writeMeta(ev, dev: dev, style: style)
            default:
                key("params", &first, sp)
                writeParams(ev, q: q, slot: slot, style: style)
            }
            sq >>= 4
        }
        out.byte(0x7D)
    }

    private mutating func writeParams(_ ev: Ev, q: RQuestion, slot: Int, style: Style) {
        let sp = style.spaced
        var first = true
        out.byte(0x7B)
        let valueFirst = style.optionVariant == 1
        if !valueFirst { writeParamsType(ev, q: q, &first, sp) }
        key("value", &first, sp)
        writeParamsValue(ev, q: q, slot: slot, style: style)
        if valueFirst { writeParamsType(ev, q: q, &first, sp) }
        out.byte(0x7D)
    }

    private mutating func writeParamsType(_ ev: Ev, q: RQuestion, _ first: inout Bool, _ sp: Bool) {
        key("type", &first, sp)
        if ev.flags & Ev.otherInput != 0 {
            out.append("\"input\"")
        } else {
            quoted(tables.typeName(Int(q.type.rawValue)), false)
        }
    }

    private mutating func writeParamsValue(_ ev: Ev, q: RQuestion, slot: Int, style: Style) {
        let sp = style.spaced
        let c = ev.c
        if ev.flags & Ev.otherInput != 0 {
            var first = true
            out.byte(0x7B)
            key("type", &first, sp)
            out.append("\"text\"")
            key("value", &first, sp)
            quoted(tables.otherAnswer(Int(c)), style.escaped)
            out.byte(0x7D)
            return
        }
        let variantB = ev.flags & Ev.variantB != 0
        switch q.type {
        case .select:
            writeOption(tables.options[Int(q.optionStart) + Int(c)], variantB: variantB, style: style, suffix: false)
        case .multiSelect:
            out.byte(0x5B)
            var firstOption = -1
            var n = 0
            for i in 0..<Int(q.optionCount) where c & (1 << UInt32(i)) != 0 {
                if n > 0 { if sp { out.byte2(0x2C, 0x20) } else { out.byte(0x2C) } }
                writeOption(tables.options[Int(q.optionStart) + i], variantB: variantB, style: style, suffix: false)
                if firstOption < 0 { firstOption = i }
                n += 1
            }
            if ev.flags & Ev.dupGlitch != 0 && firstOption >= 0 {
                // the same id again (a client glitch), with another label: the first occurrence counts
                out.byte(0x2C)
                writeOption(tables.options[Int(q.optionStart) + firstOption], variantB: variantB, style: style, suffix: true)
            }
            out.byte(0x5D)
        case .input:
            var first = true
            out.byte(0x7B)
            key("type", &first, sp)
            switch q.input {
            case .email:
                out.append("\"email\"")
                key("value", &first, sp)
                out.byte(0x22)
                out.append(persons[slot].email.bytes(style.escaped))
                out.byte(0x22)
            case .number:
                out.append("\"number\"")
                key("value", &first, sp)
                out.byte(0x22)
                out.uint(UInt64(c))
                out.byte(0x22)
            default:
                out.append("\"text\"")
                key("value", &first, sp)
                quoted(tables.name(Int(c)), style.escaped)
            }
            out.byte(0x7D)
        case .datePicker:
            let d = c & 31, m = (c >> 5) & 15, y = (c >> 9) & 0x7FFF, absent = c >> 24
            var first = true
            out.byte(0x7B)
            if absent & 1 == 0 {
                key("day", &first, sp); out.uint(UInt64(d))
            } else if style.nulls {
                key("day", &first, sp); out.append("null")
            }
            if absent & 2 == 0 {
                key("month", &first, sp); out.uint(UInt64(m))
            } else if style.nulls {
                key("month", &first, sp); out.append("null")
            }
            if absent & 4 == 0 { key("year", &first, sp); out.uint(UInt64(y)) }
            out.byte(0x7D)
        case .rating:
            var first = true
            out.byte(0x7B)
            key("stars", &first, sp)
            out.uint(UInt64(c))
            key("max", &first, sp)
            out.byte(0x35)
            out.byte(0x7D)
        }
    }

    private mutating func writeOption(_ o: ROption, variantB: Bool, style: Style, suffix: Bool) {
        let sp = style.spaced
        var first = true
        out.byte(0x7B)
        let labelFirst = style.optionVariant == 1
        if labelFirst { writeLabel(o, variantB: variantB, style: style, suffix: suffix, &first) }
        key("id", &first, sp)
        quoted(o.id, style.escaped)
        switch o.valueMode {
        case 0:
            key("value", &first, sp)
            quoted(o.value, style.escaped)
        case 2:
            key("value", &first, sp)
            out.append("null")
        default: break
        }
        if !labelFirst { writeLabel(o, variantB: variantB, style: style, suffix: suffix, &first) }
        out.byte(0x7D)
    }

    private mutating func writeLabel(_ o: ROption, variantB: Bool, style: Style, suffix: Bool, _ first: inout Bool) {
        if o.labelMode == 1 { return }
        key("label", &first, style.spaced)
        out.byte(0x22)
        str(variantB ? o.labelB : o.label, style.escaped)
        if suffix { out.append(" (again)") }
        if style.altLabel { out.append(" (edited)") }
        out.byte(0x22)
    }
}
