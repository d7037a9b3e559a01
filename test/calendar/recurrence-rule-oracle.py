"""The wall times an RRULE gives, as python-dateutil expands it.

An oracle for test/calendar/recurrence.property.test.ts, independent of the
code under test. Run with Debian's /usr/bin/python3 and python3-dateutil.
Reads a JSON array of cases on stdin:

  {"rrule": "FREQ=...", "start": "YYYY-MM-DD HH:MM:SS",
   "from": "YYYY-MM-DD HH:MM:SS", "to": "YYYY-MM-DD HH:MM:SS", "limit": n}

and prints a JSON array with, for each case, the rule's wall times from
`from` to `to` (inclusive, floating, DTSTART not added unless the rule
gives it), at most `limit`, COUNT counted from DTSTART; or
{"refused": message} when dateutil refuses the rule, or {"timeout": true}
when it takes more than 0.1 s of CPU (dateutil searches a rule that never
matches up to the year 9999). A case that finishes just as its time runs out
may count as a timeout, never as an error.
"""

import json
import signal
import sys
from datetime import datetime

from dateutil.rrule import rrulestr

STAMP = "%Y-%m-%d %H:%M:%S"


class Timeout(Exception):
    pass


# The signal can be delivered after expand() returned; only an armed timer raises.
armed = False


def on_alarm(_signum, _frame):
    if armed:
        raise Timeout()


def expand(case):
    start = datetime.strptime(case["start"], STAMP)
    first = datetime.strptime(case["from"], STAMP)
    last = datetime.strptime(case["to"], STAMP)
    found = []
    for wall in rrulestr("RRULE:" + case["rrule"], dtstart=start):
        if wall > last:
            break
        if wall >= first:
            found.append(wall.strftime(STAMP))
            if len(found) >= case["limit"]:
                break
    return found


def answer(case):
    global armed
    try:
        armed = True
        signal.setitimer(signal.ITIMER_VIRTUAL, 0.1)
        try:
            return expand(case)
        except (ValueError, OverflowError) as error:
            return {"refused": str(error)}
        finally:
            armed = False
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    except Timeout:
        return {"timeout": True}


signal.signal(signal.SIGVTALRM, on_alarm)
print(json.dumps([answer(case) for case in json.load(sys.stdin)]))
