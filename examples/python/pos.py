"""A point-of-sale integration with readybell: Python 3.9+, standard library only.

    READYBELL_URL=https://pickup.example.com READYBELL_API_KEY=rk_test_... python3 pos.py 1001

Creates a ticket for order 1001, marks it ready, and collects it. Every POST carries an
Idempotency-Key, reused on every retry, so a retry after a timeout never makes a second ticket.
"""
import http.client
import json
import os
import sys
import time
import urllib.error
import urllib.request

BASE_URL = os.environ["READYBELL_URL"].rstrip("/")
API_KEY = os.environ["READYBELL_API_KEY"]
TIMEOUT = float(os.environ.get("READYBELL_TIMEOUT_SECONDS", "10"))  # per attempt
MAX_ATTEMPTS = 5


class Problem(Exception):
    """A refusal from readybell: an RFC 9457 problem document. Branch on `code`."""

    def __init__(self, status, body):
        super().__init__(f"{status} {body.get('code')}: {body.get('detail')} ({body.get('request_id')})")
        self.status = status
        self.code = body.get("code")
        self.body = body


def problem_body(err):
    try:
        return json.loads(err.read())
    except ValueError:  # not a problem document: a proxy's error page, say
        return {}


def post(path, idempotency_key, body=None):
    """POST with retries: a timeout, a network error, a 5xx, a 429 or a 409 idempotency-key-in-use
    is tried again with the same key, after Retry-After when the answer gives one."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": f"Bearer {API_KEY}", "Idempotency-Key": idempotency_key}
    if data is not None:
        headers["Content-Type"] = "application/json"
    for attempt in range(1, MAX_ATTEMPTS + 1):
        request = urllib.request.Request(BASE_URL + path, data=data, headers=headers, method="POST")
        retry_after = None
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                return json.load(response)
        except urllib.error.HTTPError as err:
            problem = Problem(err.code, problem_body(err))
            if not (err.code >= 500 or err.code == 429 or problem.code == "idempotency-key-in-use"):
                raise problem  # any other refusal will not change by asking again
            reason, retry_after = f"{err.code} {problem.code}", err.headers.get("Retry-After")
            if attempt == MAX_ATTEMPTS:
                raise problem
        except (OSError, http.client.HTTPException) as err:  # a timeout or no answer: did it happen?
            reason = f"no answer ({getattr(err, 'reason', err)})"
            if attempt == MAX_ATTEMPTS:
                raise
        # Retry-After in seconds when given, else exponential backoff: 0.5 s, 1 s, 2 s, ...
        delay = int(retry_after) if retry_after and retry_after.isdigit() else 0.5 * 2 ** (attempt - 1)
        print(f"retrying POST {path} in {delay} s after {reason}", flush=True)
        time.sleep(delay)


def mark_ready(ticket, idempotency_key):
    try:
        result = post(f"/v1/tickets/{ticket['id']}/ready", idempotency_key)
    except Problem as problem:
        if problem.code == "ticket-state-conflict":  # e.g. another till was quicker
            print(f"not marked ready: the ticket is already {problem.body['ticket_status']}", flush=True)
            return
        if problem.code == "not-found":
            print(f"no ticket {ticket['id']} in this mode (a test key sees test tickets only)", flush=True)
            return
        raise
    print(f"ready: channel_used={result['channel_used']} rang={str(result['rang']).lower()} "
          f"call_out_loud={str(result['call_out_loud']).lower()}", flush=True)
    if result["channel_used"] in ("none", "unknown") and not result["call_out_loud"]:
        print(f"nobody was reached: call {ticket['display_number']} out loud", flush=True)


def main():
    order = sys.argv[1] if len(sys.argv) > 1 else "1001"
    ticket = post("/v1/tickets", f"order-{order}-create", {"queue": "A", "external_ref": order})
    print(f"created {ticket['id']} {ticket['display_number']} {ticket['url']}", flush=True)
    mark_ready(ticket, f"order-{order}-ready")
    mark_ready(ticket, f"order-{order}-ready-till-2")  # a second till presses "ready" too
    post(f"/v1/tickets/{ticket['id']}/collect", f"order-{order}-collect")
    print(f"collected {ticket['id']}", flush=True)


if __name__ == "__main__":
    main()
