#!/usr/bin/env python3
"""wild_exports.py - a second, independent exporter of mobile-app event NDJSON.

Written from shared/SPEC.md alone (it shares no code or structure with
Sources/EventGenerator), as another team's exporter might be: different key orders,
id formats, timestamp spellings, escapes, gzip framing - and deliberately adversarial,
but always inside the SPEC.  Python 3 standard library only; the output is a pure
function of the options (same --seed, same bytes).

Usage:
  wild_exports.py --events N --seed S --out FILE [options]
    FILE ending in .gz is written as gzip (--members K streams, hand-made headers).
  --start YYYY-MM-DD   first day of the simulated window (default: one of several
                       daylight-saving / year-end windows, picked by the seed)
  --days D             length of the window (default 5)
  --reject-rate R      share of lines that are rejects (default 0.04)
  --dup-rate R         share of lines that are duplicate deliveries (default 0.06)
  --blank-rate R       blank lines per line (default 0.01)
  --line-ends MODE     lf | crlf | mixed | random (default random)
  --bom / --no-bom     UTF-8 BOM at the start of the text (default: by seed)
  --members K          gzip members (default: by seed, 1..6), split at arbitrary bytes
  --trailing-zeros K   zero bytes after the last gzip member (default 0)
  --damage KIND        truncate | crc | isize | garbage | zeros-then-member:
                       a damaged gzip file (analyze must exit 2)
  --line-limit L       also emit lines of exactly L and L+1 bytes (use with
                       analyze --max-line-bytes L); the expectations use L
  --huge K             K lines around 1 MiB (exactly 1048576 bytes, 1048577, 2 MiB)
  --order MODE         time | device | shuffle | hourly | random (default random)
  --edge               also emit extreme instants on identity-carrying events
                       (years 0001/9999, epoch 0, 1880 in LMT) - big installs tables
  --no-scenarios       only the plain simulation (no hand-built adversarial groups)
  --avoid-ambiguous    no duplicate pairs whose option value/label is absent in one
                       copy and "" in the other (the reading this file's expectations
                       use: not a conflict, as both are written as empty fields)
  --expect FILE        write what quality.csv and rejects.csv must contain, as JSON
                       (valid when the file is analyzed alone)
"""
import argparse
import datetime as _dt
import json
import random
import re
import struct
import sys
import unicodedata
import zlib

NS = 10 ** 9
MS = 10 ** 6
DAY = 86400 * NS
EPOCH_ORD = _dt.date(1970, 1, 1).toordinal()
# SPEC §2: instants outside years 0001-9999 (UTC) are bad timestamps.
FIRST_INSTANT = -62135596800 * NS      # 0001-01-01T00:00:00Z
END_INSTANT = 253402300800 * NS        # 10000-01-01T00:00:00Z, excluded


def in_instant_range(ns):
    return FIRST_INSTANT <= ns < END_INSTANT


KNOWN = ("sdk_activate", "identify", "logout", "onboarding_state_updated",
         "onboarding_analytics")
ONB = ("onboarding_state_updated", "onboarding_analytics")
REASONS = ("line_too_long", "invalid_json", "not_an_object", "missing_field",
           "wrong_type", "bad_timestamp", "bad_action")


def nfc(s):
    return unicodedata.normalize("NFC", s)


def nfd(s):
    return unicodedata.normalize("NFD", s)


# ----------------------------------------------------------------------------------
# Model values.  Events are built as ordinary Python values plus these markers, and
# serialised at the end with a per-file / per-line style.

class TS:
    """A timestamp instant (integer ns since the epoch); spelled by the style."""
    __slots__ = ("ns", "force")

    def __init__(self, ns, force=None):
        self.ns = ns
        self.force = force          # None | "epoch" | "rfc" | "negzero"


class Raw:
    """JSON text written verbatim."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class Pairs:
    """An object given as explicit (key, value) pairs - keys may repeat; a key may be
    a Raw (already-escaped key text)."""
    __slots__ = ("pairs",)

    def __init__(self, pairs):
        self.pairs = pairs


class Twice:
    """At object level: the key is written twice, with these two values."""
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b


ANON = object()      # customer_user_id: anonymous, spelled null, "" or left out
ABSENT = object()    # a key that is left out (used by mutations)


class Style:
    ENVELOPE = ["event_id", "event_type", "timestamp", "device_id", "profile_id",
                "customer_user_id", "action"]

    def __init__(self, rng):
        self.rng = rng
        keys = self.ENVELOPE + ["@extra"] * 3
        rng.shuffle(keys)
        self.rank = {}
        for i, k in enumerate(keys):
            self.rank.setdefault(k, i)
        self.reorder_p = rng.choice([0.0, 0.02, 0.1, 0.5])
        self.seps = rng.choice([(",", ":"), (", ", ": "), (",", ": "), (" , ", " : "),
                                (",\t", ":\t")])
        self.ws_p = rng.choice([0.0, 0.0, 0.01, 0.05])
        self.esc_p = rng.choice([0.0, 0.02, 0.1, 0.3])
        self.key_esc_p = rng.choice([0.0, 0.0, 0.005])
        self.epoch_p = rng.choice([0.0, 0.1, 0.5, 0.9])
        offs = [0, 0, 0, 540, -300, -240, 330, 345, -570, 840, -720, 60, 120, 1439, -1439,
                765, -210]
        self.offsets = rng.sample(offs, rng.randint(1, 5))
        self.lower_p = rng.choice([0.0, 0.02, 0.2])
        self.digits = rng.choice(["min", "3", "6", "9", "any"])
        self.extra_p = rng.choice([0.05, 0.3, 0.8])


# ----------------------------------------------------------------------------------
# Serialiser

HEXL = "0123456789abcdef"


def _u(cp, upper):
    h = "%04x" % cp
    return "\\u" + (h.upper() if upper else h)


_PLAIN_RE = re.compile('[\x00-\x1f"\\\\]')
_SHORT = {8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\"}


def _plain_esc(mo):
    o = ord(mo.group())
    return _SHORT.get(o) or _u(o, False)


def enc_str(s, st, rng, escape_mode=None):
    if escape_mode is None:
        escape_mode = rng.random() < st.esc_p
    if not escape_mode:
        return '"' + _PLAIN_RE.sub(_plain_esc, s) + '"'
    out = ['"']
    if True:
        up = rng.random() < 0.5
        for ch in s:
            o = ord(ch)
            r = rng.random()
            if ch == '"':
                out.append('\\"' if r < 0.7 else _u(o, up))
            elif ch == "\\":
                out.append("\\\\" if r < 0.7 else _u(o, up))
            elif o < 0x20:
                out.append(_u(o, up) if r < 0.5 else
                           ({8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r"}.get(o)
                            or _u(o, up)))
            elif ch == "/":
                out.append("\\/" if r < 0.6 else (_u(o, up) if r < 0.8 else "/"))
            elif ch == "-":
                out.append(_u(o, up) if r < 0.5 else "-")
            elif o < 0x80:
                out.append(_u(o, up) if (r < 0.08 and ch.isalnum()) else ch)
            elif o < 0x10000:
                out.append(_u(o, up) if r < 0.6 else ch)
            else:
                if r < 0.6:
                    v = o - 0x10000
                    out.append(_u(0xD800 + (v >> 10), up) + _u(0xDC00 + (v & 0x3FF), up))
                else:
                    out.append(ch)
    out.append('"')
    return "".join(out)


def spell_ts(ns, st, rng, force=None):
    if force == "negzero":
        return "-0"
    if force != "rfc" and ns % MS == 0 and (force == "epoch" or rng.random() < st.epoch_p):
        return str(ns // MS)
    if in_instant_range(ns):
        off = rng.choice(st.offsets)
    else:
        off = 0
    local = ns + off * 60 * NS
    if not in_instant_range(local):
        off, local = 0, ns
    days, rem = divmod(local, DAY)
    d = _dt.date.fromordinal(EPOCH_ORD + days)
    secs, frac = divmod(rem, NS)
    hh, r = divmod(secs, 3600)
    mm, ss = divmod(r, 60)
    need = 0
    if frac:
        f9 = "%09d" % frac
        need = len(f9.rstrip("0"))
    mode = st.digits
    if mode == "min":
        nd = need
    elif mode == "any":
        nd = rng.randint(need, 9)
    else:
        nd = max(need, int(mode))
    if nd and rng.random() < 0.1:
        nd = rng.randint(need, 9)
    fr = ("." + ("%09d" % frac)[:nd]) if nd else ""
    tch = "t" if rng.random() < st.lower_p else "T"
    if off == 0:
        r = rng.random()
        z = ("z" if rng.random() < st.lower_p else "Z") if r < 0.8 else (
            "+00:00" if r < 0.9 else "-00:00")
    else:
        sign = "+" if off > 0 else "-"
        a = abs(off)
        z = "%s%02d:%02d" % (sign, a // 60, a % 60)
    return "%04d-%02d-%02d%s%02d:%02d:%02d%s%s" % (d.year, d.month, d.day, tch, hh, mm, ss,
                                                  fr, z)


class Enc:
    def __init__(self, st, rng):
        self.st, self.rng = st, rng

    def ws(self):
        st = self.st
        if st.ws_p and self.rng.random() < st.ws_p:
            return self.rng.choice([" ", "  ", "\t", " \t", "\r"])
        return ""

    _key_cache = {}

    def key(self, k):
        if isinstance(k, Raw):
            return k.text
        if self.st.key_esc_p and self.rng.random() < self.st.key_esc_p:
            return enc_str(k, self.st, self.rng, escape_mode=True)
        e = self._key_cache.get(k)
        if e is None:
            e = self._key_cache[k] = enc_str(k, self.st, self.rng, escape_mode=False)
        return e

    def val(self, v, top=False):
        rng = self.rng
        tv = type(v)
        if tv is str:
            return enc_str(v, self.st, rng)
        if tv is int:
            return str(v)
        if isinstance(v, Raw):
            return v.text
        if v is None:
            return "null"
        if v is True:
            return "true"
        if v is False:
            return "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return repr(v)
        if isinstance(v, str):
            return enc_str(v, self.st, rng)
        if isinstance(v, TS):
            t = spell_ts(v.ns, self.st, rng, v.force)
            if t[0] in "-0123456789" and ":" not in t:
                return t                                   # epoch milliseconds
            return enc_str(t, self.st, rng)
        if isinstance(v, list):
            isep = self.st.seps[0]
            return "[" + self.ws() + (isep + self.ws()).join(self.val(x) for x in v) + self.ws() + "]"
        if isinstance(v, Pairs):
            return self.obj(v.pairs)
        if isinstance(v, dict):
            items = list(v.items())
            if top:
                items = self.order_top(items)
            elif rng.random() < 0.3:
                rng.shuffle(items)
            return self.obj(items)
        raise TypeError(repr(v))

    def order_top(self, items):
        st, rng = self.st, self.rng
        if rng.random() < st.reorder_p:
            rng.shuffle(items)
            return items
        ranked = []
        for i, (k, v) in enumerate(items):
            kk = k if isinstance(k, str) else "@extra"
            r = st.rank.get(kk, st.rank["@extra"])
            ranked.append((r, i, k, v))
        ranked.sort(key=lambda t: (t[0], t[1]))
        return [(k, v) for _, _, k, v in ranked]

    def obj(self, items):
        rng = self.rng
        isep, ksep = self.st.seps
        parts = []
        for k, v in items:
            if v is ABSENT:
                continue
            if v is ANON:
                r = rng.random()
                if r < 0.34:
                    continue
                v = None if r < 0.67 else ""
            if isinstance(v, Twice):
                parts.append(self.key(k) + ksep + self.ws() + self.val(v.a))
                parts.append(self.key(k) + ksep + self.ws() + self.val(v.b))
                continue
            parts.append(self.key(k) + self.ws() + ksep + self.ws() + self.val(v))
        return "{" + self.ws() + (isep + self.ws()).join(parts) + self.ws() + "}"


def serialise(model, st, rng):
    e = Enc(st, rng)
    lead = e.ws() if rng.random() < 0.5 else ""
    trail = e.ws() if rng.random() < 0.5 else ""
    return lead + e.val(model, top=True) + trail


# ----------------------------------------------------------------------------------
# Identifiers

CROCK = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


class Ids:
    def __init__(self, rng):
        self.rng = rng
        self.used = set()
        self.counter = rng.randrange(10 ** 6, 10 ** 9)

    def _uuid_hex(self, v):
        h = "%032x" % v
        return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])

    def uuid4(self):
        v = self.rng.getrandbits(128)
        v = (v & ~(0xF << 76)) | (0x4 << 76)
        v = (v & ~(0x3 << 62)) | (0x2 << 62)
        return self._uuid_hex(v)

    def uuid7(self, ns):
        ms = (ns // MS) & ((1 << 48) - 1)
        v = (ms << 80) | (0x7 << 76) | (self.rng.getrandbits(12) << 64) | (0x2 << 62) | \
            self.rng.getrandbits(62)
        return self._uuid_hex(v)

    def ulid(self, ns):
        v = (((ns // MS) & ((1 << 48) - 1)) << 80) | self.rng.getrandbits(80)
        return "".join(CROCK[(v >> (5 * i)) & 31] for i in range(25, -1, -1))

    def unique(self, s):
        while s in self.used:
            s = s + self.rng.choice(["-", "_", ".", "~", "x"]) + str(self.rng.randrange(100))
        self.used.add(s)
        return s

    def event_id(self, kind, ns):
        rng = self.rng
        self.counter += 1
        c = self.counter
        if kind == "uuid4":
            s = self.uuid4()
        elif kind == "UUID4":
            s = self.uuid4().upper()
        elif kind == "uuid7":
            s = self.uuid7(ns)
        elif kind == "UUID7":
            s = self.uuid7(ns).upper()
        elif kind == "ulid":
            s = self.ulid(ns)
        elif kind == "num":
            s = str(c if rng.random() < 0.7 else rng.randrange(1, 10 ** rng.randint(1, 19)))
        elif kind == "email":
            s = "evt.%d+%s@events.example.%s" % (c, rng.choice(["a", "B", "c-d"]),
                                                 rng.choice(["com", "jp", "io"]))
        elif kind == "long":
            s = "evt/" + rng.choice(["x", "Ab", "é", "-/"]) * rng.randint(100, 1500) + str(c)
        elif kind == "uni":
            s = rng.choice(["évènement", nfd("évènement"), "イベント", "\U0001F600ev",
                            "\uff21ev", "ev\u00e9", "ev" + nfd("\u00e9"), "Ω"]) + "-" + str(c)
            if rng.random() < 0.2:
                s = rng.choice(["\u0301", "\u200d", "\ufe0f", "\U0001F3FB"]) + s
        elif kind == "odd":
            s = rng.choice([" lead", "trail ", "q\"uo\\te", "tab\there", "a,b", "nl\nx",
                            "ctl\u0001", "nul\u0000x", "\u2028ls"]) + str(c)
        else:
            raise ValueError(kind)
        return self.unique(s)

    def device(self):
        rng = self.rng
        k = rng.random()
        if k < 0.3:
            s = self.uuid4().upper()
        elif k < 0.5:
            s = self.uuid4()
        elif k < 0.7:
            s = "%016x" % rng.getrandbits(64)
        elif k < 0.78:
            s = str(rng.randrange(10 ** 8, 10 ** 12))
        elif k < 0.86:
            s = "ios/" + self.uuid4().upper()
        elif k < 0.92:
            s = rng.choice(["dévice-", "гаджет-", "端末-", "\U0001F4F1-"]) + str(rng.randrange(10 ** 6))
        elif k < 0.97:
            s = "android-" + "%x" % rng.getrandbits(64) + "-" * rng.randint(1, 3) + \
                "z" * rng.randint(50, 400)
        else:
            s = rng.choice([" ", "  "]) + "%08x" % rng.getrandbits(32)
        return self.unique(s)

    def profile(self):
        rng = self.rng
        k = rng.random()
        if k < 0.5:
            s = self.uuid4()
        elif k < 0.65:
            s = self.uuid4().upper()
        elif k < 0.85:
            s = "prof_" + "".join(rng.choice("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
                                  for _ in range(rng.randint(8, 24)))
        else:
            s = str(rng.randrange(1, 10 ** 12))
        return self.unique(s)

    def cuid(self):
        rng = self.rng
        k = rng.random()
        self.counter += 1
        c = self.counter
        if k < 0.35:
            s = "%s.%s%d@%s" % (rng.choice(["jane", "Taro", "o'neil", "ana-maria"]),
                                rng.choice(["doe", "yamada", "x"]), c,
                                rng.choice(["example.com", "mail.example.jp", "EXAMPLE.org"]))
        elif k < 0.55:
            s = rng.choice(["", "0", "00"]) + str(c)
        elif k < 0.7:
            s = self.uuid4()
        elif k < 0.8:
            s = "user/%d" % c
        elif k < 0.9:
            s = rng.choice(["田中", "josé", nfd("josé"), "Zoë", "\U0001F464", "\u0301acute",
                            "\u200dzwj"]) + str(c)
        else:
            s = rng.choice(["cust:", "acct|", "u "]) + str(c)
        return self.unique(s)


# ----------------------------------------------------------------------------------
# The onboarding catalogue

def make_catalog(rng):
    obs = []
    onb_names = ["welcome-quiz", "Welcome-Quiz", "fitness,goals", "diet \"plan\"", "café",
                 nfd("café"), "オンボーディング", "ob/2026/03", "", "z" * 300]
    rng.shuffle(onb_names)
    n_ob = rng.randint(3, 5)
    labels = ["Male", "Female", "Non-binary", "Prefer not to say", "Lose weight",
              "Build muscle", "Sleep better", "Eat \"clean\"", "Run, jump, swim",
              "Line\nbreak", "CR\rhere", "  padded  ", "Ünïcödé", "日本語", "=SUM(A1)",
              "emoji \U0001F600", "", "tab\tchar", "\u0301combining first",
              "family \U0001F468\u200d\U0001F469\u200d\U0001F467", "ends with zwj\u200d"]
    opt_ids = ["male", "female", "nb", "other", "10", "9", "100", "a", "A", "b", "B",
               "é", nfd("é"), "\uff21", "\U0001F600", "opt,1", "opt\"2", "", " ", "opt 3",
               "x" * 200, "goal_lose", "goal_gain", "Ω", "ω", "\u0301", "\u0301a", "e\u0301\u0301"]
    elements = ["gender", "Gender", "goals", "goal", "age", "birthday", "email", "name",
                "q,1", "q\"2\"", "質問", "quéstion", nfd("quéstion"), "elt/3", "", "x" * 120]
    for i in range(n_ob):
        ob = {"id": onb_names[i], "screens": []}
        n_sc = rng.randint(3, 8)
        els = rng.sample(elements, min(len(elements), n_sc))
        for s in range(n_sc):
            k = rng.random()
            scr = {"client": rng.choice(["intro", "q", "screen-%d" % s, "スクリーン", "s/%d" % s]),
                   "element": els[s]}
            if k < 0.45:
                scr["qtype"] = "select"
            elif k < 0.8:
                scr["qtype"] = "multiSelect"
            elif k < 0.88:
                scr["qtype"] = "input"
            elif k < 0.95:
                scr["qtype"] = "datePicker"
            else:
                scr["qtype"] = rng.choice(["rangeSlider", "Select", "", "rating"])
            if scr["qtype"] in ("select", "multiSelect"):
                ids = rng.sample(opt_ids, rng.randint(2, 7))
                opts = []
                for oid in ids:
                    val = rng.choice([oid, oid.upper(), "v_" + oid, "", None, "val,ue"])
                    lab = rng.choice(labels + [None])
                    lab2 = rng.choice(labels + [None]) if rng.random() < 0.3 else lab
                    opts.append((oid, val, lab, lab2))
                scr["options"] = opts
            ob["screens"].append(scr)
        obs.append(ob)
    return obs


# ----------------------------------------------------------------------------------
# Simulation

class Gen:
    def __init__(self, args):
        self.a = args
        self.rng = random.Random("wild/%d" % args.seed)
        rng = self.rng
        self.ids = Ids(rng)
        self.events = []          # base (unique, accepted) events: dict models
        windows = ["2026-03-06", "2026-03-27", "2026-10-23", "2026-10-30", "2026-04-02",
                   "2026-12-29", "2027-03-12", "2026-09-25"]
        start = args.start or windows[args.seed % len(windows)]
        y, m, d = (int(x) for x in start.split("-"))
        self.t0 = (_dt.date(y, m, d).toordinal() - EPOCH_ORD) * DAY
        self.span = args.days * DAY
        self.catalog = make_catalog(rng)
        kinds = ["uuid4", "UUID4", "uuid7", "UUID7", "ulid", "num", "email", "long", "uni",
                 "odd"]
        w = [rng.random() ** 2 for _ in kinds]
        w[kinds.index("long")] *= 0.05
        w[kinds.index("odd")] *= 0.2
        w[kinds.index("uni")] *= 0.3
        self.eid_kinds, self.eid_w = kinds, w
        self.owner = {}           # cuid -> profile
        self.prof_cuid = {}       # profile -> cuid
        self.ms_only = False
        self.unknown_types = ["paywall_shown", "purchase_completed", "app_background",
                              "Identify", "SDK_ACTIVATE", "logout ", "", "onboarding_State_updated",
                              "custom:event/\"x\"", "イベント", "onboarding_analytics_v2"]

    # -- helpers -----------------------------------------------------------------
    def eid(self, ns):
        k = self.rng.choices(self.eid_kinds, self.eid_w)[0]
        return self.ids.event_id(k, ns)

    def extras(self, p=None):
        rng = self.rng
        out = {}
        if rng.random() < (self.a_extra_p if p is None else p):
            for _ in range(rng.randint(1, 3)):
                k = rng.choice(["app", "context", "sdk_version", "os", "attrs", "seq",
                                "session", "payload", "Event_ID", "eventId", "device",
                                "event_id ", "profileId", "TIMESTAMP",
                                "ids", "geo", "ts_local", "flags"])
                out[k] = self.junk(rng.randint(0, self.junk_depth))
        return out

    def junk(self, depth):
        rng = self.rng
        r = rng.random()
        if depth <= 0 or r < 0.3:
            return rng.choice([0, -0.0, 1.5e300, -12, 3.14, 10 ** 25, True, False, None,
                               "", "s", "ünï", "a\"b\\c", "/path/x", Raw("1E+2"), Raw("-0"),
                               Raw("1e400"), Raw("123456789012345678901234567890"),
                               Raw("0.0000000000000000000001"), "\U0001F600", "x" * 50])
        if r < 0.33:
            return Pairs([("k", 1), ("k", [2]), ("event_id", 3), ("event_id", 4)])
        if r < 0.65:
            return {rng.choice(["a", "b", "event_id", "timestamp", "k", "ключ", "n"]) + str(i):
                    self.junk(depth - 1) for i in range(rng.randint(0, 4))}
        return [self.junk(depth - 1) for _ in range(rng.randint(0, 4))]

    def deep(self, n):
        v = 0
        for i in range(n):
            v = [v] if i % 2 else {"d": v}
        return v

    def ev(self, etype, ns, dev, prof, cuid=ANON, action=None, ts_force=None, eid=None):
        m = {"event_id": eid if eid is not None else self.eid(ns), "event_type": etype,
             "timestamp": TS(ns, ts_force)}
        if dev is not ABSENT:
            m["device_id"] = dev
        if prof is not ABSENT:
            m["profile_id"] = prof
        m["customer_user_id"] = cuid
        if action is not None:
            m["action"] = action
        m.update(self.extras())
        r = self.rng.random()
        if r < 0.01:
            m["x_retry"] = Twice(1, 2)          # a repeated key the spec does not read
        elif r < 0.02 and action is None:
            # action is never checked (nor its repeated keys) on the other types
            m["action"] = Pairs([("name", "a"), ("name", "b"), ("meta", 5)])
        self.events.append(m)
        return m

    def meta(self, ob, idx, client=None):
        rng = self.rng
        m = {"onboardingId": ob["id"]}
        r = rng.random()
        if r < 0.85:
            m["screenClientId"] = client if client is not None else "s%d" % idx
        elif r < 0.92:
            m["screenClientId"] = None
        r = rng.random()
        if r < 0.9:
            m["screenIndex"] = idx
        elif r < 0.95:
            m["screenIndex"] = None
        r = rng.random()
        if r < 0.9:
            m["screensTotal"] = len(ob["screens"])
        elif r < 0.93:
            m["screensTotal"] = None
        if rng.random() < 0.05:
            m["variation"] = {"id": "v2", "weights": [0.5, 0.5]}
        if rng.random() < 0.005:
            m["screenIndex"] = Raw(rng.choice(["123456789012345678901234567890", "-0",
                                               "-9223372036854775809"]))
        return m

    def option(self, o, late):
        rng = self.rng
        oid, val, lab, lab2 = o
        d = {"id": oid}
        if val is not None or rng.random() < 0.5:
            d["value"] = val          # None -> null
        lab = lab2 if late else lab
        if lab is not None or rng.random() < 0.5:
            d["label"] = lab
        if rng.random() < 0.05:
            d["image"] = {"url": "https://cdn.example.com/img/%s.png" % rng.randrange(99)}
        return d

    def answer(self, scr, late):
        rng = self.rng
        q = scr["qtype"]
        if q == "select":
            return self.option(rng.choice(scr["options"]), late)
        if q == "multiSelect":
            opts = scr["options"]
            k = rng.randint(0, len(opts)) if rng.random() < 0.9 else 0
            chosen = [self.option(o, late) for o in rng.sample(opts, k)]
            if chosen and rng.random() < 0.15:
                # the same option id again, with another value/label
                o = rng.choice(opts)
                extra = {"id": o[0], "value": rng.choice(["again", None, o[1] or ""]),
                         "label": rng.choice(["dup label", None, "", "Other, \"repeated\""])}
                chosen.insert(rng.randint(0, len(chosen)), extra)
            return chosen
        if q == "input":
            return {"type": rng.choice(["email", "text", "number"]),
                    "value": rng.choice(["jane@example.com", "Jane O'Neil", "42", "",
                                         "line\nbreak"])}
        if q == "datePicker":
            d = {}
            for k, lo, hi in (("day", 1, 31), ("month", 1, 12), ("year", 1940, 2015)):
                r = rng.random()
                if r < 0.85:
                    d[k] = rng.randint(lo, hi)
                elif r < 0.9:
                    d[k] = None
                elif r < 0.92:
                    d[k] = Raw(rng.choice(["-0", "0", "99999999999999999999999"]))
            return d
        return rng.choice([42, "x", None, [1, 2], {"min": 1, "max": 5}, Raw("2.5e3")])

    def state(self, ob, idx, scr, late, qtype=None, value=None):
        qtype = scr["qtype"] if qtype is None else qtype
        if value is None:
            value = self.answer(dict(scr, qtype=qtype), late) if qtype == scr["qtype"] or \
                qtype not in ("select", "multiSelect") else None
        act = {"elementId": scr["element"], "meta": self.meta(ob, idx, scr["client"]),
               "params": {"type": qtype, "value": value}}
        if self.rng.random() < 0.03:
            act["params"]["extra"] = [1, {"k": "v"}]
        if self.rng.random() < 0.03:
            act["actionType"] = "stateUpdated"
        return act

    def analytics(self, ob, idx, name):
        act = {"name": name, "meta": self.meta(ob, idx)}
        if self.rng.random() < 0.05:
            act["params"] = {"source": "test"}
        return act

    # -- one device's life -------------------------------------------------------
    def step(self, t):
        rng = self.rng
        r = rng.random()
        if r < 0.22:
            return t                               # the same instant
        if r < 0.3:                                # within the same millisecond
            return t if self.ms_only else t + rng.randint(1, MS - 1)
        if r < 0.4:
            return t + rng.randint(1, 999) * MS
        return t + rng.randint(1, 240) * NS + rng.randint(0, NS - 1) // MS * MS

    def onboarding(self, t, dev, prof, cuid):
        rng = self.rng
        ob = rng.choice(self.catalog)
        self.ev("onboarding_analytics", t, dev, prof, cuid, self.analytics(ob, 0, "onboarding_started"))
        for i, scr in enumerate(ob["screens"]):
            t = self.step(t)
            self.ev("onboarding_analytics", t, dev, prof, cuid, self.analytics(ob, i, "screen_presented"))
            if i == 1:
                self.ev("onboarding_analytics", t, dev, prof, cuid,
                        self.analytics(ob, i, "second_screen_presented"))
            n_ans = 1 if rng.random() < 0.7 else rng.randint(2, 4)
            for k in range(n_ans):
                t = self.step(t)
                self.ev("onboarding_state_updated", t, dev, prof, cuid,
                        self.state(ob, i, scr, late=k > 0))
            if scr["qtype"] in ("select", "multiSelect") and rng.random() < 0.06:
                # the same element later reported as another params.type (ignored by quiz)
                t = self.step(t)
                other = rng.choice(["input", "datePicker", "select", "multiSelect"])
                if other == scr["qtype"]:
                    other = "input"
                if other in ("select", "multiSelect"):
                    v = self.answer(dict(scr, qtype=other), True)
                else:
                    v = self.answer({"qtype": other}, True)
                self.ev("onboarding_state_updated", t, dev, prof, cuid,
                        self.state(ob, i, scr, True, qtype=other, value=v))
            if scr["element"] == "email" and rng.random() < 0.5:
                self.ev("onboarding_analytics", t, dev, prof, cuid,
                        self.analytics(ob, i, "user_email_collected"))
            t = self.step(t)
            self.ev("onboarding_analytics", t, dev, prof, cuid, self.analytics(ob, i, "screen_completed"))
            if rng.random() < 0.08:
                return t       # abandoned
        t = self.step(t)
        self.ev("onboarding_analytics", t, dev, prof, cuid,
                self.analytics(ob, len(ob["screens"]) - 1, "onboarding_completed"))
        return t

    def unknown(self, t, dev, prof, cuid):
        rng = self.rng
        m = {"event_id": self.eid(t), "event_type": rng.choice(self.unknown_types),
             "timestamp": TS(t)}
        r = rng.random()
        if r < 0.75:
            m["device_id"] = dev
        elif r < 0.8:
            m["device_id"] = rng.choice([123, "", None, ["x"], {"id": dev}])
        r = rng.random()
        if r < 0.75:
            m["profile_id"] = prof
        elif r < 0.8:
            m["profile_id"] = rng.choice([0, "", None, True])
        r = rng.random()
        if r < 0.9:
            m["customer_user_id"] = cuid
        elif r < 0.95:
            m["customer_user_id"] = rng.choice([7, False, ["u"], {"id": "u"}])
        if rng.random() < 0.3:
            m["action"] = rng.choice([None, "x", [1], {"elementId": 5},
                                      Pairs([("name", "a"), ("name", "b")])])
        if rng.random() < 0.05:
            m["action"] = Twice({"name": "x"}, {"name": "y"})
        if rng.random() < 0.02:
            m["nested"] = self.deep(rng.choice([30, 120, 300]))
        m.update(self.extras())
        self.events.append(m)

    def new_profile(self):
        return self.ids.profile()

    def user(self):
        rng = self.rng
        cuid = self.ids.cuid() if rng.random() < 0.6 else None
        other_cuid = self.ids.cuid() if rng.random() < 0.1 else None
        t = self.t0 + rng.randrange(self.span)
        ms_only = self.ms_only = rng.random() < 0.7   # this SDK reports milliseconds only
        if ms_only:
            t -= t % MS
        ndev = rng.choices([1, 2, 3], [70, 22, 8])[0]
        for d in range(ndev):
            dev = self.ids.device()
            if d:
                t += rng.randint(600, 3 * 86400) * NS
            passes = cuid is not None and cuid in self.owner and rng.random() < 0.5
            if passes:
                prof, cur = self.owner[cuid], cuid
            else:
                prof, cur = self.new_profile(), None
            self.ev("sdk_activate", t, dev, prof, cur if cur else ANON)
            for s in range(rng.randint(1, 5)):
                if s:
                    t += rng.randint(60, 50000) * NS + (rng.randrange(1000) * MS if ms_only
                                                         else rng.randrange(NS))
                    if cur and rng.random() < 0.1 and other_cuid and other_cuid in self.owner:
                        # activate with another customer user id already owning a profile
                        prof, cur = self.owner[other_cuid], other_cuid
                    self.ev("sdk_activate", t, dev, prof, cur if cur else ANON)
                if s == 0 and rng.random() < 0.8:
                    t = self.onboarding(self.step(t), dev, prof, cur if cur else ANON)
                for _ in range(rng.randint(0, 4)):
                    t = self.step(t)
                    r = rng.random()
                    if r < 0.3 and cuid:
                        target = rng.choice([cuid, cuid, other_cuid or cuid])
                        if target in self.owner:
                            prof = self.owner[target]
                        elif self.prof_cuid.get(prof) not in (None, target):
                            prof = self.new_profile()
                            self.owner[target] = prof
                            self.prof_cuid[prof] = target
                        else:
                            self.owner[target] = prof
                            self.prof_cuid[prof] = target
                        cur = target
                        self.ev("identify", t, dev, prof, target)
                    elif r < 0.45:
                        prof, cur = self.new_profile(), None
                        self.ev("logout", t, dev, prof,
                                ANON if rng.random() < 0.9 else (cuid or ANON))
                    elif r < 0.7:
                        self.unknown(t, dev, prof, cur if cur else ANON)
                    elif r < 0.8:
                        t = self.onboarding(t, dev, prof, cur if cur else ANON)
                    else:
                        self.ev("sdk_activate", t, dev, prof, cur if cur else ANON)

    # -- hand-built adversarial groups -----------------------------------------
    def scenarios(self):
        rng = self.rng
        ids = self.ids
        base = self.t0 + self.span // 2
        # (1) ties at one instant broken by event_id bytes: for each pair x < y (bytes),
        # logout(x) and sdk_activate(y) at the same instant.  Byte order gives 2 switches,
        # any other order gives 1.
        pairs = [("\uff21-%d", "\U0001F600-%d"),        # UTF-8 order differs from UTF-16
                 (nfd("é") + "-%d", "\u00e9-%d"),       # NFD before NFC (bytes)
                 ("A-%d", "a-%d"), ("10-%d", "9-%d"), ("ab-%d", "ab0-%d"),
                 (" z-%d", "a-%d"), ("\u00e9-%d", "\uff21-%d"), ("a\u0000-%d", "a\u0001-%d"),
                 ("E0-%d", "e0-%d"), ("Z-%d", "\u00c0-%d"),
                 ("x" * 1000 + "a-%d", "x" * 1000 + "b-%d")]
        for i, (x, y) in enumerate(pairs):
            c = ids.counter = ids.counter + 1
            xi, yi = ids.unique(x % c), ids.unique(y % c)
            assert xi.encode() < yi.encode()
            dev = ids.device()
            p1, p2 = ids.profile(), ids.profile()
            t = base + i * 3 * 3600 * NS + rng.randrange(MS) * 1000
            self.ev("sdk_activate", t - 5 * NS, dev, p1)
            tt = t - t % MS
            lo = self.ev("logout", tt, dev, p2, eid=xi)
            ac = self.ev("sdk_activate", tt, dev, p1, eid=yi)
            lo["timestamp"].force = rng.choice(["epoch", "rfc"])
            ac["timestamp"].force = "rfc" if lo["timestamp"].force == "epoch" else "epoch"
            if rng.random() < 0.5:
                self.events[-1], self.events[-2] = self.events[-2], self.events[-1]
        # (2) canonically-equivalent but byte-different identities
        for s in ["dévice-ç", "prófile", "josé"]:
            a, b = nfc(s), nfd(s)
            t = base + rng.randrange(DAY // 2)
            self.ev("sdk_activate", t, ids.unique(a + "-D"), ids.unique(a + "-P"), ids.unique(a + "@C"))
            self.ev("sdk_activate", t + DAY // 3, ids.unique(b + "-D"), ids.unique(b + "-P"),
                    ids.unique(b + "@C"))
        ob = {"id": nfc("onb-é"), "screens": []}
        for name in (nfc("onb-é"), nfd("onb-é")):
            ob["id"] = name
            scr = {"element": nfc("élt"), "client": "c", "qtype": "select",
                   "options": [(nfc("ö"), "v", "L1", "L2"), (nfd("ö"), "v", "L3", "L3")]}
            for el in (nfc("élt"), nfd("élt")):
                scr["element"] = el
                for o in scr["options"]:
                    act = {"elementId": el, "meta": {"onboardingId": name},
                           "params": {"type": "select", "value": self.option(o, False)}}
                    self.ev("onboarding_state_updated", base + rng.randrange(DAY), ids.device(),
                            ids.profile(), ANON, act)
        # (3) one respondent's answers at the same instant: the final answer is the one
        # with the larger event_id; plus sub-millisecond ordering
        ob = {"id": "ties", "screens": []}
        for j in range(6):
            dev, prof = ids.device(), ids.profile()
            t = base + rng.randrange(DAY)
            e1 = ids.unique("tie-%d-\U0001F600" % j)
            e2 = ids.unique("tie-%d-\uff21" % j)
            for eid, oid, lab in ((e1, "late", "by-bytes"), (e2, "early", "not-final")):
                act = {"elementId": "same-instant", "meta": {"onboardingId": "ties"},
                       "params": {"type": "select", "value": {"id": oid, "value": oid, "label": lab}}}
                self.ev("onboarding_state_updated", t, dev, prof, ANON, act, eid=eid)
            # 1 ns apart, the later one with the smaller id
            for dt, eid, oids in ((1, ids.unique("a-%d" % j), ["n2"]), (0, ids.unique("b-%d" % j), ["n1", "n3"])):
                act = {"elementId": "ns-order", "meta": {"onboardingId": "ties"},
                       "params": {"type": "multiSelect",
                                  "value": [{"id": o, "label": "ns " + o} for o in oids]}}
                self.ev("onboarding_state_updated", t + 7 + dt, dev, prof, ANON, act, eid=eid,
                        ts_force="rfc")
        # (4) share rounding: n respondents, k chose "yes"
        if self.a.events >= 2000:
            for n, k in ((32, 1), (32, 5), (160, 1), (3, 1), (8, 1), (64, 3), (80, 1), (7, 3),
                         (2, 1)):
                for r in range(n):
                    oid = "yes" if r < k else "no"
                    act = {"elementId": "n%d-k%d" % (n, k), "meta": {"onboardingId": "rounding"},
                           "params": {"type": "select", "value": {"id": oid, "value": oid, "label": oid.upper()}}}
                    self.ev("onboarding_state_updated", base + rng.randrange(self.span // 2),
                            ids.device(), ids.profile(), ANON, act)
            # an empty final answer counts in the denominator
            for r in range(4):
                for v in ([{"id": "a"}], [] if r == 0 else [{"id": "a"}, {"id": "b"}, {"id": "a"}]):
                    act = {"elementId": "empty-final", "meta": {"onboardingId": "rounding"},
                           "params": {"type": "multiSelect", "value": v}}
                    self.ev("onboarding_state_updated", base + r * NS + (len(v) == 0) * 10 * NS,
                            "dev-empty-%d" % r, "prof-empty-%d" % r, ANON, act)
        # (5) a customer user id first seen on an unknown event type, a day earlier
        c = ids.cuid()
        m = {"event_id": self.eid(self.t0), "event_type": "purchase_completed",
             "timestamp": TS(self.t0 + 3600 * NS), "customer_user_id": c, "device_id": 5}
        self.events.append(m)
        self.ev("identify", self.t0 + DAY + 7 * NS, ids.device(), ids.profile(), c)
        # (6) extreme instants on events without identities (first_event / last_event)
        for ns, force in ((FIRST_INSTANT, "rfc"), (FIRST_INSTANT, "epoch"),
                          (END_INSTANT - 1, "rfc"), (END_INSTANT - MS, "epoch"),
                          (0, "negzero"), (0, "epoch"), (-1, "rfc"), (-MS, "epoch"),
                          (951825600 * NS, "rfc"), (1709251199 * NS + NS - 1, "rfc"),
                          (4107542400 * NS, "epoch")):
            m = {"event_id": self.eid(self.t0), "event_type": "edge_probe",
                 "timestamp": TS(ns, force), "device_id": "", "profile_id": None}
            self.events.append(m)
        m = {"event_id": self.eid(self.t0), "event_type": "edge_probe",
             "timestamp": Raw('"0000-12-31T23:30:00-01:00"')}
        m["_ns"] = FIRST_INSTANT + 30 * 60 * NS
        self.events.append(m)
        # (7) installs exactly at local midnight (-1 ns, 0, +1 ns) for many UTC offsets
        if self.a.events >= 2000:
            for day in range(1, self.a.days):
                for off in (0, -300, -240, 540, 345, -570, 60, 120, 330, 840, 780, 765,
                            -210, 630, 600, 660, -180, -600):
                    mid = self.t0 + day * DAY - off * 60 * NS
                    for d in (-1, 0, 1):
                        self.ev("sdk_activate", mid + d, ids.device(), ids.profile(),
                                ids.cuid() if rng.random() < 0.3 else ANON)
        if self.a.edge:
            # identity-carrying events far from the window: 1880 (local mean time in
            # most zones), 1969/1970, 2038-01-19T03:14:08Z (32-bit seconds), 2099
            for ns, force in ((-2840140800 * NS + 4 * 3600 * NS + 123, "rfc"),
                              (-1, "rfc"), (0, "negzero"), (2147483648 * NS, "epoch"),
                              (4102444800 * NS - 1, "rfc")):
                self.ev("sdk_activate", ns, ids.device(), ids.profile(), ids.cuid(),
                        ts_force=force)

    # -- build the base events ---------------------------------------------------
    def simulate(self, n_base):
        if not self.a.no_scenarios and self.a.events >= 300:
            self.scenarios()
        fixed = len(self.events)
        while len(self.events) < n_base:
            self.user()
        if len(self.events) > n_base and n_base >= fixed:
            del self.events[n_base:]


# ----------------------------------------------------------------------------------
# Semantics (what the metrics read), used for the expectations

def instant(m):
    if "_ns" in m:
        return m["_ns"]
    ts = m["timestamp"]
    return ts.ns


def ident(v):
    return v if isinstance(v, str) and v != "" else None


def opt_sem(o):
    def f(k):
        v = o.get(k)
        return v if isinstance(v, str) else ""
    return (o["id"], f("value"), f("label"))


def sem(m):
    et = m["event_type"]
    act = None
    if et == "onboarding_state_updated":
        a = m["action"]
        p = a["params"]
        if p["type"] == "select":
            opts = (opt_sem(p["value"]),)
        elif p["type"] == "multiSelect":
            opts = tuple(opt_sem(o) for o in p["value"])
        else:
            opts = ()
        act = ("s", a["elementId"], a["meta"]["onboardingId"], p["type"], opts)
    elif et == "onboarding_analytics":
        a = m["action"]
        act = ("a", a["name"], a["meta"]["onboardingId"])
    cu = m.get("customer_user_id")
    return (et, instant(m), ident(m.get("device_id")), ident(m.get("profile_id")),
            ident(cu if cu is not ANON else None), act)


# ----------------------------------------------------------------------------------
# Rejects

def copy_model(m):
    out = {}
    for k, v in m.items():
        if isinstance(v, dict):
            v = copy_model(v)
        elif isinstance(v, list):
            v = [copy_model(x) if isinstance(x, dict) else x for x in v]
        elif isinstance(v, TS):
            v = TS(v.ns, v.force)
        out[k] = v
    return out


class Rejecter:
    def __init__(self, gen, st):
        self.g, self.rng = gen, gen.rng

    def template(self, types=None):
        """A valid base event (a copy), of one of these types if asked."""
        rng = self.rng
        for _ in range(200 if self.g.events else 0):
            m = rng.choice(self.g.events)
            if "_ns" in m or not isinstance(m.get("event_type"), str):
                continue
            if types is None or m["event_type"] in types:
                return copy_model(m)
        # fall back to a fresh one
        t = types[0] if types else "sdk_activate"
        ids = self.g.ids
        m = {"event_id": ids.event_id("uuid4", 0), "event_type": t,
             "timestamp": TS(self.g.t0 + 1000 * NS), "device_id": ids.device(),
             "profile_id": ids.profile(), "customer_user_id": ids.cuid()}
        if t == "onboarding_state_updated":
            m["action"] = {"elementId": "e", "meta": {"onboardingId": "o"},
                           "params": {"type": "select", "value": {"id": "a"}}}
        elif t == "onboarding_analytics":
            m["action"] = {"name": "screen_presented", "meta": {"onboardingId": "o"}}
        return m

    def make(self, reason, st, m=None):
        """Returns (bytes, reason) for a line that must be rejected for `reason`."""
        return getattr(self, "r_" + reason)(st, m)

    def ser(self, m, st):
        return serialise(m, st, self.rng)

    # 2 ------------------------------------------------------------------------
    def r_invalid_json(self, st, m):
        rng = self.rng
        m = m or self.template()
        kind = rng.randrange(24)
        if kind == 0:        # truncated
            s = self.ser(m, st)
            cut = s.rfind("}")
            return s[:rng.randint(s.index("{") + 1, cut)].encode()
        if kind == 1:        # trailing comma
            s = self.ser(m, st).rstrip(" \t\r")
            return (s[:-1] + rng.choice([",}", ", }"])).encode()
        if kind == 2:        # comments
            s = self.ser(m, st)
            i = s.index("{") + 1
            return (s[:i] + rng.choice(["/* c */", "// c\t"]) + s[i:]).encode() if rng.random() < 0.5 \
                else (s + " // trailing").encode()
        if kind == 3:
            m["score"] = Raw(rng.choice(["NaN", "Infinity", "-Infinity", "nan", "inf"]))
            return self.ser(m, st).encode()
        if kind == 4:        # data after the value
            s = self.ser(m, st)
            return (s + rng.choice([" {}", "x", ",", " " + s, "]", " null", "}"])).encode()
        if kind == 5:        # invalid UTF-8 inside a string
            m["note"] = Raw('"@@BAD@@"')
            s = self.ser(m, st).encode()
            bad = rng.choice([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\xf4\x90\x80\x80",
                              b"\x80", b"\xf8\x88\x80\x80\x80", b"a\xc3"])
            return s.replace(b"@@BAD@@", bad)
        if kind == 6:        # lone surrogate escapes
            m[rng.choice(["note", "device_id", "event_id"])] = Raw(rng.choice(
                ['"\\ud800"', '"x\\udc00"', '"\\ud83d\\u0041"', '"\\uDBFF"', '"\\ude00\\ud83d"']))
            return self.ser(m, st).encode()
        if kind == 7:        # invalid escapes
            m["note"] = Raw(rng.choice(['"\\x41"', '"\\u12"', '"\\U0041"', "\"\\'\"", '"\\a"',
                                        '"\\u00G0"']))
            return self.ser(m, st).encode()
        if kind == 8:        # raw control characters inside a string
            m["note"] = Raw('"@@BAD@@"')
            s = self.ser(m, st).encode()
            return s.replace(b"@@BAD@@", rng.choice([b"a\tb", b"\x00", b"\x1f", b"\x01x"]))
        if kind == 9:        # number syntax
            m["n"] = Raw(rng.choice(["01", "+1", ".5", "1.", "1e", "-", "0x10", "1_000", "--1",
                                     "1e+", "00"]))
            return self.ser(m, st).encode()
        if kind == 10:       # literals
            m["flag"] = Raw(rng.choice(["True", "nul", "undefined", "FALSE", "tru"]))
            return self.ser(m, st).encode()
        if kind == 11:       # unquoted / single-quoted keys
            s = self.ser(m, st)
            i = s.index("{") + 1
            return (s[:i] + rng.choice(["k:1,", "'k':1,", "\"k\" 1,", "\"k\":1 \"j\":2,"]) + s[i:]).encode()
        if kind in (12, 13, 14):   # an envelope key twice at the top level (any type)
            k = rng.choice(["event_id", "event_type", "timestamp", "device_id", "profile_id",
                            "customer_user_id"])
            v = m.get(k, "x")
            if v is ANON or v is None:
                v = rng.choice([None, "", "u1"])
            m[k] = v
            if rng.random() < 0.3:
                m[k] = Twice(v, v)
            else:
                pairs = list(m.items())
                esc = {"event_id": "event\\u005fid", "event_type": "\\u0065vent_type",
                       "timestamp": "timest\\u0061mp", "device_id": "device_\\u0069d",
                       "profile_id": "profile\\u005Fid", "customer_user_id": "customer_user_i\\u0064"}
                newk = Raw('"%s"' % esc[k]) if rng.random() < 0.5 else k
                pairs.insert(rng.randint(0, len(pairs)), (newk, v))
                e = Enc(st, rng)
                return e.obj(pairs).encode()
            return self.ser(m, st).encode()
        if kind in (15, 16, 17):   # a key twice inside action on an onboarding type
            m = self.template(list(ONB))
            a = m["action"]
            where = rng.randrange(5)
            if where == 0:
                m["action"] = Twice(a, a)            # action itself twice
            elif where == 1:
                meta = a["meta"]
                meta["onboardingId"] = Twice(meta["onboardingId"], meta["onboardingId"])
            elif where == 2:
                a["meta"]["unread"] = Twice(1, 2)    # a key the spec never reads
            elif where == 3 and m["event_type"] == "onboarding_state_updated":
                p = a["params"]
                v = p.get("value")
                if isinstance(v, dict):
                    k = next(iter(v), "id")
                    v[k] = Twice(v.get(k), v.get(k))
                elif isinstance(v, list) and v and isinstance(v[0], dict):
                    v[0]["id"] = Twice(v[0]["id"], "zz")
                else:
                    p["type"] = Twice(p["type"], p["type"])
            else:
                if m["event_type"] == "onboarding_state_updated":
                    a["elementId"] = Twice(a["elementId"], "other")
                else:
                    a["name"] = Twice(a["name"], a["name"])
            return self.ser(m, st).encode()
        if kind == 18:       # BOM not at the start of the file
            return b"\xef\xbb\xbf" + self.ser(m, st).encode()
        if kind == 19:       # whitespace JSON does not allow
            s = self.ser(m, st)
            return (rng.choice(["\f", "\v", "\u00a0", "\u3000", "\x00"]) + s).encode()
        if kind == 20:
            return rng.choice([b"}", b"]", b"{", b"{\"a\"}", b"\"unterminated", b"{,}",
                               b"{\"event_id\":\"x\",}", b"nul", b"-", b"\\"])
        if kind == 21:       # an unclosed deep structure
            return (self.ser(m, st)[:-1] + ',"deep":' + "[" * 50 + "]" * 49 + "}").encode() \
                if self.ser(m, st).endswith("}") else b"[[[["
        if kind == 22:       # missing colon / comma
            s = self.ser(m, st)
            i = s.find('":')
            return (s[:i + 1] + s[i + 2:]).encode() if i > 0 else b"{\"a\" 1}"
        # 23: two objects on one line
        return (self.ser(m, st) + self.ser(self.template(), st)).encode()

    # 3 ------------------------------------------------------------------------
    def r_not_an_object(self, st, m):
        rng = self.rng
        m = m or self.template()
        s = self.ser(m, st)
        return rng.choice(["[]", "[" + s + "]", '"string"', "42", "null", "true", "-0", "1e5",
                           json.dumps(s), " [1, 2] ", "false", '""', "[{}]"]).encode()

    # 4 ------------------------------------------------------------------------
    def r_missing_field(self, st, m):
        rng = self.rng
        kind = rng.randrange(9)
        if kind == 0:
            m = m or self.template()
            m["event_id"] = rng.choice([ABSENT, None, ""])
        elif kind == 1:
            m = m or self.template()
            m["event_type"] = rng.choice([ABSENT, None])
            if rng.random() < 0.5:      # also other faults, of later reasons
                m["device_id"] = 5
        elif kind == 2:
            m = m or self.template()
            m["timestamp"] = rng.choice([ABSENT, None])
        elif kind == 3:
            m = m or self.template(list(KNOWN))
            m["device_id"] = rng.choice([ABSENT, None, ""])
        elif kind == 4:
            m = m or self.template(list(KNOWN))
            m["profile_id"] = rng.choice([ABSENT, None, ""])
        elif kind == 5:
            if m is not None and m["event_type"] != "identify":
                m = None
            m = m or self.template(["identify"])
            m["customer_user_id"] = rng.choice([ABSENT, None, "", ANON])
        elif kind == 6:
            return rng.choice([b"{}", b"{ }", b'{"event_id":"only"}', b'{"a":{"event_id":"x"}}'])
        elif kind == 7:     # missing beats wrong_type / bad_timestamp / bad_action
            m = m or self.template(list(ONB))
            m["event_id"] = 12345
            m["device_id"] = ABSENT
            m["timestamp"] = "yesterday"
            m["action"] = None
        else:
            m = m or self.template(list(KNOWN))
            m["profile_id"] = ""
            m["customer_user_id"] = 7
            m["timestamp"] = 1.5
        return self.ser(m, st).encode()

    # 5 ------------------------------------------------------------------------
    def r_wrong_type(self, st, m):
        rng = self.rng
        kind = rng.randrange(8)
        m = m or self.template(list(KNOWN))
        if kind == 0:
            m["event_id"] = rng.choice([12345, True, [], {}, ["a"], 0])
        elif kind == 1:
            m["event_type"] = rng.choice([5, True, ["identify"], {}, False])
            if rng.random() < 0.3:
                m["device_id"] = ABSENT      # not required: the type is not a known one
        elif kind == 2:
            m["timestamp"] = rng.choice([True, {}, [], [1795857302123], False,
                                         {"$date": "2026-03-08T10:00:00Z"}])
        elif kind == 3:
            m["device_id"] = rng.choice([12345, 0, True, ["d"], {"id": "d"}, 1.5, Raw("-0")])
        elif kind == 4:
            m["profile_id"] = rng.choice([12345, {}, [], False, 5.0])
        elif kind == 5:
            m["customer_user_id"] = rng.choice([7, True, ["u"], {}, 0, 1.0])
        elif kind == 6:      # wrong_type beats bad_timestamp and bad_action
            m = self.template(list(ONB))
            m["profile_id"] = 77
            m["timestamp"] = "2026-02-30T00:00:00Z"
            m["action"] = "nope"
        else:
            m = self.template(["identify"])
            m["customer_user_id"] = rng.choice([7, [], {}])
        return self.ser(m, st).encode()

    # 6 ------------------------------------------------------------------------
    BAD_TS = ["2026-03-08 10:00:00Z", "2026-03-08T10:00Z", "2026-03-08T10:00:00+0900",
              "2026-03-08T10:00:00", "2026-03-08T23:59:60Z", "2026-02-29T10:00:00Z",
              "2026-04-31T10:00:00Z", "2026-13-01T10:00:00Z", "2026-00-10T10:00:00Z",
              "2026-03-00T10:00:00Z", "2026-03-08T24:00:00Z", "2026-03-08T10:00:00.1234567890Z",
              "2026-03-08T10:00:00.Z", "2026-03-08T10:00:00,5Z", "2026-3-8T10:00:00Z",
              "2026-03-08T10:00:00+09", "2026-03-08T10:00:00+09:60", "2026-03-08T10:00:00+24:00",
              "２０２６-03-08T10:00:00Z", "", " 2026-03-08T10:00:00Z", "2026-03-08T10:00:00Z ",
              "2026-03-08T10:00:00ZZ", "1795857302123", "2100-02-29T00:00:00Z",
              "0000-12-31T23:59:59Z", "10000-01-01T00:00:00Z", "9999-12-31T23:59:59-00:01",
              "0001-01-01T00:00:00+00:01", "2026-03-08T1:00:00Z", "2026-03-08T10:60:00Z",
              "2026-03-08T10:00:61Z", "2026-03-08T10:00:00UTC", "2026-03-08T10:00:00+09:00:00",
              "2026-03-08", "10:00:00Z", "2026-03-08T10:00:00.+09:00", "2026-03-08T10:00:00-9:00",
              "2026-03-08T10:00:00 Z", "2026-03-08\u00a0T10:00:00Z", "+2026-03-08T10:00:00Z",
              "2026-W10-1T10:00:00Z", "20260308T100000Z"]
    BAD_NUM = ["1.7e12", "1795857302123.0", "1795857302123e0", "-1.5", "100000000000000000000",
               "1E12", "253402300800000", "-62135596800001", "1795857302123.5", "0.0",
               "-62135596800000000", "99999999999999999999999999"]

    def r_bad_timestamp(self, st, m):
        rng = self.rng
        m = m or self.template()
        if rng.random() < 0.7:
            m["timestamp"] = rng.choice(self.BAD_TS)
        else:
            m["timestamp"] = Raw(rng.choice(self.BAD_NUM))
        if m["event_type"] in ONB and rng.random() < 0.3:
            m["action"] = rng.choice([None, [], "x"])           # bad_timestamp comes first
        return self.ser(m, st).encode()

    # 7 ------------------------------------------------------------------------
    def r_bad_action(self, st, m):
        rng = self.rng
        m = m or self.template(list(ONB))
        a = m["action"]
        if rng.random() < 0.15:
            m["action"] = rng.choice([ABSENT, None, [], "x", 5, True, [a]])
            return self.ser(m, st).encode()
        if m["event_type"] == "onboarding_analytics":
            k = rng.randrange(6)
            if k == 0:
                a["name"] = rng.choice([ABSENT, None, 5, ["x"], {}])
            elif k == 1:
                a["meta"] = rng.choice([ABSENT, None, "m", []])
            elif k == 2:
                a["meta"]["onboardingId"] = rng.choice([ABSENT, None, 5, []])
            elif k == 3:
                a["meta"]["screenIndex"] = rng.choice(["0", 1.5, Raw("1e0"), True, Raw("1.0"), [1]])
            elif k == 4:
                a["meta"]["screensTotal"] = rng.choice(["3", Raw("3.0"), Raw("-1.0"), {}])
            else:
                a["meta"]["screenClientId"] = rng.choice([5, True, [], {}])
            return self.ser(m, st).encode()
        p = a["params"]
        k = rng.randrange(10)
        if k == 0:
            a["elementId"] = rng.choice([ABSENT, None, 5, []])
        elif k == 1:
            a["meta"] = rng.choice([ABSENT, None, "m", [a.get("meta")]])
        elif k == 2:
            a["meta"]["onboardingId"] = rng.choice([ABSENT, None, 1, {}])
        elif k == 3:
            a["params"] = rng.choice([ABSENT, None, "p", []])
        elif k == 4:
            p["type"] = rng.choice([ABSENT, None, 3, ["select"]])
        elif k == 5:
            a["meta"][rng.choice(["screenIndex", "screensTotal"])] = rng.choice(
                ["1", 1.5, Raw("2E0"), Raw("3.00"), False, [], Raw("1e400")])
        elif k == 6:
            a["meta"]["screenClientId"] = rng.choice([5, False, ["c"]])
        else:
            t = rng.choice(["select", "multiSelect", "input", "datePicker"])
            p["type"] = t
            if t == "select":
                p["value"] = rng.choice([ABSENT, None, [], "a", 5, {"value": "x"}, {"id": 5},
                                         {"id": None}, {"id": "a", "label": 5},
                                         {"id": "a", "value": True}, {"id": ["a"]}])
            elif t == "multiSelect":
                p["value"] = rng.choice([ABSENT, None, {}, {"id": "a"}, "a", [5], [None],
                                         [{"value": "x"}], [{"id": "a"}, {"id": 5}],
                                         [{"id": "a", "label": {}}], [[{"id": "a"}]]])
            elif t == "input":
                p["value"] = rng.choice([ABSENT, None, "text", 5, [], ["a"]])
            else:
                p["value"] = rng.choice([ABSENT, None, "2000-01-01", {"day": "3"},
                                         {"day": 3.0}, {"month": Raw("1e1")}, {"year": "2000"},
                                         {"day": 1, "month": True}, {"year": Raw("1999.0")},
                                         [1, 2, 3]])
        return self.ser(m, st).encode()


# ----------------------------------------------------------------------------------
# Duplicates

def conflict_variant(g, m):
    """A copy of m that differs in something the metrics read (usually)."""
    rng = g.rng
    c = copy_model(m)
    et = c["event_type"]
    opts = ["ts_ns", "ts_ms", "ts_day", "profile", "device", "cuid", "type"]
    if et == "onboarding_state_updated":
        opts += ["element", "onb", "ptype", "label", "value", "order", "optid", "label_absent",
                 "repeat", "input_only"] * 2
    elif et == "onboarding_analytics":
        opts += ["name", "onb", "meta_only"] * 2
    elif et not in KNOWN:
        opts += ["unk_device", "unk_action"] * 2
    k = rng.choice(opts)
    if k == "label_absent" and g.a.avoid_ambiguous:
        k = "label"
    if "_ns" in c:
        k = "type"
    def shifted(steps, force=None):
        # Only shifts that keep the instant within the SPEC's years: the copy
        # must stay an accepted event (the edge probes sit on the range's ends).
        ns = c["timestamp"].ns
        return TS(ns + rng.choice([d for d in steps if in_instant_range(ns + d)]), force)
    if k == "ts_ns":
        c["timestamp"] = shifted([1, -1], "rfc")
    elif k == "ts_ms":
        c["timestamp"] = shifted([MS, -MS])
    elif k == "ts_day":
        c["timestamp"] = shifted([DAY, -DAY, -3 * DAY])
    elif k == "profile":
        c["profile_id"] = g.ids.profile()
    elif k == "device":
        c["device_id"] = g.ids.device()
    elif k == "cuid":
        cu = c.get("customer_user_id")
        c["customer_user_id"] = g.ids.cuid() if (cu is ANON or not cu or et == "identify" or
                                                  rng.random() < 0.5) else ANON
    elif k == "type":
        if et in KNOWN and et not in ONB:
            c["event_type"] = rng.choice([t for t in ("sdk_activate", "logout", "paywall_shown")
                                          if t != et])
        else:
            c["event_type"] = rng.choice(["paywall_shown", "Sdk_activate", "x"])
            if et in ONB and rng.random() < 0.5:
                c["event_type"] = et + "_v2"
    elif k == "element":
        c["action"]["elementId"] = c["action"]["elementId"] + "_2"
    elif k == "onb":
        c["action"]["meta"]["onboardingId"] = nfd("é") + str(c["action"]["meta"]["onboardingId"])
    elif k == "name":
        c["action"]["name"] = rng.choice(["screen_completed", "screen_presented", "Screen_presented"])
    elif k == "meta_only":          # not read: no conflict
        c["action"]["meta"]["screenIndex"] = 99
        c["action"]["meta"]["screenClientId"] = "other"
    elif k == "unk_device":         # unknown type: non-string device ids are "nothing"
        c["device_id"] = rng.choice([ABSENT, 42, None, "", {"x": 1}])
        if rng.random() < 0.3:
            c["profile_id"] = rng.choice([ABSENT, 0, None])
    elif k == "unk_action":
        c["action"] = {"elementId": "changed", "params": [1, 2]}
    else:
        p = c["action"]["params"]
        v = p.get("value")
        if k == "input_only" or p["type"] not in ("select", "multiSelect"):
            if p["type"] not in ("select", "multiSelect"):
                p["value"] = {"type": "text", "value": "changed"} if rng.random() < 0.5 else {"day": 1}
            else:
                c["action"]["meta"]["screenIndex"] = 1234
        elif k == "ptype":
            if p["type"] == "select":
                p["type"], p["value"] = "multiSelect", [v]
            elif v:
                p["type"], p["value"] = "select", v[0]
            else:
                p["type"] = "input"
                p["value"] = {}
        else:
            lst = [v] if p["type"] == "select" else v
            if not lst:
                lst.append({"id": "added"}) if p["type"] == "multiSelect" else None
            else:
                o = lst[0]
                if k == "label":
                    o["label"] = (o.get("label") or "") + "!"
                elif k == "value":
                    o["value"] = (o.get("value") or "") + "?"
                elif k == "optid":
                    o["id"] = o["id"] + "#"
                elif k == "order" and p["type"] == "multiSelect" and len(lst) >= 2:
                    lst.reverse()
                elif k == "label_absent":
                    # absent <-> "" <-> null: all written as an empty field
                    lab = o.get("label")
                    if lab in (None, ""):
                        if "label" in o:
                            del o["label"]
                        else:
                            o["label"] = rng.choice(["", None])
                    else:
                        o["label"] = lab + "~"
                elif k == "repeat" and p["type"] == "multiSelect":
                    lst.append(dict(lst[0]))
                else:
                    o["label"] = "changed"
    return c


def respell_variant(g, m):
    """The same event, written differently (never a conflict)."""
    rng = g.rng
    c = copy_model(m)
    if isinstance(c.get("timestamp"), TS):
        c["timestamp"].force = None
    # move/replace ignored keys
    for k in list(c):
        if k not in ("event_id", "event_type", "timestamp", "device_id", "profile_id",
                     "customer_user_id", "action", "_ns"):
            del c[k]
    c.update(g.extras(0.7))
    if rng.random() < 0.3:
        c["redelivery"] = {"attempt": rng.randint(2, 9), "at": "2026-12-01T00:00:00Z"}
    a = c.get("action")
    if c["event_type"] in ONB and isinstance(a, dict):
        meta = a.get("meta", {})
        if "screenClientId" in meta and meta["screenClientId"] is None:
            del meta["screenClientId"]
        p = a.get("params")
        if isinstance(p, dict):
            v = p.get("value")
            lst = [v] if p.get("type") == "select" else (v if p.get("type") == "multiSelect" else [])
            for o in lst or []:
                if isinstance(o, dict) and "label" in o and o["label"] is None and rng.random() < 0.5:
                    del o["label"]
    return c


# ----------------------------------------------------------------------------------
# Assembly

def file_order(g, evs, mode):
    rng = g.rng
    if mode == "shuffle":
        evs = evs[:]
        rng.shuffle(evs)
        return evs
    if mode == "device":
        groups = {}
        for m in evs:
            groups.setdefault(str(m.get("device_id")), []).append(m)
        keys = list(groups)
        rng.shuffle(keys)
        out = []
        for k in keys:
            out.extend(sorted(groups[k], key=instant))
        return out
    if mode == "hourly":
        dec = [(instant(m) // (3600 * NS), rng.random(), i, m) for i, m in enumerate(evs)]
    else:   # time, with jitter of up to a few minutes
        dec = [(instant(m) + rng.randrange(0, 300 * NS), 0, i, m) for i, m in enumerate(evs)]
    dec.sort(key=lambda t: t[:3])
    return [t[3] for t in dec]


def pad_line(s, target, rng):
    """Insert an ignored key into serialised object text s so it is `target` bytes."""
    i = s.rfind("}")
    head, tail = s[:i], s[i:]
    sep = "," if head.rstrip().endswith(("\"", "}", "]", "e", "l", "0", "1", "2", "3", "4",
                                          "5", "6", "7", "8", "9")) else ""
    pre = head + sep + '"pad":"'
    post = '"' + tail
    need = target - len(pre.encode()) - len(post.encode())
    if need < 0:
        return None
    body = []
    while need >= 3 and rng.random() < 0.5:
        body.append("é" if rng.random() < 0.5 else "日")
        need -= len(body[-1].encode())
    body.append("x" * need)
    return pre + "".join(body) + post


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--events", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--start")
    ap.add_argument("--days", type=int, default=5)
    ap.add_argument("--reject-rate", type=float, default=0.04)
    ap.add_argument("--dup-rate", type=float, default=0.06)
    ap.add_argument("--blank-rate", type=float, default=0.01)
    ap.add_argument("--line-ends", default="random", choices=["lf", "crlf", "mixed", "random"])
    ap.add_argument("--bom", dest="bom", action="store_true", default=None)
    ap.add_argument("--no-bom", dest="bom", action="store_false")
    ap.add_argument("--members", type=int)
    ap.add_argument("--trailing-zeros", type=int, default=0)
    ap.add_argument("--damage", choices=["truncate", "crc", "isize", "garbage", "zeros-then-member"])
    ap.add_argument("--line-limit", type=int)
    ap.add_argument("--huge", type=int, default=0)
    ap.add_argument("--order", default="random", choices=["time", "device", "shuffle", "hourly", "random"])
    ap.add_argument("--edge", action="store_true")
    ap.add_argument("--no-scenarios", action="store_true")
    ap.add_argument("--avoid-ambiguous", action="store_true")
    ap.add_argument("--expect")
    a = ap.parse_args(argv)

    g = Gen(a)
    rng = g.rng
    N = max(a.events, 1)
    n_rej = int(round(N * a.reject_rate))
    n_dup = int(round(N * a.dup_rate))
    n_base = max(N - n_rej - n_dup, 0)
    # per-file style, with a second style for some lines (a merged export)
    st_main = Style(rng)
    st_alt = Style(rng)
    g.a_extra_p = st_main.extra_p
    g.junk_depth = 4
    if N > 50000:           # big files: fewer and flatter ignored keys (speed)
        g.a_extra_p = min(g.a_extra_p, 0.1)
        g.junk_depth = 2
        for st in (st_main, st_alt):
            st.esc_p = min(st.esc_p, 0.03)
    g.simulate(n_base)
    order = a.order if a.order != "random" else rng.choice(["time", "time", "device", "shuffle", "hourly"])
    evs = file_order(g, g.events, order)

    # entries: [position, kind, payload, extra]
    #   "orig" (model, index)  "same" (model, index of the original: byte-identical copy)
    #   "ok" (model, None or the exact text)  "rej" (bytes, reason)  "blank" (text, None)
    entries = [[float(i), "orig", m, i] for i, m in enumerate(evs)]
    L = len(evs)

    def place(i, where):
        if where == "near_after":
            return i + rng.randint(1, 12) - 0.5 + rng.random() * 0.4
        if where == "far_after":
            return rng.uniform(i + 0.1, L + 1)
        if where == "near_before":
            return i - rng.randint(1, 12) + 0.5 - rng.random() * 0.4
        return rng.uniform(-1, i - 0.1)

    for _ in range(n_dup if L else 0):
        i = rng.randrange(L)
        m = evs[i]
        r = rng.random()
        where = rng.choice(["near_after", "near_after", "far_after", "near_before", "far_before"])
        if r < 0.35:
            entries.append([place(i, where), "same", m, i])       # byte-identical copy
        elif r < 0.65:
            entries.append([place(i, where), "ok", respell_variant(g, m), None])
        else:
            entries.append([place(i, where), "ok", conflict_variant(g, m), None])
        if rng.random() < 0.03:                                   # a redelivery storm
            for _ in range(rng.randint(2, 4)):
                entries.append([place(i, "far_after"), "same", m, i])

    rej = Rejecter(g, st_main)
    weights = {"invalid_json": 30, "not_an_object": 6, "missing_field": 16, "wrong_type": 14,
               "bad_timestamp": 18, "bad_action": 16}
    rlist = list(weights)
    rw = [weights[k] for k in rlist]
    for j in range(n_rej):
        reason = rlist[j] if j < len(rlist) else rng.choices(rlist, rw)[0]
        pos = rng.uniform(-1, L + 1)
        tmpl = None
        if L and rng.random() < 0.2:
            # a rejected line that carries the id of a valid event: it claims nothing
            i = rng.randrange(L)
            tmpl = copy_model(evs[i])
            if "_ns" in tmpl or not isinstance(tmpl["timestamp"], TS):
                tmpl = None
            else:
                pos = place(i, rng.choice(["near_before", "far_before", "near_after"]))
                if reason == "bad_action" and tmpl["event_type"] not in ONB:
                    tmpl = None
                if reason in ("missing_field", "wrong_type") and tmpl is not None and \
                        tmpl["event_type"] not in KNOWN:
                    tmpl = None
        line = rej.make(reason, st_main, tmpl)
        entries.append([pos, "rej", line, reason])

    # lines around the length limit
    limits = []
    if a.line_limit:
        limits += [a.line_limit, a.line_limit + 1, a.line_limit - 1, a.line_limit]
    for h in range(a.huge):
        limits.append([1048576, 1048577, 2 * 1048576 + 7][h % 3])
    for target in (limits if L else []):
        for _ in range(100):
            m = copy_model(rng.choice(evs))
            if "_ns" in m:
                continue
            m["event_id"] = g.ids.event_id("uuid4", 0)
            s = pad_line(serialise(m, st_main, rng), target, rng)
            if s is not None:
                entries.append([rng.uniform(-1, L + 1), "ok", m, s])
                break
    if a.line_limit:
        # a long line that is blank is still blank; a long invalid one is line_too_long
        entries.append([rng.uniform(0, L), "blank", " " * (a.line_limit + 5), None])
        entries.append([rng.uniform(0, L), "rej", b"{" * (a.line_limit + 1), "invalid_json"])

    n_blank = int(round(N * a.blank_rate))
    for _ in range(n_blank):
        entries.append([rng.uniform(-1, L + 1), "blank",
                        rng.choice(["", " ", "\t", "\r", " \t ", "  \r", "\t\t"]), None])

    entries.sort(key=lambda e: e[0])

    # serialise: lines = [(content bytes, info)], info ("blank",) | ("rej", reason) | ("ok", model)
    lines = []
    orig_bytes = {}

    def original(i):
        b = orig_bytes.get(i)
        if b is None:
            b = serialise(evs[i], st_alt if rng.random() < 0.15 else st_main, rng).encode()
            orig_bytes[i] = b
        return b

    for pos, kind, payload, extra in entries:
        if kind == "blank":
            lines.append((payload.encode(), ("blank",)))
        elif kind == "rej":
            lines.append((payload, ("rej", extra)))
        elif kind in ("orig", "same"):
            lines.append((original(extra), ("ok", payload)))
        elif isinstance(extra, str):
            lines.append((extra.encode(), ("ok", payload)))
        else:
            st = st_alt if rng.random() < 0.15 else st_main
            lines.append((serialise(payload, st, rng).encode(), ("ok", payload)))

    # line ends
    le_mode = a.line_ends if a.line_ends != "random" else rng.choice(["lf", "lf", "crlf", "mixed"])
    bom = a.bom if a.bom is not None else rng.random() < 0.25
    last_nl = rng.random() < 0.6
    parts = [b"\xef\xbb\xbf"] if bom else []
    eff = []          # the line as analyze sees it (without its line end)
    for n, (b, info) in enumerate(lines):
        if le_mode == "lf":
            end = b"\n"
        elif le_mode == "crlf":
            end = b"\r\n"
        else:
            end = b"\r\n" if rng.random() < 0.5 else b"\n"
        if n == len(lines) - 1 and not last_nl and not b.endswith(b"\r"):
            end = b""
        parts.append(b + end)
        eff.append(b[:-1] if (end == b"\n" and b.endswith(b"\r")) else b)
    text = b"".join(parts)

    # expectations
    if a.expect:
        limit = a.line_limit or 1048576
        counts = {k: 0 for k in ("lines", "events", "duplicates", "conflicting_duplicates",
                                 "rejected")}
        per_reason = {r: 0 for r in REASONS}
        per_type = {t: 0 for t in KNOWN}
        unknown = 0
        kept = {}
        rejects = []
        first = last = None
        for n, (b, info) in enumerate(lines):
            if info[0] == "blank":
                continue
            counts["lines"] += 1
            if len(eff[n]) > limit:
                reason = "line_too_long"
            elif info[0] == "rej":
                reason = info[1]
            else:
                reason = None
            if reason:
                counts["rejected"] += 1
                per_reason[reason] += 1
                rejects.append([n + 1, reason])
                continue
            m = info[1]
            s = sem(m)
            eid = m["event_id"]
            if eid in kept:
                counts["duplicates"] += 1
                if kept[eid] != s:
                    counts["conflicting_duplicates"] += 1
                continue
            kept[eid] = s
            counts["events"] += 1
            if s[0] in per_type:
                per_type[s[0]] += 1
            else:
                unknown += 1
            ns = s[1]
            first = ns if first is None or ns < first else first
            last = ns if last is None or ns > last else last

        def fmt(ns):
            if ns is None:
                return ""
            ms = ns // MS
            days, rem = divmod(ms, 86400000)
            d = _dt.date.fromordinal(EPOCH_ORD + days)
            s, msr = divmod(rem, 1000)
            return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (d.year, d.month, d.day, s // 3600,
                                                           s // 60 % 60, s % 60, msr)
        q = [("files", 1), ("bytes_read", None), ("bytes_decoded", len(text))]
        q += [(k, counts[k]) for k in ("lines", "events", "duplicates", "conflicting_duplicates",
                                      "rejected")]
        q += [("rejected_" + r, per_reason[r]) for r in REASONS]
        q += [("unknown_event_type", unknown)]
        q += [("events_" + t, per_type[t]) for t in KNOWN]
        q += [("first_event", fmt(first)), ("last_event", fmt(last))]
    # write
    out = a.out
    if out.endswith(".gz") or a.damage:
        data = gzip_file(text, rng, a)
    else:
        data = text
    with open(out, "wb") as f:
        f.write(data)
    if a.expect:
        q[1] = ("bytes_read", len(data))
        with open(a.expect, "w") as f:
            json.dump({"quality": q, "rejects": rejects}, f)
    return 0


def gz_member(data, rng, level):
    flg = 0
    extra = b""
    if rng.random() < 0.5:
        flg |= 0x01                                     # FTEXT
    if rng.random() < 0.3:
        sub = b"AP" + struct.pack("<H", 6) + b"wild!!"
        extra += struct.pack("<H", len(sub)) + sub
        flg |= 0x04                                     # FEXTRA
    name = b""
    if rng.random() < 0.6:
        name = b"export-%d.ndjson\x00" % rng.randrange(1000)
        flg |= 0x08                                     # FNAME
    comment = b""
    if rng.random() < 0.3:
        comment = b"hourly append \xe9\x00"
        flg |= 0x10                                     # FCOMMENT
    hcrc = rng.random() < 0.3
    if hcrc:
        flg |= 0x02                                     # FHCRC
    head = b"\x1f\x8b\x08" + bytes([flg]) + struct.pack("<I", rng.randrange(2 ** 32)) + \
        bytes([rng.choice([0, 2, 4]), rng.choice([3, 255, 0, 11])]) + extra + name + comment
    if hcrc:
        head += struct.pack("<H", zlib.crc32(head) & 0xFFFF)
    co = zlib.compressobj(level, zlib.DEFLATED, -15, rng.choice([8, 9]),
                          rng.choice([zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY]))
    body = co.compress(data) + co.flush()
    return head + body + struct.pack("<II", zlib.crc32(data) & 0xFFFFFFFF, len(data) & 0xFFFFFFFF)


def gzip_file(text, rng, a):
    k = a.members if a.members else rng.choice([1, 1, 2, 3, 6])
    cuts = [rng.randrange(0, len(text) + 1) for _ in range(k - 1)]
    if k >= 2 and text.startswith(b"\xef\xbb\xbf"):
        cuts[0] = rng.choice([1, 2])
    crlf = text.find(b"\r\n", len(text) // 3)
    if k >= 3 and crlf > 0:
        cuts[1] = crlf + 1
    cuts.sort()
    chunks = []
    prev = 0
    for c in cuts + [len(text)]:
        chunks.append(text[prev:c])
        prev = c
    out = [gz_member(ch, rng, rng.choice([0, 1, 6, 9])) for ch in chunks]
    data = b"".join(out)
    if a.damage == "truncate":
        data = data[:len(data) - rng.randint(1, min(len(out[-1]) - 1, 40))]
    elif a.damage == "crc":
        i = len(data) - 8
        data = data[:i] + bytes([data[i] ^ 0x5a]) + data[i + 1:]
    elif a.damage == "isize":
        i = len(data) - 4
        data = data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1:]
    data += b"\x00" * a.trailing_zeros
    if a.damage == "garbage":
        data += rng.choice([b"\x1f", b"garbage", b"\n", b"\x00\x00x"])
    elif a.damage == "zeros-then-member":
        data += b"\x00\x00" + gz_member(b"{}\n", rng, 6)
    return data


if __name__ == "__main__":
    sys.exit(main())
