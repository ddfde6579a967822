#!/usr/bin/env python3
"""Copies NDJSON from stdin to stdout, giving every `action` object a key unique
to its line: `"sessionId":"<uuid>"` is inserted as the object's first member.

bench/run times `analyze` on the result (--unique-actions) to show what its
figures owe to the action cache: no action is then ever met twice, so every
one is validated and read in full. The SPEC reads no `sessionId`, so every
metric is unchanged (bench/run checks that against the original export).
The UUIDs come from a seeded generator: the same input gives the same output.
"""
import random
import sys
import uuid

MARK = b'"action":{'


def main() -> None:
    rng = random.Random(1)
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        at = line.find(MARK)
        if at >= 0:
            cut = at + len(MARK)
            session = str(uuid.UUID(int=rng.getrandbits(128))).encode()
            line = line[:cut] + b'"sessionId":"' + session + b'",' + line[cut:]
        out.write(line)


if __name__ == "__main__":
    main()
