"""The occurrences of recurring series as python-dateutil and zoneinfo see them.

An oracle for test/calendar/recurrence.oracle.test.ts, independent of the
code under test (which expands rules with its own expander and maps wall
times with Intl's zone data). Run with Debian's /usr/bin/python3 and
python3-dateutil. Reads a JSON array of cases on stdin:

  {"rrule": "FREQ=...;COUNT=...", "start": "YYYY-MM-DD HH:MM:SS",
   "zone": "Europe/Rome", "until": "YYYY-MM-DD HH:MM:SS", "exdatePicks": [3, 17]}

and prints a JSON array with, for each case:

  {"ruleGives": bool,        # whether the rule alone yields any occurrence
   "all": [utc, ...],        # DTSTART plus the rule's occurrences, by instant
   "allLocal": [wall, ...],  # the same instants as wall times of the zone
   "exdates": ["YYYYMMDDTHHMMSSZ", ...],  # all[pick % len(all)] for each pick
   "remaining": [utc, ...]}  # all less the EXDATEs, removed by instant

UTC stamps are "YYYY-MM-DD HH:MM:SS". The oracle picks the EXDATEs from its
own occurrences so that one call serves a whole run of cases.
"""

import json
import sys
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr

STAMP = "%Y-%m-%d %H:%M:%S"


def instant(wall, zone):
    """A naive wall time of `zone` as an aware UTC datetime.

    fold=0 is RFC 5545's rule (§3.3.5): a wall time in a DST gap is read with
    the offset in force before the gap (so it lands as far past the gap's end
    as it was past its start), and an ambiguous wall time takes the first,
    earlier instant. Checked with zoneinfo 2025b in check_fold_rule() below.
    """
    return wall.replace(tzinfo=ZoneInfo(zone), fold=0).astimezone(timezone.utc)


def check_fold_rule():
    """Fails loudly if fold=0 ever stops meaning what instant() relies on."""
    new_york = "America/New_York"
    gap = instant(datetime(2027, 3, 14, 2, 30), new_york)  # 02:00 EST -> 03:00 EDT
    assert gap == datetime(2027, 3, 14, 7, 30, tzinfo=timezone.utc), gap  # = 03:30 EDT
    overlap = instant(datetime(2027, 11, 7, 1, 30), new_york)  # 02:00 EDT -> 01:00 EST
    assert overlap == datetime(2027, 11, 7, 5, 30, tzinfo=timezone.utc), overlap  # 01:30 EDT, the first


def expand(case):
    start = datetime.strptime(case["start"], STAMP)
    until = datetime.strptime(case["until"], STAMP)
    rule = rrulestr("RRULE:" + case["rrule"], dtstart=start)
    walls = list(rule.between(start, until, inc=True))
    rule_gives = len(walls) > 0
    # RFC 5545 §3.8.5.3: DTSTART is always the first instance, even when the rule does not match it.
    walls.append(start)
    instants = sorted({instant(wall, case["zone"]) for wall in walls})
    excluded = sorted({instants[pick % len(instants)] for pick in case.get("exdatePicks", [])})
    remaining = [moment for moment in instants if moment not in excluded]
    return {
        "ruleGives": rule_gives,
        "all": [moment.strftime(STAMP) for moment in instants],
        "allLocal": [moment.astimezone(ZoneInfo(case["zone"])).strftime(STAMP) for moment in instants],
        "exdates": [moment.strftime("%Y%m%dT%H%M%SZ") for moment in excluded],
        "remaining": [moment.strftime(STAMP) for moment in remaining],
    }


def main():
    check_fold_rule()
    cases = json.load(sys.stdin)
    json.dump([expand(case) for case in cases], sys.stdout)


if __name__ == "__main__":
    main()
