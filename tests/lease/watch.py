#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Record every change under an etcd prefix, as it happens, with the
# CLOCK_BOOTTIME time it was seen (the same clock the agents and their
# device stand-ins log in), through the v3 JSON gateway's /v3/watch.
#
#   watch.py ENDPOINTS PREFIX OUT [--cacert F --cert F --key F]
# One line per event in OUT: "SEEN_NS PUT|DELETE KEY CREATE_REV MOD_REV VERSION".
# Follows the next endpoint when one goes away, resuming after the last
# revision seen; stops on SIGTERM. A store found behind the last revision
# seen when it answers again (restored from a snapshot) is written as
# "SEEN RESTORE * REV REV 0" (REV its revision now), then one line
# "SEEN STATE KEY CREATE_REV MOD_REV VERSION" per key it holds, and the
# watch goes on from there.
import base64, http.client, json, signal, ssl, sys, time
from urllib.parse import urlparse

eps, prefix, out = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
opts = dict(zip(sys.argv[4::2], sys.argv[5::2]))
ctx = None
if "--cacert" in opts:
    ctx = ssl.create_default_context(cafile=opts["--cacert"])
    if "--cert" in opts:
        ctx.load_cert_chain(opts["--cert"], opts["--key"])
stop = False
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))

def b64(s):
    return base64.b64encode(s.encode()).decode()

end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
rev = 1
f = open(out, "a", buffering=1)
i = 0
while True:
    u = urlparse(eps[i % len(eps)])
    i += 1
    try:
        c = (http.client.HTTPSConnection(u.hostname, u.port, context=ctx, timeout=3600)
             if u.scheme == "https" else http.client.HTTPConnection(u.hostname, u.port, timeout=3600))
        body = json.dumps({"create_request": {"key": b64(prefix), "range_end": b64(end),
                                              "start_revision": str(rev)}})
        c.request("POST", "/v3/kv/range", json.dumps({"key": b64(prefix), "range_end": b64(end)}),
                  {"Content-Type": "application/json"})
        got = json.loads(c.getresponse().read())
        h = int(got["header"]["revision"])
        if rev > 1 and h < rev - 1:
            seen = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
            f.write("%d RESTORE * %d %d 0\n" % (seen, h, h))
            for kv in got.get("kvs", []):
                f.write("%d STATE %s %s %s %s\n" % (seen, base64.b64decode(kv["key"]).decode(),
                        kv.get("create_revision", "0"), kv.get("mod_revision", "0"), kv.get("version", "0")))
            rev = h + 1
            body = json.dumps({"create_request": {"key": b64(prefix), "range_end": b64(end),
                                                  "start_revision": str(rev)}})
        c.request("POST", "/v3/watch", body, {"Content-Type": "application/json"})
        r = c.getresponse()
        while True:
            line = r.readline()
            if not line:
                break
            seen = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
            res = json.loads(line).get("result", {})
            if res.get("compact_revision", "0") != "0":
                print("watch.py: compacted at", res["compact_revision"], file=sys.stderr)
                sys.exit(1)
            for ev in res.get("events", []):
                kv = ev["kv"]
                mod = int(kv.get("mod_revision", 0))
                f.write("%d %s %s %s %d %s\n" % (seen, ev.get("type", "PUT"),
                        base64.b64decode(kv["key"]).decode(), kv.get("create_revision", "0"),
                        mod, kv.get("version", "0")))
                rev = max(rev, mod + 1)
    except (OSError, http.client.HTTPException, ValueError, KeyError):
        time.sleep(0.2)
