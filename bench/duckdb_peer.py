#!/usr/bin/env python3
"""DuckDB benchmark peer for `analyze` (bench/run uses it; never a dependency of analyze).

usage: duckdb_peer.py INPUT OUTDIR [--threads N]

Runs bench/duckdb/load.sql on INPUT (a gzipped or plain NDJSON export), then
installs.sql, profile_switches.sql and quiz_answers.sql, which write
OUTDIR/installs.csv, OUTDIR/profile_switches.csv and OUTDIR/quiz_answers.csv.
One DuckDB connection (in memory) runs all four scripts.
"""
import os
import sys

import duckdb

SQL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "duckdb")
OUTPUTS = ("installs", "profile_switches", "quiz_answers")


def literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def script(name: str, **values: str) -> str:
    with open(os.path.join(SQL_DIR, name + ".sql"), encoding="utf-8") as f:
        text = f.read()
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", literal(value))
    return text


def compression(path: str) -> str:
    """'gzip' when the file starts with gzip's magic bytes, else 'none': the
    content decides, as for analyze (SPEC §1), not the name."""
    with open(path, "rb") as f:
        return "gzip" if f.read(2) == b"\x1f\x8b" else "none"


def main(argv: list) -> int:
    args = [a for a in argv[1:]]
    threads = None
    if "--threads" in args:
        i = args.index("--threads")
        threads = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 1
    source, out_dir = args
    os.makedirs(out_dir, exist_ok=True)
    con = duckdb.connect(":memory:")
    if threads is not None:
        con.execute(f"SET threads = {threads}")
    con.execute(script("load", input=source, compression=compression(source)))
    for name in OUTPUTS:
        con.execute(script(name, out=os.path.join(out_dir, name + ".csv")))
    con.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
