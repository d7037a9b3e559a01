"""One CalDAV session, the same against any server: what Debian's python3-caldav sees of each operation.

Usage: caldav-compare.py URL USERNAME PASSWORD CALENDAR_PATH
CALENDAR_PATH is the calendar the session writes in (Almanac's main calendar; on Radicale the test makes one there
first). Prints one JSON object, an answer per operation, normalised of what two servers may rightly write apart:
addresses (each resource named by its UID or its name, each calendar by its name in the home), ETags and sync tokens (only
whether there is one), PRODID, DTSTAMP and the properties a server adds of its own (see normal_event).
test/calendar/caldav.radicale.test.ts runs it against Radicale and Almanac and compares the answers.
"""
import json
import sys
from datetime import datetime, timezone
from urllib.parse import urlparse

import caldav
from caldav.lib import error

# The properties the answers compare: what a client wrote and reads back. A server writes others of its own
# (Almanac its URL, X-ALMANAC-*, LANGUAGE parameters; both a SEQUENCE): those are no answer to the client's request.
COMPARED = ["UID", "SUMMARY", "DTSTART", "DTEND", "RRULE", "EXDATE", "RECURRENCE-ID", "LOCATION"]

def vcalendar(uid, start, end, summary, *more):
    """One VEVENT in Europe/Rome, as a client writes it."""
    event = [f"UID:{uid}", "DTSTAMP:20310101T000000Z", f"DTSTART;TZID=Europe/Rome:{start}", f"DTEND;TZID=Europe/Rome:{end}"]
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//python-caldav comparison//EN", "BEGIN:VEVENT", *event]
    return "\n".join([*lines, f"SUMMARY:{summary}", *more, "END:VEVENT", "END:VCALENDAR", ""])


def utc(text):
    return datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)


def value_of(prop):
    if isinstance(prop, list):
        return [value_of(item) for item in prop]
    if hasattr(prop, "to_ical"):
        text = prop.to_ical()
        return text.decode() if isinstance(text, bytes) else str(text)
    return str(prop)


def normal_event(data):
    """The VEVENTs of an iCalendar object, each as its compared properties (and the TZID of its times)."""
    from icalendar import Calendar

    components = []
    for component in Calendar.from_ical(data).walk("VEVENT"):
        shown = {}
        for name in COMPARED:
            prop = component.get(name)
            if prop is None:
                continue
            shown[name] = value_of(prop)
            tzid = getattr(prop, "params", {}).get("TZID")
            if tzid is not None:
                shown[f"{name};TZID"] = str(tzid)
        components.append(shown)
    return sorted(components, key=lambda item: json.dumps(item, sort_keys=True))


class Session:
    def __init__(self, url, username, password, calendar_path):
        self.client = caldav.DAVClient(url=url, username=username, password=password)
        self.base = urlparse(url)
        self.calendar_path = calendar_path
        self.answers = []

    def record(self, operation, answer):
        self.answers.append({"operation": operation, "answer": answer})

    def path_of(self, url):
        return urlparse(str(url)).path

    def uid_at(self, url):
        """A resource's UID: how the answers name resources (servers name them by their own addresses)."""
        response = self.client.request(str(url), "GET")
        if response.status != 200:
            return f"<{response.status}>"
        from icalendar import Calendar

        return str(Calendar.from_ical(response.raw).walk("VEVENT")[0].get("UID"))

    def status(self, url, method, body="", headers=None):
        return self.client.request(str(url), method, body, headers or {}).status

    def run(self):
        principal = self.client.principal()
        self.record("discover", {"principal": principal.url is not None, "home": principal.calendar_home_set.url is not None})
        calendars = principal.calendars()
        self.record(
            "list calendars",
            sorted([{"path": self.path_of(c.url).rstrip("/").rsplit("/", 1)[1], "name": c.get_display_name()} for c in calendars], key=lambda c: c["path"]),
        )
        calendar = caldav.Calendar(client=self.client, url=self.client.url.join(self.calendar_path))
        start = calendar.objects_by_sync_token(load_objects=False)
        self.record("sync, first", {"objects": len(list(start)), "token": bool(start.sync_token)})

        garden = "LOCATION:Garden stage"
        spring = calendar.save_event(vcalendar("compare-spring@example.org", "20310410T200000", "20310410T220000", "Spring concert", garden))
        summer = calendar.save_event(vcalendar("compare-summer@example.org", "20310710T200000", "20310710T220000", "Summer concert", garden))
        weekly = calendar.save_event(
            vcalendar("compare-weekly@example.org", "20310301T180000", "20310301T190000", "Weekly class", "RRULE:FREQ=WEEKLY;COUNT=10")
        )
        self.record("create", {"paths": sorted(self.path_of(event.url).rsplit("/", 1)[1] for event in (spring, summer, weekly))})

        found = calendar.date_search(utc("20310401T000000Z"), utc("20310501T000000Z"), expand=False)
        self.record("search a time range", sorted([normal_event(event.data) for event in found], key=json.dumps))
        empty = calendar.date_search(utc("20300101T000000Z"), utc("20300201T000000Z"), expand=False)
        self.record("search an empty time range", [normal_event(event.data) for event in empty])

        urls = [spring.url, summer.url, weekly.url, self.client.url.join(self.calendar_path + "missing@example.org.ics")]
        got = calendar.calendar_multiget(urls)
        shown = [normal_event(event.data) if event.data is not None else "not found" for event in got]
        self.record("multiget", sorted(shown, key=json.dumps))

        created = self.client.request(str(spring.url), "GET").headers.get("etag")
        changed = spring.data.replace("Spring concert", "Spring concert moved")
        put = lambda data, etag: self.status(spring.url, "PUT", data, {"Content-Type": "text/calendar; charset=utf-8", "If-Match": etag})
        self.record("update with its ETag", {"status": put(changed, created), "etag": created is not None})
        self.record("update with a stale ETag", {"status": put(changed.replace("moved", "stale"), created)})
        spring.load()
        self.record("read after the updates", normal_event(spring.data))
        exists = self.status(summer.url, "PUT", summer.data, {"Content-Type": "text/calendar", "If-None-Match": "*"})
        self.record("create over an existing one (If-None-Match: *)", {"status": exists})

        after_writes = calendar.objects_by_sync_token(sync_token=start.sync_token, load_objects=False)
        self.record("sync from the first token", sorted(self.uid_at(item.url) for item in after_writes))

        self.record("delete with a stale ETag", {"status": self.status(summer.url, "DELETE", "", {"If-Match": created})})
        summer_etag = self.client.request(str(summer.url), "GET").headers.get("etag")
        self.record("delete with its ETag", {"status": self.status(summer.url, "DELETE", "", {"If-Match": summer_etag})})
        self.record("read a deleted event", {"status": self.status(summer.url, "GET")})

        removed = calendar.objects_by_sync_token(sync_token=after_writes.sync_token, load_objects=False)
        gone, changed_since = [], []
        for item in removed:
            try:
                item.load()
                changed_since.append(str(item.icalendar_instance.walk("VEVENT")[0].get("UID")))
            except error.NotFoundError:
                gone.append(1)
        self.record("sync after the delete", {"changed": sorted(changed_since), "gone": len(gone), "token": bool(removed.sync_token)})
        quiet = calendar.objects_by_sync_token(sync_token=removed.sync_token, load_objects=False)
        self.record("sync with nothing new", {"objects": len(list(quiet)), "token": bool(quiet.sync_token)})

        for event in (spring, weekly):
            event.delete()
        return self.answers


def main():
    url, username, password, calendar_path = sys.argv[1:]
    print(json.dumps(Session(url, username, password, calendar_path).run()))


main()
