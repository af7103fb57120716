#!/usr/bin/env python3
"""Checks a `netarena replay FILE --export trace` file against the Chrome trace event
format and prints its event counts.

Usage: scripts/check_trace.py TRACE.json

Fails (exit 1, one line per problem) unless: the file is JSON with a `traceEvents`
list; every event has ph, ts, pid, tid and name; ph is one of X, i, C, M; every X has a
duration >= 0; every track (pid) an event is on is named by a process_name metadata
event; and spans, instants and counters are all present.
"""

import collections
import json
import sys


def main(path):
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    events = trace.get("traceEvents")
    problems = []
    if not isinstance(events, list):
        print(f"{path}: no traceEvents list")
        return 1
    names = {}
    counts = collections.Counter()
    for n, e in enumerate(events):
        missing = [k for k in ("ph", "ts", "pid", "tid", "name") if k not in e]
        if missing:
            problems.append(f"event {n} lacks {', '.join(missing)}: {e}")
            continue
        ph = e["ph"]
        if ph not in ("X", "i", "C", "M"):
            problems.append(f"event {n}: unexpected ph {ph!r}")
        if ph == "X" and not e.get("dur", -1) >= 0:
            problems.append(f"event {n}: a span without a duration")
        if ph == "M" and e["name"] == "process_name":
            names[e["pid"]] = e["args"]["name"]
            continue
        if ph == "M":
            continue
        # Spans and instants are counted by the first word of their name.
        kind = e["name"].split(" #")[0] if ph == "X" else e["name"]
        if ph == "X" and kind.startswith("snapshot "):
            kind = "snapshot"
        counts[(e["pid"], ph, kind)] += 1
    for pid in sorted({pid for pid, _, _ in counts}):
        if pid not in names:
            problems.append(f"track {pid} has no process_name")
    for ph in ("X", "i", "C"):
        if not any(p == ph for _, p, _ in counts):
            problems.append(f"no {ph} events")
    print(f"{path}: {len(events)} events")
    for pid in sorted(names):
        print(f"  track {pid}: {names[pid]}")
        for (p, ph, kind), c in sorted(counts.items()):
            if p == pid:
                print(f"    {ph} {kind}: {c}")
    for p in problems:
        print(f"problem: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
