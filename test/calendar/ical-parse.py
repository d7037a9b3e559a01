"""Reads an iCalendar feed on stdin with Debian's python3-icalendar and prints
its VEVENTs and VTIMEZONEs as JSON (test/calendar/ical.feed.test.ts compares
them with the JSON API). Instants are UTC ISO strings; days are YYYY-MM-DD."""
import datetime
import json
import sys

import icalendar


def moment(value):
    if value is None:
        return None
    dt = value.dt
    if isinstance(dt, datetime.datetime):
        if dt.tzinfo is None:
            return {"floating": dt.isoformat()}
        return {"utc": dt.astimezone(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S"), "tzid": value.params.get("TZID")}
    return {"date": dt.isoformat()}


def text(value):
    return None if value is None else str(value)


def main():
    calendar = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
    events = []
    timezones = []
    for component in calendar.walk():
        if component.name == "VTIMEZONE":
            timezones.append(str(component.get("TZID")))
        if component.name != "VEVENT":
            continue
        exdates = []
        raw = component.get("EXDATE")
        for line in raw if isinstance(raw, list) else ([raw] if raw is not None else []):
            for item in line.dts:
                exdates.append(moment(item))
        events.append(
            {
                "uid": text(component.get("UID")),
                "sequence": int(component.get("SEQUENCE", 0)),
                "summary": text(component.get("SUMMARY")),
                "description": text(component.get("DESCRIPTION")),
                "location": text(component.get("LOCATION")),
                "start": moment(component.get("DTSTART")),
                "end": moment(component.get("DTEND")),
                "recurrence_id": moment(component.get("RECURRENCE-ID")),
                "rrule": component.get("RRULE").to_ical().decode() if component.get("RRULE") is not None else None,
                "exdates": exdates,
                "stamp": moment(component.get("DTSTAMP")),
                "geo": [float(component.get("GEO").latitude), float(component.get("GEO").longitude)] if component.get("GEO") is not None else None,
            }
        )
    json.dump({"name": text(calendar.get("NAME")), "timezones": timezones, "events": events}, sys.stdout)


main()
