"""Drives Almanac's CalDAV service with Debian's python3-caldav, as a calendar app would.

Usage: caldav-client.py URL USERNAME PASSWORD read START END
       caldav-client.py URL USERNAME PASSWORD sync TOKEN
Prints what the client saw as one JSON object (test/calendar/caldav.client.test.ts compares it with the API).
"""
import json
import sys
from datetime import datetime, timezone

import caldav
from caldav.lib import error


def utc(text):
    return datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)


def events_calendar(principal):
    for calendar in principal.calendars():
        if str(calendar.url).rstrip("/").endswith("/events"):
            return calendar
    raise SystemExit("no /events calendar")


def read(principal, start, end):
    calendars = [{"url": str(c.url), "name": c.get_display_name()} for c in principal.calendars()]
    calendar = events_calendar(principal)
    found = []
    for event in calendar.date_search(utc(start), utc(end), expand=False):
        event.load()
        component = event.icalendar_instance
        masters = [c for c in component.walk("VEVENT") if c.get("RECURRENCE-ID") is None]
        found.append(
            {
                "url": str(event.url),
                "uid": str(masters[0].get("UID")),
                "summary": str(masters[0].get("SUMMARY")),
                "rrule": masters[0].get("RRULE") is not None,
                "vevents": len(list(component.walk("VEVENT"))),
            }
        )
    synced = calendar.objects_by_sync_token(load_objects=False)
    return {
        "principal": str(principal.url),
        "calendars": calendars,
        "found": sorted(found, key=lambda item: item["url"]),
        "objects": sorted(str(o.url) for o in synced),
        "token": synced.sync_token,
    }


def sync(principal, token):
    calendar = events_calendar(principal)
    updates = calendar.objects_by_sync_token(sync_token=token, load_objects=False)
    updated, deleted = [], []
    for obj in updates:
        try:
            obj.load()
            updated.append({"url": str(obj.url), "summary": str(obj.icalendar_instance.walk("VEVENT")[0].get("SUMMARY"))})
        except error.NotFoundError:
            deleted.append(str(obj.url))
    return {"updated": sorted(updated, key=lambda item: item["url"]), "deleted": sorted(deleted), "token": updates.sync_token}


def main():
    url, username, password, mode, *rest = sys.argv[1:]
    client = caldav.DAVClient(url=url, username=username, password=password)
    principal = client.principal()
    result = read(principal, *rest) if mode == "read" else sync(principal, *rest)
    print(json.dumps(result))


main()
