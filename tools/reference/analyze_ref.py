#!/usr/bin/env python3
"""analyze_ref.py - independent Python reference implementation (test oracle) of
shared/SPEC.md ("analyze - data contract and metric definitions (v1)").

Usage:
  python3 analyze_ref.py [--out DIR] [--timezone TZ] [--threads N] [--quiet]
                         [--max-reject-rate R] [--max-reject-rows N]
                         [--max-line-bytes N] [--] PATH...
PATH may be a file (plain or gzip, detected by the magic bytes 1f 8b), a directory
(*.ndjson, *.ndjson.gz, *.jsonl, *.jsonl.gz directly inside it, byte-wise sorted) or
"-" for standard input.  Writes installs.csv, profile_switches.csv, quiz_answers.csv,
quality.csv and rejects.csv into --out (default ./analyze-out).
Exit codes: 0 ok, 1 usage, 2 input error (incl. corrupt/truncated gzip, trailing
garbage), 3 --max-reject-rate exceeded.  Python 3.11 standard library only.
Speed is not a goal; correctness and literal adherence to the SPEC are.

INTERPRETATIONS (decisions where the SPEC is silent or open; keep in sync with the
report that accompanied this file):

 I/O
  1. `files` = number of inputs actually read: each plain/gzip file (a directory
     contributes one per matching entry, the directory itself counts nothing), stdin
     counts 1, the same file given twice counts twice.
  2. `bytes_read` = stored bytes (gzip: compressed size incl. any trailing zero padding).
     `bytes_decoded` = raw decompressed byte count (plain: = stored size), INCLUDING a
     leading UTF-8 BOM (the BOM is dropped from the text, but it was decoded).
  3. Gzip members are decoded one by one (zlib wbits=31, CRC32 and ISIZE checked by zlib).
     After a member: nothing left -> done; the rest is all 0x00 -> done (ignored);
     the rest starts with 1f 8b -> next member; anything else (incl. zero bytes
     FOLLOWED by non-zero bytes, or a lone 0x1f) -> damage, exit 2.  A member without
     its end (truncated) -> exit 2.  A file of just "1f 8b" is a truncated gzip.
  4. Directory entries: name must end (case-sensitively) in one of the four suffixes,
     must not start with "."; entries that are directories (after following symlinks)
     are skipped; every other matching entry is opened (a broken symlink -> exit 2).
     Names are sorted as raw bytes.  The `file` column is the directory argument, "/"
     unless it already ends in "/", and the entry name (raw bytes).
  5. A "\r" is only part of the line end when directly followed by "\n".  On an
     unterminated last line a final "\r" is content (it counts for line_too_long; it
     is JSON whitespace and blank-line whitespace anyway).
  6. The BOM is dropped only at the very start of a file's decoded text (not at later
     gzip member starts).  A BOM anywhere else is content (-> invalid_json).
 Parsing / rejects
  7. Own strict RFC 8259 parser: the whole line must be valid UTF-8 (strict: no
     overlongs, no encoded surrogates, <= U+10FFFF), whitespace only SP/HT/LF/CR, no
     raw control chars U+0000..U+001F in strings, escapes only \" \\ \/ \b \f \n \r \t
     \\uXXXX, surrogate escapes must form a high+low pair.  Iterative (no depth limit).
     "-0" is a valid number and a plain integer literal.
  8. Duplicate-key rule (invalid_json): any of the six envelope keys (event_id,
     event_type, timestamp, device_id, profile_id, customer_user_id) repeated at the
     top level of ANY object line (whatever its type);  when the (unique) event_type is
     one of the two onboarding types: the top-level key `action` repeated, and ANY key
     repeated in ANY object nested anywhere inside the `action` value (also keys the
     spec never reads, also inside arrays).  Keys are compared after unescaping.
  9. missing_field before wrong_type over all keys.  "Known type" = event_type is a
     string equal to one of the five names.  event_type "" is NOT missing (the spec
     only requires a string): it is an unknown type.  timestamp "" -> bad_timestamp.
     A present but non-string device_id (e.g. 0) on a known type is wrong_type.
 10. timestamp: any JSON number passes wrong_type and is then bad_timestamp unless it
     is a plain integer literal; any other non-string type -> wrong_type.
     RFC 3339: ASCII digits only, offset hour 00-23 / minute 00-59, second 00-59,
     proleptic Gregorian calendar validity (year 0000 is syntactically fine, leap).
     The range check is on the UTC instant: 0001-01-01T00:00:00Z <= t <
     10000-01-01T00:00:00Z (so "0000-12-31T23:30:00-01:00" is accepted).
 11. bad_action: elementId "" / onboardingId "" / name "" are fine (only "string"
     required).  For params.type select/multiSelect/input/datePicker `value` is required
     as described; for other params.type strings `value` is not looked at.  Option
     objects: `id` string (required), `value`/`label` string or null/absent.
     Integers (screenIndex, screensTotal, day, month, year) must be plain integer
     literals, any size/sign.
 Duplicates
 12. conflicting_duplicates compares normalised values: event_type; instant (ns);
     device_id/profile_id/customer_user_id as "non-empty string or nothing" (so all
     anonymous forms are equal, and on unknown types non-string values are nothing);
     action fields only on the two onboarding types:
       onboarding_state_updated: elementId, meta.onboardingId, params.type, and the RAW
         option list in order [(id, value, label)] for select (one) / multiSelect (the
         array as given, repeated ids included); other params.type -> empty list;
       onboarding_analytics: name, meta.onboardingId.
     Option value/label: null, absent and "" are equal (all are written as empty
     fields; docs/data-model.md). Until the fourteenth session this said
     absent != "", against the binary's documented rule; an independent
     generator (wild_exports.py) found the difference.
 Metrics
 13. events_<type> and unknown_event_type count KEPT events (after dedup), so
     events = sum(events_<type>) + unknown_event_type.
 14. Installs: every kept event of any type (unknown types included) "carries" its
     device_id / profile_id / customer_user_id when that is a non-empty string.
 15. Quiz: "latest event that selected this option" = latest (ordering key) among ALL
     select/multiSelect events of that question (any respondent) whose option set
     contains the id; value/label from the first occurrence of the id in that event;
     absent/null -> empty field.  question_type = params.type of the latest
     select/multiSelect event of the question.  selections counts events (an id
     repeated in one multiSelect counts once).
 16. Dates are local calendar dates in the reporting zone, proleptic Gregorian with
     astronomical year numbering, written %04d-%02d-%02d (a local date in year 0000 or
     10000 can occur near the range edges, e.g. 0001-01-01T00:00:00Z in
     America/New_York is 0000-12-31).  IANA offsets come from zoneinfo (LMT before the
     zone's first rule).  first_event/last_event: UTC, floor to the millisecond.
 17a. A respondent's final answer / an option's latest value use the ordering key;
     ties cannot happen (event_id is unique among kept events).  An option whose
     latest selecting event lacks value/label gets empty fields (no fallback to older
     events).  "share" is computed with integers: round(r*10000/total) half up (all
     values are >= 0, so half up == half away from zero).
 17b. All string sorting is done on the UTF-8 bytes.  (Python str order would give the
     same result here because lone surrogates are rejected, but bytes are used to be
     explicit.)
 CLI
 17. `--opt value` takes the next argument literally as the value (so
     `--timezone -05:00` works); `--opt=value` also.  Repeated options: last wins.
     After `--` every argument is a path; "-" is stdin also after `--`.
     Integers: ASCII digits only; --threads >= 1, --max-line-bytes >= 1,
     --max-reject-rows >= 0.  --max-reject-rate: non-negative decimal
     (digits[.digits][e[+-]digits]), compared exactly as a rational.
     --timezone: "UTC", a name in zoneinfo.available_timezones() (case-sensitive set
     membership; "localtime" excluded), or [+-]HH:MM with HH 00-23, MM 00-59.
     Usage errors are detected before any input is read.  The --out directory is
     created only when writing on success.
"""

import os
import re
import sys
import zlib
from datetime import datetime, timedelta, timezone
from fractions import Fraction

VERSION = "analyze_ref 1"

KNOWN_TYPES = ("sdk_activate", "identify", "logout",
               "onboarding_state_updated", "onboarding_analytics")
ONBOARDING = ("onboarding_state_updated", "onboarding_analytics")
SWITCH_TYPES = ("sdk_activate", "identify", "logout")
REASONS = ("line_too_long", "invalid_json", "not_an_object", "missing_field",
           "wrong_type", "bad_timestamp", "bad_action")
ENVELOPE = ("event_id", "event_type", "timestamp", "device_id", "profile_id",
            "customer_user_id")
DIR_SUFFIXES = (b".ndjson", b".ndjson.gz", b".jsonl", b".jsonl.gz")

NS = 10 ** 9
DAY_NS = 86400 * NS


class UsageError(Exception):
    pass


class InputError(Exception):
    pass


# ----------------------------------------------------------------------------
# calendar arithmetic (proleptic Gregorian, any year, no datetime limits)

def days_from_civil(y, m, d):
    y -= 1 if m <= 2 else 0
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z):
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + (1 if m <= 2 else 0), m, d)


def is_leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def days_in_month(y, m):
    if m == 2:
        return 29 if is_leap(y) else 28
    return 30 if m in (4, 6, 9, 11) else 31


MIN_NS = days_from_civil(1, 1, 1) * DAY_NS          # 0001-01-01T00:00:00Z inclusive
MAX_NS = days_from_civil(10000, 1, 1) * DAY_NS      # 10000-01-01T00:00:00Z exclusive


def fmt_date(daynum):
    y, m, d = civil_from_days(daynum)
    return "%04d-%02d-%02d" % (y, m, d)


def fmt_utc_ms(ns):
    ms = ns // 1_000_000
    secs, msp = divmod(ms, 1000)
    days, rem = divmod(secs, 86400)
    y, m, d = civil_from_days(days)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (
        y, m, d, rem // 3600, rem // 60 % 60, rem % 60, msp)


# ----------------------------------------------------------------------------
# strict JSON (RFC 8259) parser, iterative, over a str that was strictly decoded
# from UTF-8.  Objects keep their pairs (duplicates detectable), numbers keep their
# literal text.

class JSONError(Exception):
    pass


class Obj:
    __slots__ = ("pairs",)

    def __init__(self):
        self.pairs = []

    def get(self, key, default=None):
        for k, v in self.pairs:
            if k == key:
                return v
        return default

    def has(self, key):
        for k, _ in self.pairs:
            if k == key:
                return True
        return False

    def count(self, key):
        return sum(1 for k, _ in self.pairs if k == key)


class Num:
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def is_plain_int(self):
        return not any(c in self.text for c in ".eE")

    def int_value(self):
        return int(self.text)


ABSENT = object()   # marker for "key not present"

_WS = re.compile(r"[ \t\n\r]*")
_NUM = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_STRCHUNK = re.compile(r'[^"\\\x00-\x1f]*')
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_SIMPLE_ESC = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f",
               "n": "\n", "r": "\r", "t": "\t"}


def _parse_string(s, i):
    n = len(s)
    if i >= n or s[i] != '"':
        raise JSONError("expected string")
    i += 1
    parts = []
    while True:
        m = _STRCHUNK.match(s, i)
        if m.end() > i:
            parts.append(m.group())
            i = m.end()
        if i >= n:
            raise JSONError("unterminated string")
        c = s[i]
        if c == '"':
            return "".join(parts), i + 1
        if c == "\\":
            e = s[i + 1:i + 2]
            if e in _SIMPLE_ESC:
                parts.append(_SIMPLE_ESC[e])
                i += 2
            elif e == "u":
                h = s[i + 2:i + 6]
                if not _HEX4.fullmatch(h):
                    raise JSONError("bad \\u escape")
                cp = int(h, 16)
                i += 6
                if 0xD800 <= cp <= 0xDBFF:
                    if s[i:i + 2] != "\\u":
                        raise JSONError("lone high surrogate")
                    h2 = s[i + 2:i + 6]
                    if not _HEX4.fullmatch(h2):
                        raise JSONError("bad \\u escape")
                    cp2 = int(h2, 16)
                    if not (0xDC00 <= cp2 <= 0xDFFF):
                        raise JSONError("lone high surrogate")
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (cp2 - 0xDC00)
                    i += 6
                elif 0xDC00 <= cp <= 0xDFFF:
                    raise JSONError("lone low surrogate")
                parts.append(chr(cp))
            else:
                raise JSONError("bad escape")
        else:
            raise JSONError("control character in string")


def parse_json(s):
    """Parse one complete JSON text from str s; raise JSONError if invalid."""
    n = len(s)
    i = _WS.match(s, 0).end()
    stack = []   # entries: [container, pending_key]
    while True:
        # ---- a value is expected at i
        if i >= n:
            raise JSONError("unexpected end")
        c = s[i]
        closed = False
        if c == "{":
            i = _WS.match(s, i + 1).end()
            obj = Obj()
            if s[i:i + 1] == "}":
                i += 1
                val = obj
            else:
                key, i = _parse_string(s, i)
                i = _WS.match(s, i).end()
                if s[i:i + 1] != ":":
                    raise JSONError("expected ':'")
                i = _WS.match(s, i + 1).end()
                stack.append([obj, key])
                continue
        elif c == "[":
            i = _WS.match(s, i + 1).end()
            arr = []
            if s[i:i + 1] == "]":
                i += 1
                val = arr
            else:
                stack.append([arr, None])
                continue
        elif c == '"':
            val, i = _parse_string(s, i)
        elif c == "t" and s.startswith("true", i):
            val = True
            i += 4
        elif c == "f" and s.startswith("false", i):
            val = False
            i += 5
        elif c == "n" and s.startswith("null", i):
            val = None
            i += 4
        else:
            m = _NUM.match(s, i)
            if not m:
                raise JSONError("unexpected character")
            val = Num(m.group())
            i = m.end()
        # ---- a value is complete: attach it, then handle , ] }
        while True:
            if not stack:
                i = _WS.match(s, i).end()
                if i != n:
                    raise JSONError("data after the value")
                return val
            top = stack[-1]
            parent = top[0]
            if isinstance(parent, Obj):
                parent.pairs.append((top[1], val))
            else:
                parent.append(val)
            i = _WS.match(s, i).end()
            c = s[i:i + 1]
            if c == ",":
                i = _WS.match(s, i + 1).end()
                if isinstance(parent, Obj):
                    key, i = _parse_string(s, i)
                    i = _WS.match(s, i).end()
                    if s[i:i + 1] != ":":
                        raise JSONError("expected ':'")
                    i = _WS.match(s, i + 1).end()
                    top[1] = key
                break   # parse next value
            if (c == "}" and isinstance(parent, Obj)) or (c == "]" and isinstance(parent, list)):
                i += 1
                stack.pop()
                val = parent
                continue
            raise JSONError("expected ',' or end of container")


def subtree_has_duplicate_keys(value):
    """True if any object anywhere in value (value itself included) repeats a key."""
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, Obj):
            seen = set()
            for k, sub in v.pairs:
                if k in seen:
                    return True
                seen.add(k)
                todo.append(sub)
        elif isinstance(v, list):
            todo.extend(v)
    return False


# ----------------------------------------------------------------------------
# timestamps

_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]{1,9}))?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))")
_PLAIN_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")


def parse_timestamp(v):
    """v is a str or Num.  Returns instant in ns, or None when bad_timestamp."""
    if isinstance(v, Num):
        if not v.is_plain_int():
            return None
        ns = v.int_value() * 1_000_000
    else:
        m = _RFC3339.fullmatch(v)
        if not m:
            return None
        y, mo, d, hh, mi, ss = (int(m.group(k)) for k in range(1, 7))
        frac = m.group(7)
        if not (1 <= mo <= 12) or not (1 <= d <= days_in_month(y, mo)):
            return None
        if hh > 23 or mi > 59 or ss > 59:
            return None
        off = 0
        if m.group(8) is None:
            oh, om = int(m.group(10)), int(m.group(11))
            if oh > 23 or om > 59:
                return None
            off = (oh * 3600 + om * 60) * (1 if m.group(9) == "+" else -1)
        secs = days_from_civil(y, mo, d) * 86400 + hh * 3600 + mi * 60 + ss - off
        ns = secs * NS + (int(frac.ljust(9, "0")) if frac else 0)
    if not (MIN_NS <= ns < MAX_NS):
        return None
    return ns


# ----------------------------------------------------------------------------
# action shape

def _opt_string(obj, key):
    v = obj.get(key, ABSENT)
    return v is ABSENT or v is None or isinstance(v, str)


def _opt_int(obj, key):
    v = obj.get(key, ABSENT)
    return v is ABSENT or v is None or (isinstance(v, Num) and v.is_plain_int())


def _opt_str_value(obj, key):
    v = obj.get(key, ABSENT)
    return None if (v is ABSENT or v is None) else v


def _meta_ok(action):
    meta = action.get("meta", ABSENT)
    if not isinstance(meta, Obj):
        return False
    if not isinstance(meta.get("onboardingId", ABSENT), str):
        return False
    return (_opt_string(meta, "screenClientId") and _opt_int(meta, "screenIndex")
            and _opt_int(meta, "screensTotal"))


def _option_ok(o):
    return (isinstance(o, Obj) and isinstance(o.get("id", ABSENT), str)
            and _opt_string(o, "value") and _opt_string(o, "label"))


def action_ok(etype, action):
    if not isinstance(action, Obj):
        return False
    if not _meta_ok(action):
        return False
    if etype == "onboarding_analytics":
        return isinstance(action.get("name", ABSENT), str)
    # onboarding_state_updated
    if not isinstance(action.get("elementId", ABSENT), str):
        return False
    params = action.get("params", ABSENT)
    if not isinstance(params, Obj):
        return False
    ptype = params.get("type", ABSENT)
    if not isinstance(ptype, str):
        return False
    value = params.get("value", ABSENT)
    if ptype == "select":
        return _option_ok(value)
    if ptype == "multiSelect":
        return isinstance(value, list) and all(_option_ok(o) for o in value)
    if ptype == "input":
        return isinstance(value, Obj)
    if ptype == "datePicker":
        return (isinstance(value, Obj) and _opt_int(value, "day")
                and _opt_int(value, "month") and _opt_int(value, "year"))
    return True


def action_summary(etype, action):
    """Fields the metrics read (also the conflict comparison key)."""
    meta = action.get("meta")
    if etype == "onboarding_analytics":
        return ("analytics", action.get("name"), meta.get("onboardingId"))
    params = action.get("params")
    ptype = params.get("type")
    value = params.get("value", ABSENT)
    if ptype == "select":
        raw = [value]
    elif ptype == "multiSelect":
        raw = value
    else:
        raw = []
    # An absent or null value/label equals "" (interpretation 12).
    options = tuple((o.get("id"), _opt_str_value(o, "value") or "", _opt_str_value(o, "label") or "")
                    for o in raw)
    return ("state", action.get("elementId"), meta.get("onboardingId"), ptype, options)


# ----------------------------------------------------------------------------
# one line -> reject reason or event

class Event:
    __slots__ = ("eid", "etype", "ns", "device", "profile", "cuid", "action")

    def key(self):
        return (self.ns, self.eid)

    def conflict_key(self):
        return (self.etype, self.ns, self.device, self.profile, self.cuid, self.action)


def _nonempty_str(v):
    return v if isinstance(v, str) and v != "" else None


def classify(content):
    """content: bytes of the (non-blank, not too long) line.  -> (reason, event)."""
    try:
        text = content.decode("utf-8", "strict")
        root = parse_json(text)
    except (UnicodeDecodeError, JSONError):
        return "invalid_json", None
    if isinstance(root, Obj):
        for k in ENVELOPE:
            if root.count(k) > 1:
                return "invalid_json", None
        etype0 = root.get("event_type", ABSENT)
        if etype0 in ONBOARDING:
            if root.count("action") > 1:
                return "invalid_json", None
            if root.has("action") and subtree_has_duplicate_keys(root.get("action")):
                return "invalid_json", None
    else:
        return "not_an_object", None

    g = lambda k: root.get(k, ABSENT)
    eid, etype, ts = g("event_id"), g("event_type"), g("timestamp")
    dev, prof, cuid = g("device_id"), g("profile_id"), g("customer_user_id")
    known = isinstance(etype, str) and etype in KNOWN_TYPES

    # 4. missing_field
    def missing(v, nonempty):
        return v is ABSENT or v is None or (nonempty and v == "")
    if missing(eid, True) or missing(etype, False) or missing(ts, False):
        return "missing_field", None
    if known and (missing(dev, True) or missing(prof, True)):
        return "missing_field", None
    if etype == "identify" and missing(cuid, True):
        return "missing_field", None
    # 5. wrong_type
    if not isinstance(eid, str) or not isinstance(etype, str):
        return "wrong_type", None
    if not isinstance(ts, (str, Num)):
        return "wrong_type", None
    if known:
        if not isinstance(dev, str) or not isinstance(prof, str):
            return "wrong_type", None
        if not (cuid is ABSENT or cuid is None or isinstance(cuid, str)):
            return "wrong_type", None
    # 6. bad_timestamp
    ns = parse_timestamp(ts)
    if ns is None:
        return "bad_timestamp", None
    # 7. bad_action
    action = None
    if etype in ONBOARDING:
        a = g("action")
        if not action_ok(etype, a):
            return "bad_action", None
        action = action_summary(etype, a)

    ev = Event()
    ev.eid = eid.encode("utf-8")
    ev.etype = etype
    ev.ns = ns
    ev.device = _nonempty_str(dev)
    ev.profile = _nonempty_str(prof)
    ev.cuid = _nonempty_str(cuid)
    ev.action = action
    return None, ev


# ----------------------------------------------------------------------------
# input

def gunzip_all(data, name):
    out = []
    pos = 0
    n = len(data)
    while True:
        d = zlib.decompressobj(31)
        try:
            chunk = d.decompress(data[pos:])
        except zlib.error as e:
            raise InputError("%s: corrupt gzip data in the member starting at byte offset %d (%s)"
                             % (name, pos, e))
        out.append(chunk)
        if not d.eof:
            raise InputError("%s: truncated gzip stream at byte offset %d" % (name, n))
        rest = d.unused_data
        pos = n - len(rest)
        if not rest:
            break
        if rest[:2] == b"\x1f\x8b":
            continue
        if rest.count(0) == len(rest):
            break
        raise InputError("%s: trailing garbage after gzip member at byte offset %d" % (name, pos))
    return b"".join(out)


def expand_paths(paths):
    """-> list of (display_name_bytes, open_path or None for stdin)."""
    inputs = []
    for p in paths:
        if p == "-":
            inputs.append((b"-", None))
            continue
        pb = os.fsencode(p)
        if os.path.isdir(pb):
            try:
                names = os.listdir(pb)
            except OSError as e:
                raise InputError("%s: cannot read directory: %s" % (p, e.strerror))
            names = sorted(n for n in names
                           if not n.startswith(b".") and n.endswith(DIR_SUFFIXES))
            prefix = pb if pb.endswith(b"/") else pb + b"/"
            before = len(inputs)
            for nm in names:
                full = prefix + nm
                if os.path.isdir(full):
                    continue
                inputs.append((full, full))
            # Decision of the project (docs/data-model.md): a directory with no
            # export in it is an input error, not an empty report.
            if len(inputs) == before:
                raise InputError("%s: no export files in directory" % p)
        else:
            inputs.append((pb, pb))
    return inputs


def read_input(display, path):
    try:
        if path is None:
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as e:
        raise InputError("%s: %s" % (os.fsdecode(display), e.strerror or e))
    if data[:2] == b"\x1f\x8b":
        text = gunzip_all(data, os.fsdecode(display))
    else:
        text = data
    return len(data), text


# ----------------------------------------------------------------------------
# reporting zone

_OFFSET = re.compile(r"([+-])([0-9]{2}):([0-9]{2})")


class Zone:
    def __init__(self, spec):
        self.fixed_ns = None
        self.zone = None
        if spec == "UTC":
            self.fixed_ns = 0
            return
        m = _OFFSET.fullmatch(spec)
        if m:
            h, mi = int(m.group(2)), int(m.group(3))
            if h > 23 or mi > 59:
                raise UsageError("--timezone: bad offset %r (expected ±HH:MM)" % spec)
            self.fixed_ns = (h * 3600 + mi * 60) * NS * (1 if m.group(1) == "+" else -1)
            return
        import zoneinfo
        try:
            avail = zoneinfo.available_timezones()
        except Exception:
            avail = set()
        avail.discard("localtime")
        if spec not in avail:
            raise UsageError("--timezone: unknown time zone %r" % spec)
        try:
            self.zone = zoneinfo.ZoneInfo(spec)
        except Exception:
            raise UsageError("--timezone: unknown time zone %r" % spec)

    _EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
    _LO = days_from_civil(1, 1, 3) * 86400
    _HI = days_from_civil(9999, 12, 29) * 86400

    def day(self, ns):
        if self.fixed_ns is not None:
            off = self.fixed_ns
        else:
            secs = ns // NS
            secs = min(max(secs, self._LO), self._HI)
            dt = self._EPOCH + timedelta(seconds=secs)
            delta = dt.astimezone(self.zone).utcoffset()
            off = (delta.days * 86400 + delta.seconds) * NS + delta.microseconds * 1000
        return (ns + off) // DAY_NS


# ----------------------------------------------------------------------------
# command line

HELP = """usage: analyze_ref.py [options] <path>...
  --out DIR            where the CSVs go (default ./analyze-out; created if missing)
  --timezone TZ        reporting time zone (default UTC)
  --threads N          accepted and validated, ignored
  --max-reject-rate R  fail (exit 3) when rejected/lines exceeds R (default 1.0)
  --max-reject-rows N  rows kept in rejects.csv (default 10000)
  --max-line-bytes N   longer lines are rejected as line_too_long (default 1048576)
  --quiet              no summary on stderr
  -h, --help, --version
"""

VALUE_OPTS = ("--out", "--timezone", "--threads", "--max-reject-rate",
              "--max-reject-rows", "--max-line-bytes")
_DIGITS = re.compile(r"[0-9]+")
_RATE = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _rate_fraction(text):
    """The rate as an exact Fraction, except that a value whose decimal
    exponent is far out of range is replaced by one that compares the same
    with every rejected/lines ratio of a run (counts below 10**30): a positive
    rate below 10**-60 by 10**-60, a rate above 10**60 by 10**60.  Fraction
    alone would build 10**N for an exponent N of any size (1e-99999999999
    ran for minutes)."""
    mantissa, _, exponent = text.lower().partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return Fraction(0)
    magnitude = len(whole.lstrip("0")) + int(exponent or "0") if whole.lstrip("0") \
        else int(exponent or "0") - (len(fraction) - len(fraction.lstrip("0")))
    if magnitude < -60:
        return Fraction(1, 10 ** 60)
    if magnitude > 60:
        return Fraction(10 ** 60)
    return Fraction(text)


def parse_args(argv):
    opts = {"--out": "analyze-out", "--timezone": "UTC", "--threads": None,
            "--max-reject-rate": "1.0", "--max-reject-rows": "10000",
            "--max-line-bytes": "1048576", "--quiet": False}
    paths = []
    i = 0
    end = False
    problem = None  # the first bad argument; --help/--version later on still win
    while i < len(argv):
        a = argv[i]
        i += 1
        if end or a == "-" or not a.startswith("-"):
            paths.append(a)
            continue
        if a == "--":
            end = True
            continue
        if a in ("-h", "--help"):
            sys.stdout.write(HELP)
            sys.exit(0)
        if a == "--version":
            sys.stdout.write(VERSION + "\n")
            sys.exit(0)
        if a.startswith("--") and "=" in a:
            name, val = a.split("=", 1)
        else:
            name, val = a, None
        if name in VALUE_OPTS:
            if val is None:
                if i >= len(argv):
                    problem = problem or UsageError("%s: missing value" % name)
                    continue
                # A long option (or "--") where the value should be is read as
                # itself: "--out $OUT --quiet" with OUT unset is a missing value.
                if argv[i].startswith("--") or argv[i] == "-h":
                    problem = problem or UsageError("%s: missing value before %r" % (name, argv[i]))
                    continue
                val = argv[i]
                i += 1
            opts[name] = val
        elif name == "--quiet" and val is None:
            opts["--quiet"] = True
        else:
            problem = problem or UsageError("unknown option %r" % a)
    if problem:
        raise problem

    def int_opt(name, minimum):
        v = opts[name]
        if not _DIGITS.fullmatch(v):
            raise UsageError("%s: malformed or negative value %r" % (name, v))
        n = int(v)
        if n < minimum:
            raise UsageError("%s: value must be at least %d" % (name, minimum))
        return n

    if opts["--threads"] is not None:
        int_opt("--threads", 1)
    max_line = int_opt("--max-line-bytes", 1)
    max_rows = int_opt("--max-reject-rows", 0)
    rate_s = opts["--max-reject-rate"]
    if not _RATE.fullmatch(rate_s):
        raise UsageError("--max-reject-rate: malformed or negative value %r" % rate_s)
    rate = _rate_fraction(rate_s)
    if opts["--out"] == "":
        raise UsageError("--out: empty value")
    zone = Zone(opts["--timezone"])
    if not paths:
        raise UsageError("no input path given")
    if paths.count("-") > 1:
        raise UsageError("'-' (standard input) given more than once")
    return {"out": opts["--out"], "zone": zone, "max_line": max_line,
            "max_rows": max_rows, "rate": rate, "quiet": opts["--quiet"],
            "paths": paths}


# ----------------------------------------------------------------------------
# CSV

def csv_field(v):
    if isinstance(v, int):
        return str(v).encode("ascii")
    b = v if isinstance(v, bytes) else v.encode("utf-8")
    if any(ch in b for ch in (b",", b'"', b"\r", b"\n")):
        return b'"' + b.replace(b'"', b'""') + b'"'
    return b


def csv_bytes(header, rows):
    out = [b",".join(csv_field(h) for h in header) + b"\n"]
    for r in rows:
        out.append(b",".join(csv_field(x) for x in r) + b"\n")
    return b"".join(out)


def u8(s):
    return s.encode("utf-8")


# ----------------------------------------------------------------------------
# main computation

def run(cfg):
    inputs = expand_paths(cfg["paths"])
    max_line = cfg["max_line"]

    files = 0
    bytes_read = 0
    bytes_decoded = 0
    lines = 0
    rejected = {r: 0 for r in REASONS}
    reject_rows = []
    kept = {}          # eid bytes -> Event (dict preserves input order)
    duplicates = 0
    conflicts = 0

    for display, path in inputs:
        nread, text = read_input(display, path)
        files += 1
        bytes_read += nread
        bytes_decoded += len(text)
        if text.startswith(b"\xef\xbb\xbf"):
            text = text[3:]
        pieces = text.split(b"\n")
        last_terminated = pieces[-1] == b""
        if last_terminated:
            pieces.pop()
        for idx, piece in enumerate(pieces):
            lineno = idx + 1
            terminated = idx < len(pieces) - 1 or last_terminated
            if terminated and piece.endswith(b"\r"):
                piece = piece[:-1]
            if piece.strip(b" \t\r") == b"":
                continue
            lines += 1
            if len(piece) > max_line:
                reason, ev = "line_too_long", None
            else:
                reason, ev = classify(piece)
            if reason is not None:
                rejected[reason] += 1
                if len(reject_rows) < cfg["max_rows"]:
                    reject_rows.append((display, lineno, reason))
                continue
            prev = kept.get(ev.eid)
            if prev is None:
                kept[ev.eid] = ev
            else:
                duplicates += 1
                if prev.conflict_key() != ev.conflict_key():
                    conflicts += 1

    total_rejected = sum(rejected.values())
    if lines > 0 and Fraction(total_rejected, lines) > cfg["rate"]:
        raise RateError("reject rate %d/%d exceeds --max-reject-rate" % (total_rejected, lines))

    events = list(kept.values())
    zone = cfg["zone"]
    day_cache = {}

    def day(ev):
        d = day_cache.get(ev.eid)
        if d is None:
            d = zone.day(ev.ns)
            day_cache[ev.eid] = d
        return d

    out = {}

    # ---- installs
    firsts = ({}, {}, {})   # device, cuid, profile -> earliest event
    for ev in events:
        for mode, ident in enumerate((ev.device, ev.cuid, ev.profile)):
            if ident is None:
                continue
            ib = u8(ident)
            cur = firsts[mode].get(ib)
            if cur is None or ev.key() < cur.key():
                firsts[mode][ib] = ev
    counts = {}
    for mode in range(3):
        for ev in firsts[mode].values():
            d = day(ev)
            counts.setdefault(d, [0, 0, 0])[mode] += 1
    rows = []
    if counts:
        for d in range(min(counts), max(counts) + 1):
            c = counts.get(d, [0, 0, 0])
            rows.append((fmt_date(d), c[0], c[1], c[2]))
    out["installs.csv"] = csv_bytes(
        ("date", "by_device_id", "by_customer_user_id", "by_profile_id"), rows)

    # ---- profile switches
    per_device = {}
    for ev in events:
        if ev.etype in SWITCH_TYPES:
            per_device.setdefault(u8(ev.device), []).append(ev)
    agg = {}   # (day, trigger) -> [switches, set(devices)]
    for dev, evs in per_device.items():
        evs.sort(key=Event.key)
        for a, b in zip(evs, evs[1:]):
            if u8(b.profile) != u8(a.profile):
                ent = agg.setdefault((day(b), b.etype), [0, set()])
                ent[0] += 1
                ent[1].add(dev)
    rows = [(fmt_date(d), t, v[0], len(v[1]))
            for (d, t), v in sorted(agg.items(), key=lambda kv: (kv[0][0], u8(kv[0][1])))]
    out["profile_switches.csv"] = csv_bytes(("date", "trigger", "switches", "devices"), rows)

    # ---- quiz answers
    questions = {}
    for ev in events:
        if ev.etype != "onboarding_state_updated":
            continue
        _, element, onboarding, ptype, options = ev.action
        if ptype not in ("select", "multiSelect"):
            continue
        dedup = {}
        for oid, oval, olab in options:
            ob = u8(oid)
            if ob not in dedup:
                dedup[ob] = (oid, oval, olab)
        questions.setdefault((u8(onboarding), u8(element)), []).append((ev, ptype, dedup))
    rows = []
    for (ob_b, el_b) in sorted(questions):
        qevs = questions[(ob_b, el_b)]
        qevs.sort(key=lambda t: t[0].key())
        qtype = qevs[-1][1]
        final = {}        # profile bytes -> set of option id bytes (latest event wins)
        last_sel = {}     # option id bytes -> (oid, value, label) of latest selecting event
        selections = {}
        for ev, _, dedup in qevs:       # ascending ordering key
            final[u8(ev.profile)] = set(dedup)
            for ob, opt in dedup.items():
                last_sel[ob] = opt
                selections[ob] = selections.get(ob, 0) + 1
        total = len(final)
        resp = {ob: 0 for ob in last_sel}
        for s in final.values():
            for ob in s:
                resp[ob] += 1
        onboarding = ob_b.decode("utf-8")
        element = el_b.decode("utf-8")
        for ob in sorted(last_sel, key=lambda o: (-resp[o], o)):
            oid, oval, olab = last_sel[ob]
            rows.append((onboarding, element, qtype, oid,
                         "" if oval is None else oval, "" if olab is None else olab,
                         resp[ob], share4(resp[ob], total), selections[ob]))
    out["quiz_answers.csv"] = csv_bytes(
        ("onboarding_id", "element_id", "question_type", "option_id", "option_value",
         "option_label", "respondents", "share", "selections"), rows)

    # ---- quality
    type_counts = {t: 0 for t in KNOWN_TYPES}
    unknown = 0
    for ev in events:
        if ev.etype in type_counts:
            type_counts[ev.etype] += 1
        else:
            unknown += 1
    q = [("files", files), ("bytes_read", bytes_read), ("bytes_decoded", bytes_decoded),
         ("lines", lines), ("events", len(events)), ("duplicates", duplicates),
         ("conflicting_duplicates", conflicts), ("rejected", total_rejected)]
    q += [("rejected_" + r, rejected[r]) for r in REASONS]
    q.append(("unknown_event_type", unknown))
    q += [("events_" + t, type_counts[t]) for t in KNOWN_TYPES]
    if events:
        q.append(("first_event", fmt_utc_ms(min(ev.ns for ev in events))))
        q.append(("last_event", fmt_utc_ms(max(ev.ns for ev in events))))
    else:
        q += [("first_event", ""), ("last_event", "")]
    out["quality.csv"] = csv_bytes(("metric", "value"), q)

    # ---- rejects
    out["rejects.csv"] = csv_bytes(("file", "line", "reason"), reject_rows)

    assert lines == len(events) + duplicates + total_rejected
    summary = ("lines=%d events=%d duplicates=%d rejected=%d"
               % (lines, len(events), duplicates, total_rejected))
    return out, summary


def share4(r, total):
    q, rem = divmod(r * 10000, total)
    if 2 * rem >= total:
        q += 1
    return "%d.%04d" % (q // 10000, q % 10000)


class RateError(Exception):
    pass


def write_outputs(outdir, out):
    os.makedirs(outdir, exist_ok=True)
    tmps = []
    try:
        for name, data in out.items():
            tmp = os.path.join(outdir, ".%s.tmp-%d" % (name, os.getpid()))
            with open(tmp, "wb") as f:
                f.write(data)
            tmps.append((tmp, os.path.join(outdir, name)))
        for tmp, final in tmps:
            os.replace(tmp, final)
    except OSError:
        for tmp, _ in tmps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise


def main(argv):
    try:
        cfg = parse_args(argv)
    except UsageError as e:
        sys.stderr.write("analyze: %s\n" % e)
        return 1
    try:
        out, summary = run(cfg)
    except InputError as e:
        sys.stderr.write("analyze: %s\n" % e)
        return 2
    except RateError as e:
        sys.stderr.write("analyze: %s\n" % e)
        return 3
    try:
        write_outputs(cfg["out"], out)
    except OSError as e:
        sys.stderr.write("analyze: cannot write to %s: %s\n" % (cfg["out"], e))
        return 2
    if not cfg["quiet"]:
        sys.stderr.write("analyze: %s\n" % summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
