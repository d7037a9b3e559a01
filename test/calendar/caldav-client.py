"""Drives Almanac's CalDAV service with Debian's python3-caldav, as a calendar app would.

Usage: caldav-client.py URL USERNAME PASSWORD read START END
       caldav-client.py URL USERNAME PASSWORD sync TOKEN
       caldav-client.py URL USERNAME PASSWORD write UID
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


def sync(principal, token, calendar=None):
    calendar = calendar or events_calendar(principal)
    updates = calendar.objects_by_sync_token(sync_token=token, load_objects=False)
    updated, deleted = [], []
    for obj in updates:
        try:
            obj.load()
            updated.append({"url": str(obj.url), "summary": str(obj.icalendar_instance.walk("VEVENT")[0].get("SUMMARY"))})
        except error.NotFoundError:
            deleted.append(str(obj.url))
    return {"updated": sorted(updated, key=lambda item: item["url"]), "deleted": sorted(deleted), "token": updates.sync_token}


NEW_EVENT = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//python-caldav test//EN
BEGIN:VEVENT
UID:{uid}
DTSTAMP:20310101T000000Z
DTSTART;TZID=Europe/Rome:20310512T210000
DTEND;TZID=Europe/Rome:20310512T230000
SUMMARY:Made in python
LOCATION:Garden stage
CATEGORIES:Concerts
END:VEVENT
END:VCALENDAR
"""


def etag_of(client, url):
    return client.request(str(url), "GET").headers.get("etag")


def put(client, url, data, etag):
    headers = {"Content-Type": "text/calendar; charset=utf-8", "If-Match": etag}
    return client.request(str(url), "PUT", data, headers).status


def summaries(calendar, token):
    """What a sync from `token` reports: the summaries of the changed events, the urls of the removed ones."""
    synced = sync(None, token, calendar)
    return {"updated": [item["summary"] for item in synced["updated"]], "deleted": synced["deleted"], "token": synced["token"]}


def write(client, principal, uid):
    calendar = events_calendar(principal)
    token = calendar.objects_by_sync_token(load_objects=False).sync_token
    event = calendar.save_event(NEW_EVENT.format(uid=uid))
    created = etag_of(client, event.url)
    after_create = summaries(calendar, token)
    data = event.data.replace("Made in python", "Made in python, changed")
    updated = put(client, event.url, data, created)
    stale = put(client, event.url, data.replace("changed", "stale"), created)
    after_update = summaries(calendar, after_create["token"])
    found = calendar.event_by_uid(uid)
    found.load()
    refused_delete = client.request(str(event.url), "DELETE", "", {"If-Match": created}).status
    event.delete()
    after_delete = summaries(calendar, after_update["token"])
    return {
        "url": str(event.url),
        "created_etag": created is not None,
        "after_create": after_create["updated"],
        "update": updated,
        "stale_update": stale,
        "after_update": after_update["updated"],
        "summary": str(found.icalendar_instance.walk("VEVENT")[0].get("SUMMARY")),
        "stale_delete": refused_delete,
        "after_delete": after_delete["deleted"],
    }


def main():
    url, username, password, mode, *rest = sys.argv[1:]
    client = caldav.DAVClient(url=url, username=username, password=password)
    principal = client.principal()
    if mode == "read":
        result = read(principal, *rest)
    elif mode == "sync":
        result = sync(principal, *rest)
    else:
        result = write(client, principal, *rest)
    print(json.dumps(result))


main()
