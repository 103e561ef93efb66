"""A readybell webhook receiver: Python 3.9+, standard library only.

    READYBELL_WEBHOOK_SECRET=whsec_... PORT=4242 python3 receiver.py

Checks both signatures of each delivery over the raw body (Service-Signature, Stripe's scheme, and
the Standard Webhooks headers), refuses a stale timestamp, a replayed delivery and a bad signature
with 400, answers 204 at once and does the work on another thread.
"""
import base64
import hashlib
import hmac
import json
import os
import queue
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = os.environ.get("READYBELL_WEBHOOK_SECRET", "")  # whsec_...
TOLERANCE = 300  # seconds either way: an older delivery could be a captured one sent again


class Invalid(Exception):
    pass


def check_timestamp(value):
    if not re.fullmatch(r"[0-9]{1,15}", value or ""):
        raise Invalid("malformed timestamp")
    if abs(time.time() - int(value)) > TOLERANCE:
        raise Invalid("timestamp out of tolerance")


def standard_key(secret):
    # The base64 after "whsec_"; secrets issued before may lack padding or use - and _.
    encoded = secret[len("whsec_"):].replace("-", "+").replace("_", "/").rstrip("=")
    return base64.b64decode(encoded + "=" * (-len(encoded) % 4))


def verify_standard_webhooks(msg_id, ts, header, body):
    """webhook-id, webhook-timestamp, webhook-signature: v1,<base64>[ v1,<base64>...]"""
    if not msg_id or not header:
        raise Invalid("missing webhook-* headers")
    check_timestamp(ts)
    mac = hmac.new(standard_key(SECRET), f"{msg_id}.{ts}.".encode() + body, hashlib.sha256)
    expected = base64.b64encode(mac.digest())
    if not any(hmac.compare_digest(expected, s[3:].encode()) for s in header.split() if s.startswith("v1,")):
        raise Invalid("no matching webhook-signature")


def verify_service_signature(header, body):
    """Service-Signature: t=<seconds>,v1=<hex>[,v1=<hex>...] (Stripe's scheme)"""
    items = [part.strip().split("=", 1) for part in (header or "").split(",") if "=" in part]
    ts = [value for name, value in items if name == "t"]
    signatures = [value for name, value in items if name == "v1"]
    if len(ts) != 1 or not signatures:
        raise Invalid("malformed Service-Signature")
    check_timestamp(ts[0])
    expected = hmac.new(SECRET.encode(), ts[0].encode() + b"." + body, hashlib.sha256).hexdigest().encode()
    if not any(hmac.compare_digest(expected, s.encode()) for s in signatures):
        raise Invalid("no matching Service-Signature")


# A delivery is (webhook-id, webhook-timestamp): readybell's retries of an event carry a new
# timestamp, so the same pair twice is someone replaying a captured request. Pairs are kept as long
# as their timestamp is within tolerance; an older one is refused anyway.
deliveries_seen = {}
events_seen = set()  # in production: a table with a unique index on the event id
lock = threading.Lock()
work = queue.Queue()


def first_time(msg_id, ts):
    now = time.time()
    with lock:
        for key, at in list(deliveries_seen.items()):
            if at < now - TOLERANCE:
                del deliveries_seen[key]
        if (msg_id, ts) in deliveries_seen:
            return False
        deliveries_seen[(msg_id, ts)] = int(ts)
        return True


def worker():
    while True:
        event = work.get()
        print("event", event["type"], event["id"], flush=True)  # your work goes here


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))  # the raw bytes
        msg_id, ts = self.headers.get("webhook-id"), self.headers.get("webhook-timestamp")
        try:
            verify_standard_webhooks(msg_id, ts, self.headers.get("webhook-signature"), body)
            verify_service_signature(self.headers.get("Service-Signature"), body)
            if not first_time(msg_id, ts):
                raise Invalid("replayed delivery")
        except Invalid as err:
            # Said, so that a wrong secret does not look like silence (readybell retries meanwhile).
            print("rejected delivery", msg_id, "-", err, file=sys.stderr, flush=True)
            self.answer(400, str(err))
            return
        event = json.loads(body)
        with lock:
            new = event["id"] not in events_seen  # a retry of an event already handled is a 2xx too
            events_seen.add(event["id"])
        if new:
            work.put(event)
        self.answer(204)

    def answer(self, status, text=""):
        self.send_response(status)
        if status != 204:
            self.send_header("Content-Length", str(len(text.encode())))
        self.end_headers()
        self.wfile.write(text.encode())

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    if not SECRET.startswith("whsec_"):
        print("READYBELL_WEBHOOK_SECRET is not set: give the endpoint's signing secret (whsec_...)", file=sys.stderr)
        sys.exit(2)
    threading.Thread(target=worker, daemon=True).start()
    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "4242"))), Receiver)
    print("listening on", server.server_address[1], flush=True)
    server.serve_forever()
