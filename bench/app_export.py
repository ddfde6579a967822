#!/usr/bin/env python3
"""Seeded, deterministic generator of an app-like SDK event export (NDJSON, gzip -6).

Written in the sixty-sixth session by a helper who had not seen the project's own
generators or parser: an export shaped by the SPEC and the seeds, not by `analyze`
(docs/benchmark.md, "An app-like export").

Simulates devices (installs, reinstalls, second devices) of people, each launch an
sdk_activate, first-launch onboarding flows (analytics + onStateUpdatedAction payloads per
seed 000), logins (identify onto new or existing profiles), logouts (new anonymous
profile), app-side session restore at activate.  Events are written in (approximate)
receipt order by an "exporter" with a fixed key order per event type, extra ignored keys,
redeliveries, rare unknown types and very rare damaged lines.

usage: app_export.py --seed N --devices N --out FILE [--members-hourly] [--bad-rate R]
(FILE ending in .gz is gzipped with `gzip -6`, else written plain)
"""
import argparse, heapq, json, random, subprocess, sys, uuid
from datetime import datetime, timezone, timedelta
from zoneinfo import ZoneInfo

NS = 1_000_000_000
BAD_RATE = 0.00004
START = datetime(2026, 10, 25, tzinfo=timezone.utc)   # spans the US DST end (2026-11-01)
DAYS = 31
END_NS = int((START + timedelta(days=DAYS)).timestamp()) * NS

COUNTRIES = [  # (country, weight, tz, locale)
    ("JP", 50, "Asia/Tokyo", "ja_JP"),
    ("US", 20, "America/New_York", "en_US"),
    ("US", 8, "America/Los_Angeles", "en_US"),
    ("DE", 8, "Europe/Berlin", "de_DE"),
    ("IN", 7, "Asia/Kolkata", "en_IN"),
    ("BR", 7, "America/Sao_Paulo", "pt_BR"),
]
ZONES = {c[2]: ZoneInfo(c[2]) for c in COUNTRIES}

SURN = ["yamada", "sato", "suzuki", "takahashi", "tanaka", "watanabe", "ito", "nakamura",
        "kobayashi", "kato", "smith", "johnson", "miller", "garcia", "muller", "schmidt",
        "sharma", "patel", "silva", "santos"]
GIVEN = ["taro", "hanako", "yuki", "haruto", "sakura", "ren", "aoi", "emma", "liam", "olivia",
         "noah", "lukas", "mia", "arjun", "priya", "joao", "ana", "kenji", "mei", "sota"]
DOMAINS = ["gmail.com", "yahoo.co.jp", "icloud.com", "docomo.ne.jp", "outlook.com",
           "ezweb.ne.jp", "gmx.de", "hotmail.com"]
JA_NAMES = ["山田 太郎", "佐藤 花子", "鈴木 一郎", "高橋 美咲", "田中 蓮", "渡辺 さくら", "伊藤 陽翔"]

O = lambda i, v, l: {"id": i, "value": v, "label": l}
ONBOARDINGS = [
    ("onboarding_main_v3", 40, [
        ("welcome_screen", None),
        ("goal_screen", ("goal_selector", "select", [
            O("lose_weight", "lose_weight", "Lose weight"), O("build_muscle", "build_muscle", "Build muscle"),
            O("stay_fit", "stay_fit", "Stay fit"), O("sleep_better", "sleep_better", "Sleep better")])),
        ("experience_screen", ("experience", "select", [
            O("beginner", "beginner", "Beginner"), O("amateur", "amateur", "Amateur"), O("pro", "pro", "Pro")])),
        ("interests_screen", ("interests_selector", "multiSelect", [
            O("yoga", "yoga", "Yoga"), O("running", "running", "Running"), O("cycling", "cycling", "Cycling"),
            O("swimming", "swimming", "Swimming"), O("hiit", "hiit", "HIIT, interval training"),
            O("dance", "dance", "Dance \"Zumba\"")])),
        ("profile_screen", ("name_input", "input", "text")),
        ("email_screen", ("email", "input", "email")),
        ("birthday_screen", ("birthday_picker", "datePicker", None)),
        ("final_screen", None)]),
    ("onboarding_ja_2026", 45, [
        ("ようこそ", None),
        ("goal_screen", ("goal_selector", "select", [
            O("lose_weight", "減量", "体重を減らす"), O("build_muscle", "筋力", "筋肉をつける"),
            O("stay_fit", "健康維持", "健康を維持する"), O("sleep_better", "睡眠", "よく眠る🌙")])),
        ("interests_screen", ("interests_selector", "multiSelect", [
            O("yoga", "yoga", "ヨガ"), O("running", "running", "🏃 ランニング"), O("walking", "walking", "ウォーキング"),
            O("ストレッチ", "stretch", "ストレッチ"), O("café", "cafe", "カフェ巡り")])),
        ("avatar_screen", ("avatar_picker", "select", [
            {"id": "avatar_cat", "value": "cat"}, {"id": "avatar_dog", "value": "dog"},
            {"id": "avatar_panda"}])),
        ("name_screen", ("name", "input", "text")),
        ("birthday_screen", ("birthday_picker", "datePicker", None)),
        ("plan_screen", ("plan_selector", "select", [
            O("monthly", "premium_monthly", "月額プラン"), O("yearly", "premium_yearly", "年額プラン（おすすめ）"),
            O("trial", "free_trial", "7日間無料トライアル")])),
        ("完了", None)]),
    ("onb_paywall_test_b", 15, [
        ("intro", None),
        ("preferences_screen", ("preference_selector", "select", [
            O("option_1", "premium", "Premium Plan"), O("option_2", "basic", "Basic Plan")])),
        ("interests_screen", ("interests_selector", "multiSelect", [
            O("interest_1", "sports", "Sports"), O("interest_2", "music", "Music"),
            O("interest_3", "movies", "Movies & TV"), O("interest_4", "books", "Books")])),
        ("done", None)]),
]
UNKNOWN_TYPES = ["paywall_shown", "purchase_completed", "subscription_renewed", "app_backgrounded",
                 "attribution_updated", "Identify"]
IOS_MODELS = ["iPhone14,5", "iPhone15,2", "iPhone15,3", "iPhone16,1", "iPhone16,2", "iPad13,18"]
AND_MODELS = ["SM-S918B", "Pixel 8", "SO-51D", "SH-53C", "Pixel 7a", "moto g54"]


class Ctx:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.cuid_profile = {}   # customer_user_id -> profile_id (Adapty's server-side link)
        self.seq = 0

    def uuid(self, upper=False):
        u = str(uuid.UUID(int=self.r.getrandbits(128), version=4))
        return u.upper() if upper else u

    def new_cuid(self):
        r = self.r
        k = r.random()
        if k < 0.55:
            return "%s.%s%s@%s" % (r.choice(GIVEN), r.choice(SURN), r.choice(["", str(r.randint(1, 999))]), r.choice(DOMAINS))
        if k < 0.85:
            return str(r.randint(10_000_000, 99_999_999))
        return "usr_" + "%012x" % r.getrandbits(48)


class Person:
    def __init__(self, c):
        r = c.r
        self.country = r.choices(COUNTRIES, weights=[x[1] for x in COUNTRIES])[0]
        self.has_account = r.random() < 0.55
        self.cuid = c.new_cuid() if self.has_account else None
        self.alt_cuid = c.new_cuid() if r.random() < 0.05 else None   # shared device / 2nd account
        self.platform = "ios" if r.random() < (0.7 if self.country[0] == "JP" else 0.5) else "android"


def fmt_ts(ns, style, tzname):
    """style: 'ms_z', 'us_z', 'us_off', 'ms_off', 'epoch'."""
    if style == "epoch":
        return ns // 1_000_000
    sec, frac = divmod(ns, NS)
    dt = datetime.fromtimestamp(sec, timezone.utc)
    if style.endswith("_off"):
        dt = dt.astimezone(ZONES[tzname])
    s = dt.strftime("%Y-%m-%dT%H:%M:%S")
    s += ".%03d" % (frac // 1_000_000) if style.startswith("ms") else ".%06d" % (frac // 1000)
    if style.endswith("_z"):
        return s + "Z"
    off = dt.utcoffset()
    m = int(off.total_seconds()) // 60
    sign = "+" if m >= 0 else "-"
    m = abs(m)
    return s + "%s%02d:%02d" % (sign, m // 60, m % 60)


def device_life(c, person, t0, first_device):
    """Generator of ('ev', ts_ns, type, profile, cuid, action|None) and ('spawn', t, gen) items."""
    r = c.r
    device = {"id": c.uuid(upper=person.platform == "ios"), "person": person,
              "app_version": r.choice(["4.12.0", "4.12.1", "4.13.0", "5.0.2"]),
              "sdk_version": r.choice(["3.3.7", "3.4.1", "3.6.0"]) if person.platform == "ios" else r.choice(["3.4.0", "3.6.2"]),
              "model": r.choice(IOS_MODELS if person.platform == "ios" else AND_MODELS),
              "os_version": r.choice(["17.4.1", "17.6", "18.1", "18.2"]) if person.platform == "ios" else r.choice(["13", "14", "15"]),
              "legacy": r.random() < 0.06}
    t = t0
    profile = None
    app_logged_in = None           # the app's own auth state (cuid it will pass at activate)
    if person.cuid and person.platform == "ios" and not first_device and r.random() < 0.6:
        app_logged_in = person.cuid     # keychain-restored login after reinstall
    adapty_cuid = None              # cuid of the profile the SDK is on

    def step(mean_s):
        nonlocal t
        t += int(r.expovariate(1.0 / mean_s) * NS) + r.randint(50, 900) * 1_000_000

    def ev(typ, action=None):
        return ("ev", t, typ, profile, adapty_cuid, action, device)

    n_launches = min(1 + int(r.expovariate(1 / 7.0)), 60)
    did_onboarding = False
    for launch in range(n_launches):
        # ---- activate
        if app_logged_in:
            cu = app_logged_in
            if cu in c.cuid_profile:
                profile = c.cuid_profile[cu]
            elif profile is None or adapty_cuid is not None:
                profile = c.uuid(); c.cuid_profile[cu] = profile
            else:
                c.cuid_profile[cu] = profile
            adapty_cuid = cu
        elif profile is None:
            profile = c.uuid(); adapty_cuid = None
        yield ev("sdk_activate")
        # ---- first launch onboarding
        if not did_onboarding and r.random() < 0.93:
            did_onboarding = True
            onb_id, _, screens = r.choices(ONBOARDINGS, weights=[o[1] for o in ONBOARDINGS])[0]
            total = len(screens)
            step(2)
            yield ev("onboarding_analytics", {"name": "onboarding_started", "meta": {"onboardingId": onb_id, "screenClientId": screens[0][0], "screenIndex": 0, "screensTotal": total}})
            quit_at = total if r.random() < 0.8 else r.randint(1, total)
            idx = 0
            while idx < quit_at:
                scr, el = screens[idx]
                meta = {"onboardingId": onb_id, "screenClientId": scr, "screenIndex": idx, "screensTotal": total}
                step(1.5)
                yield ev("onboarding_analytics", {"name": "screen_presented", "meta": dict(meta)})
                if idx == 1:
                    yield ev("onboarding_analytics", {"name": "second_screen_presented", "meta": dict(meta)})
                if el:
                    eid, ptype, opts = el
                    for _ in range(1 if r.random() < 0.85 else 2):   # answer, sometimes revised
                        if ptype == "select":
                            step(4)
                            o = dict(r.choice(opts))
                            yield ev("onboarding_state_updated", {"elementId": eid, "meta": dict(meta), "params": {"type": "select", "value": o}})
                        elif ptype == "multiSelect":
                            chosen = []
                            for _k in range(r.choice([0, 1, 1, 2, 2, 3, 4])):
                                step(2)
                                o = r.choice(opts)
                                if o in chosen and r.random() < 0.7:
                                    chosen.remove(o)          # toggled off
                                else:
                                    chosen.append(o)          # (rarely a repeated id: SDK quirk)
                                yield ev("onboarding_state_updated", {"elementId": eid, "meta": dict(meta), "params": {"type": "multiSelect", "value": [dict(x) for x in chosen]}})
                            if not chosen and r.random() < 0.3:
                                step(2)
                                yield ev("onboarding_state_updated", {"elementId": eid, "meta": dict(meta), "params": {"type": "multiSelect", "value": []}})
                        elif ptype == "input":
                            if opts == "email":
                                val = person.cuid if person.cuid and "@" in person.cuid else "%s%d@%s" % (r.choice(GIVEN), r.randint(1, 99), r.choice(DOMAINS))
                            else:
                                val = r.choice(JA_NAMES) if person.country[0] == "JP" else "%s %s" % (r.choice(GIVEN).title(), r.choice(SURN).title())
                            for _k in range(r.choice([1, 1, 2, 3])):
                                step(3)
                                yield ev("onboarding_state_updated", {"elementId": eid, "meta": dict(meta), "params": {"type": "input", "value": {"type": opts, "value": val}}})
                            if opts == "email":
                                yield ev("onboarding_analytics", {"name": "user_email_collected", "meta": dict(meta)})
                        else:
                            step(5)
                            v = {"day": r.randint(1, 28), "month": r.randint(1, 12), "year": r.randint(1955, 2010)}
                            if r.random() < 0.1:
                                del v["day"]
                            yield ev("onboarding_state_updated", {"elementId": eid, "meta": dict(meta), "params": {"type": "datePicker", "value": v}})
                step(1)
                yield ev("onboarding_analytics", {"name": "screen_completed", "meta": dict(meta)})
                if idx > 1 and r.random() < 0.05:
                    idx -= 1    # back button: re-visit previous screen
                else:
                    idx += 1
            if quit_at == total:
                yield ev("onboarding_analytics", {"name": "onboarding_completed", "meta": {"onboardingId": onb_id, "screenClientId": screens[-1][0], "screenIndex": total - 1, "screensTotal": total}})
        # ---- login / logout within this session
        if person.cuid and adapty_cuid is None and r.random() < 0.35:
            step(60)
            cu = person.alt_cuid if (person.alt_cuid and r.random() < 0.3) else person.cuid
            if cu in c.cuid_profile:
                profile = c.cuid_profile[cu]          # switch to the existing profile
            else:
                c.cuid_profile[cu] = profile          # new id: linked to the current profile
            adapty_cuid = cu
            app_logged_in = cu
            yield ev("identify")
        elif adapty_cuid is not None and r.random() < 0.08:
            step(300)
            profile = c.uuid(); adapty_cuid = None
            if r.random() < 0.5:
                app_logged_in = None
            # else: the app forgot to clear its own session: next activate passes the cuid
            yield ev("logout")
        if r.random() < 0.004:
            step(30)
            yield ev(r.choice(UNKNOWN_TYPES), {"placement_id": "settings"})
        # ---- next launch
        t += int(r.expovariate(1 / (36 * 3600.0)) * NS)
    # reinstall or a second device
    if r.random() < 0.07:
        yield ("spawn", t + int(r.expovariate(1 / (3 * 86400.0)) * NS), (person, False))
    elif first_device and r.random() < 0.06:
        p2 = Person(c)
        p2.cuid, p2.alt_cuid, p2.has_account, p2.country = person.cuid, None, person.has_account, person.country
        yield ("spawn", max(t, t0 + int(r.expovariate(1 / (5 * 86400.0)) * NS)), (p2, False))


class Exporter:
    """Writes events in receipt order, keys in one fixed order (event_id, event_type,
    timestamp, received_at, profile_id, customer_user_id, device_id, platform,
    app_version, sdk_version, country, context, action or properties)."""

    def __init__(self, c, out, hourly):
        self.c = c
        self.r = random.Random(c.r.random())
        self.pending = []      # heap (received_ns, seq, line)
        self.out = out
        self.hourly = hourly
        self.cur_hour = None
        self.proc = None
        self.n = 0

    def serialize(self, e, device, received_ns):
        """The event as a dict, and the timestamp style it was written in."""
        r = self.r
        person = device["person"]
        ts_ns, typ, profile, cuid, action = e[1], e[2], e[3], e[4], e[5]
        if device["legacy"]:
            style = "epoch"
        elif typ in ("identify", "logout") and r.random() < 0.5:
            style = "us_z"           # written by the backend
        elif person.platform == "ios":
            style = "ms_z"
        else:
            style = "us_off"
        d = {"event_id": self.c.uuid(), "event_type": typ, "timestamp": fmt_ts(ts_ns, style, person.country[2]),
             "received_at": fmt_ts(received_ns, "us_z", None), "profile_id": profile}
        if cuid is not None or person.platform == "ios":
            d["customer_user_id"] = cuid
        d["device_id"] = device["id"]
        d["platform"] = person.platform
        d["app_version"] = device["app_version"]
        d["sdk_version"] = device["sdk_version"]
        d["country"] = person.country[0]
        d["context"] = {"locale": person.country[3], "timezone": person.country[2],
                        "device": {"model": device["model"], "os": "iOS" if person.platform == "ios" else "Android",
                                   "os_version": device["os_version"]},
                        "network": r.choice(["wifi", "wifi", "cellular"])}
        if typ == "subscription_renewed":      # server-side event: no device
            del d["device_id"]
        if action is not None:
            if typ in ("onboarding_state_updated", "onboarding_analytics"):
                d["action"] = action
            else:
                d["properties"] = action
        return d, style

    def dumps(self, d, ascii_, reorder=False):
        if reorder:
            items = list(d.items())
            self.r.shuffle(items)
            return json.dumps(dict(items), ensure_ascii=ascii_)
        return json.dumps(d, ensure_ascii=ascii_, separators=(",", ":"))

    def submit(self, e):
        r = self.r
        ts = e[1]
        device = e[6]
        delay = int(r.uniform(0.05, 2.5) * NS)
        if r.random() < 0.02:
            delay += int(r.expovariate(1 / 5400.0) * NS)      # offline, flushed later
        rec = ts + delay
        d, style = self.serialize(e, device, rec)
        ascii_ = device["person"].platform == "android"
        line = self.dumps(d, ascii_)
        x = r.random()
        if x < BAD_RATE:                      # damaged lines
            k = r.randrange(4)
            if k == 0:
                line = line[: r.randint(10, len(line) - 2)]
            elif k == 1:
                d2 = dict(d); del d2["profile_id"]; line = self.dumps(d2, ascii_)
            elif k == 2:
                d2 = dict(d); d2["timestamp"] = fmt_ts(ts, "ms_z", None).replace("T", " "); line = self.dumps(d2, ascii_)
            else:
                d2 = dict(d); d2["device_id"] = None; line = self.dumps(d2, ascii_)
        self.push(rec, line)
        if x > 0.996:                         # redelivery
            later = rec + int(r.expovariate(1 / 900.0) * NS) + NS
            y = r.random()
            if y < 0.65:
                self.push(later, line)        # exact duplicate line
            else:
                d2 = dict(d)
                d2["received_at"] = fmt_ts(later, "us_z", None)
                if y < 0.8:   # same instant, spelled differently
                    d2["timestamp"] = {"epoch": lambda: fmt_ts(ts, "ms_z", None), "ms_z": lambda: fmt_ts(ts, "epoch", None),
                                       "us_z": lambda: fmt_ts(ts, "us_off", device["person"].country[2]),
                                       "us_off": lambda: fmt_ts(ts, "us_z", None)}[style]()
                if y > 0.995 and d2.get("customer_user_id") is None:
                    d2["customer_user_id"] = "late-enriched-" + device["id"][:8]   # conflicting copy
                self.push(later, self.dumps(d2, not ascii_, reorder=True))

    def push(self, rec, line):
        self.c.seq += 1
        heapq.heappush(self.pending, (rec, self.c.seq, line))

    def flush_until(self, frontier):
        while self.pending and self.pending[0][0] <= frontier:
            rec, _, line = heapq.heappop(self.pending)
            self.write(rec, line)

    def write(self, rec, line):
        if rec >= END_NS:          # the export window ends; later receipts go to the next export
            return
        if self.hourly:
            h = rec // (3600 * NS)
            if h != self.cur_hour:
                self.cur_hour = h
                self.open_member()
        elif self.proc is None:
            self.open_member()
        self.proc.stdin.write(line.encode("utf-8") + b"\n")
        self.n += 1

    def open_member(self):
        if self.proc:
            self.proc.stdin.close(); self.proc.wait()
        if self.out.endswith(".gz"):
            f = open(self.out, "ab")
            self.proc = subprocess.Popen(["gzip", "-6", "-c"], stdin=subprocess.PIPE, stdout=f, bufsize=1 << 20)
            f.close()
        else:
            class P:
                pass
            self.proc = P(); self.proc.stdin = open(self.out, "ab"); self.proc.wait = lambda: None

    def close(self):
        self.flush_until(1 << 80)
        if self.proc:
            self.proc.stdin.close(); self.proc.wait()


def main():
    global BAD_RATE
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--devices", type=int, default=1000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--members-hourly", action="store_true")
    ap.add_argument("--bad-rate", type=float, default=0.00004)
    a = ap.parse_args()
    BAD_RATE = a.bad_rate
    open(a.out, "wb").close()
    c = Ctx(a.seed)
    exp = Exporter(c, a.out, a.members_hourly)
    start_ns = int(START.timestamp()) * NS
    span = DAYS * 86400 * NS
    starts = []
    for _ in range(a.devices):
        # diurnal: more installs in the evening, local time ignored for simplicity (global mix)
        t = start_ns + c.r.randrange(span)
        starts.append(t)
    starts.sort()
    heap = []   # (next_ts, seq, gen, pending_item)
    si = 0

    def advance(gen):
        try:
            item = next(gen)
        except StopIteration:
            return
        c.seq += 1
        heapq.heappush(heap, (item[1], c.seq, gen, item))

    while si < len(starts) or heap:
        if si < len(starts) and (not heap or starts[si] <= heap[0][0]):
            p = Person(c)
            g = device_life(c, p, starts[si], True)
            si += 1
            advance(g)
            continue
        ts, _, gen, item = heapq.heappop(heap)
        if ts >= END_NS:
            continue               # past the export window: this device's story is dropped
        if item[0] == "spawn":
            p, first = item[2]
            advance(device_life(c, p, item[1], first))
        else:
            exp.flush_until(ts - 1)
            exp.submit(item)
        advance(gen)
    exp.close()
    print("lines written: %d" % exp.n, file=sys.stderr)


if __name__ == "__main__":
    main()
