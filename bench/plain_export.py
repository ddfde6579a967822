#!/usr/bin/env python3
"""plain_export.py - a plain exporter's NDJSON, for the benchmark (bench/run --plain).

    plain_export.py --events N [--seed S] [--days D] [--shuffle-window W] [--out FILE]

Writes about N events the way a straightforward exporter would, with nothing
adversarial in them: Python's own `json.dumps` defaults (`", "` and `": "`
between members, non-ASCII text as `\\uXXXX` escapes), random version-4 UUIDs
for event, device and profile ids, one fixed key order, RFC 3339 timestamps
in UTC with milliseconds, a `properties` object on every line, and lines in
time order. Every line is valid and every event id unique, so DuckDB's SQL
(bench/duckdb) reads it as the SPEC does and its rows are compared.

With `--shuffle-window W` the lines are shuffled within consecutive windows
of W lines, as in an export concatenated from unsorted partitions: the same
events, but a device's next line is seldom within gzip's 32 KiB window, so
the text compresses about 4:1 instead of about 7:1 (the issue's own
reference export: 1.09 GB decoded, 310 MB gzipped, about 3.5:1). What that
does to the ratios: docs/benchmark.md, "What the figures owe to the data".

The simulation: devices install over D days (default 1: a nightly export) and run one
script each, interleaved in time: `sdk_activate` at each launch,
an onboarding (analytics events, and quiz answers that are sometimes changed)
on most installs, then sessions over the following days with paywalls and
purchases; some users log in (`identify`, now and then onto the profile their
id already had: a switch), some log out, and a few reinstall (a new device id).

Python 3 standard library only; the output is a pure function of the options.
"""
import argparse
import datetime
import heapq
import json
import random
import sys

EPOCH = datetime.datetime(2026, 11, 1, tzinfo=datetime.timezone.utc)

# (element id, params type, options): options are (id, value, label).
ONBOARDINGS = {
    "welcome_flow_v2": [
        ("goal", "select", [("lose_weight", "lose_weight", "Lose weight"),
                            ("build_muscle", "build_muscle", "Build muscle"),
                            ("reduce_stress", "reduce_stress", "Reduce stress"),
                            ("sleep_better", "sleep_better", "Sleep better")]),
        ("interests", "multiSelect", [("running", "running", "Running"),
                                      ("yoga", "yoga", "Yoga"),
                                      ("cooking", "cooking", "Healthy cooking"),
                                      ("meditation", "meditation", "Meditation"),
                                      ("cycling", "cycling", "Cycling")]),
        ("name", "input", None),
        ("birthday", "datePicker", None),
        ("experience", "select", [("beginner", "1", "Beginner"),
                                  ("intermediate", "2", "Intermediate"),
                                  ("advanced", "3", "Advanced")]),
    ],
    "quiz_ja_2026": [
        ("level", "select", [("beginner", "beginner", "初級"),
                             ("intermediate", "intermediate", "中級"),
                             ("advanced", "advanced", "上級")]),
        ("topics", "multiSelect", [("grammar", "grammar", "文法"),
                                   ("kanji", "kanji", "漢字"),
                                   ("listening", "listening", "リスニング"),
                                   ("speaking", "speaking", "会話")]),
        ("minutes", "select", [("5", "5", "5分"), ("10", "10", "10分"), ("20", "20", "20分")]),
    ],
}
OTHER_TYPES = ("paywall_shown", "session_start", "purchase_completed", "subscription_renewed",
               "access_level_updated")
PLATFORMS = (("ios", ("17.6.1", "18.1", "18.2")), ("android", ("13", "14", "15")))
APP_VERSIONS = ("3.1.7", "3.2.0", "3.2.1", "3.3.0")
LOCALES = ("en_US", "en_GB", "de_DE", "ja_JP", "pt_BR", "fr_FR", "es_ES")


class Exporter:
    def __init__(self, seed, days):
        self.random = random.Random(seed)
        self.window_ms = days * 86_400_000
        self.users = 0

    def uuid4(self):
        bits = self.random.getrandbits(128)
        bits = (bits & ~(0xF << 76)) | (4 << 76)           # version 4
        bits = (bits & ~(0x3 << 62)) | (0x2 << 62)          # RFC 4122 variant
        h = "%032x" % bits
        return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])

    @staticmethod
    def timestamp(ms):
        t = EPOCH + datetime.timedelta(milliseconds=ms)
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)

    def device_life(self, start_ms):
        """One device's events, in time order: (ms, event_type, extra) where extra holds
        the profile / user changes and the action."""
        r = self.random
        platform, os_versions = r.choice(PLATFORMS)
        device = {
            "device_id": self.uuid4(), "profile_id": self.uuid4(), "cuid": None,
            "properties": {"platform": platform, "os_version": r.choice(os_versions),
                           "app_version": r.choice(APP_VERSIONS), "locale": r.choice(LOCALES)},
        }
        t = start_ms
        yield t, "sdk_activate", device, None
        if r.random() < 0.5:
            name = "quiz_ja_2026" if device["properties"]["locale"] == "ja_JP" else "welcome_flow_v2"
            screens = ONBOARDINGS[name]
            total = len(screens)
            t += r.randrange(300, 3000)
            yield t, "onboarding_analytics", device, self.analytics("onboarding_started", name, screens[0][0], 0, total)
            for index, (element, kind, options) in enumerate(screens):
                t += r.randrange(500, 4000)
                yield t, "onboarding_analytics", device, self.analytics("screen_presented", name, element, index, total)
                answers = 2 if r.random() < 0.15 else 1
                for _ in range(answers):
                    t += r.randrange(800, 9000)
                    yield t, "onboarding_state_updated", device, self.answer(name, element, kind, options, index, total)
                t += r.randrange(200, 2000)
                yield t, "onboarding_analytics", device, self.analytics("screen_completed", name, element, index, total)
                if r.random() < 0.08:
                    break
            else:
                t += r.randrange(200, 2000)
                yield t, "onboarding_analytics", device, self.analytics(
                    "onboarding_completed", name, screens[-1][0], total - 1, total)
        # Later launches, at random times before the export's window ends.
        end = self.window_ms
        launches = sorted(r.randrange(t, end) for _ in range(r.randrange(0, 4)) if t < end)
        for launch in launches:
            t = max(t, launch) + 1
            yield t, "sdk_activate", device, None
            for _ in range(r.randrange(0, 3)):
                t += r.randrange(1_000, 120_000)
                yield t, r.choice(OTHER_TYPES), device, None
            roll = r.random()
            if roll < 0.10 and device["cuid"] is None:
                t += r.randrange(1_000, 60_000)
                self.users += 1
                device["cuid"] = "user_%07d" % self.users
                if r.random() < 0.25:
                    device["profile_id"] = self.uuid4()   # the id had a profile already: a switch
                yield t, "identify", device, None
            elif roll < 0.13 and device["cuid"] is not None:
                t += r.randrange(1_000, 60_000)
                device["cuid"] = None
                device["profile_id"] = self.uuid4()       # logout: a new anonymous profile
                yield t, "logout", device, None
            elif roll < 0.14:
                device["device_id"] = self.uuid4()        # a reinstall
                t += r.randrange(60_000, 600_000)
                yield t, "sdk_activate", device, None

    @staticmethod
    def meta(name, screen, index, total):
        return {"onboardingId": name, "screenClientId": screen + "_screen", "screenIndex": index,
                "screensTotal": total}

    def analytics(self, event, name, screen, index, total):
        return {"name": event, "meta": self.meta(name, screen, index, total)}

    def answer(self, name, element, kind, options, index, total):
        r = self.random
        if kind == "select":
            option = r.choice(options)
            value = {"id": option[0], "value": option[1], "label": option[2]}
        elif kind == "multiSelect":
            value = [{"id": o[0], "value": o[1], "label": o[2]}
                     for o in r.sample(options, r.randrange(0, len(options) + 1))]
        elif kind == "input":
            value = {"type": "text", "value": r.choice(("Alex", "Sam", "Yuki", "Maria", "Jonas"))}
        else:
            value = {"day": r.randrange(1, 29), "month": r.randrange(1, 13), "year": r.randrange(1960, 2010)}
        return {"elementId": element, "meta": self.meta(name, element, index, total),
                "params": {"type": kind, "value": value}}

    def events(self, count):
        """`count` events (fewer only if every device's life ends first) of devices
        installing evenly over the window, merged into time order."""
        r = self.random
        mean_events = 8                        # below the mean of device_life: enough devices
        devices = max(1, count // mean_events)
        starts = sorted(r.randrange(0, self.window_ms) for _ in range(devices))
        heap = []
        seq = 0
        written = 0
        for start in starts:
            # Start every device whose life begins before this one.
            while heap and heap[0][0] <= start:
                if written >= count:
                    return
                written += yield from self.emit(heap)
            life = self.device_life(start)
            first = next(life)
            heapq.heappush(heap, (first[0], seq, first, life))
            seq += 1
            if written >= count:
                return
        while heap and written < count:
            written += yield from self.emit(heap)

    def emit(self, heap):
        ms, seq, event, life = heapq.heappop(heap)
        yield event
        following = next(life, None)
        if following is not None:
            heapq.heappush(heap, (following[0], seq, following, life))
        return 1

    def lines(self, count):
        session = {}
        for ms, event_type, device, action in self.events(count):
            key = device["device_id"]
            if event_type == "sdk_activate" or key not in session:
                session[key] = self.uuid4()
            event = {
                "event_id": self.uuid4(),
                "event_type": event_type,
                "timestamp": self.timestamp(ms),
                "device_id": device["device_id"],
                "profile_id": device["profile_id"],
                "customer_user_id": device["cuid"],
            }
            if action is not None:
                event["action"] = action
            properties = dict(device["properties"])
            properties["session_id"] = session[key]
            event["properties"] = properties
            yield json.dumps(event)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--shuffle-window", type=int, default=0, metavar="W")
    parser.add_argument("--out", default="-")
    args = parser.parse_args(argv[1:])
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="ascii")
    shuffler = random.Random(args.seed ^ 0x5EED)
    window = []
    with out:
        for line in Exporter(args.seed, args.days).lines(args.events):
            if args.shuffle_window <= 1:
                out.write(line + "\n")
                continue
            window.append(line)
            if len(window) == args.shuffle_window:
                shuffler.shuffle(window)
                out.write("\n".join(window) + "\n")
                window.clear()
        if window:
            shuffler.shuffle(window)
            out.write("\n".join(window) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
