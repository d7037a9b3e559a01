"""Calls pingOperation with Python zeep, from the WSDL the service serves.

Usage: zeep-ping.py WSDL_URL PING_INPUT [plain|text|digest USERNAME PASSWORD]
Exits 0 when the service accepted the ping (zeep returns None for a 202).
"""
import sys

from zeep import Client
from zeep.wsse.username import UsernameToken

wsdl_url, ping_input = sys.argv[1], sys.argv[2]
mode = sys.argv[3] if len(sys.argv) > 3 else "plain"
wsse = None
if mode != "plain":
    wsse = UsernameToken(sys.argv[4], sys.argv[5], use_digest=(mode == "digest"))

client = Client(wsdl_url, wsse=wsse)
result = client.service.pingOperation(pingInput=ping_input)
if result is not None:
    sys.exit("unexpected response: %r" % (result,))
