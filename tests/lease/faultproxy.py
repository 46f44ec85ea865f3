#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A fault injector between uidgen-lease and one etcd member: an HTTP/1.1
proxy (the gateway's JSON over plain HTTP) that forwards every request and
its answer, except the requests that match a rule:

  drop: forward the request (etcd applies it), then send nothing for 5 s
        and close: a reply lost after the operation was applied
  hold: keep the request until FILE exists, then forward it
  slow: forward the request (etcd applies it at once), then hold its
        answer MS ms before sending it: an answer that comes late

  faultproxy.py LISTEN_PORT UPSTREAM_URL RULE...
  RULE: drop:PATH:SUBSTRING:COUNT, hold:PATH:SUBSTRING:FILE or
        slow:PATH:SUBSTRING:MS (SUBSTRING is matched against the request
        body; a key in it is base64, as the gateway has it). Each drop
        rule fires COUNT times, each hold and slow rule once. Every match
        is logged on stdout, and every request as "req BOOT_NS PATH"
        (CLOCK_BOOTTIME when it came in, as the agent's deadlines are).
"""
import http.client
import socketserver
import sys
import threading
import time
import urllib.parse

port = int(sys.argv[1])
up = urllib.parse.urlsplit(sys.argv[2])
rules = []
for r in sys.argv[3:]:
    kind, path, sub, arg = r.split(":", 3)
    rules.append({"kind": kind, "path": path, "sub": sub.encode(), "arg": arg,
                  "left": int(arg) if kind == "drop" else 1})
lock = threading.Lock()


def match(path, body):
    with lock:
        for r in rules:
            if r["left"] > 0 and r["path"] == path and r["sub"] in body:
                r["left"] -= 1
                return r
    return None


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        while True:
            line = self.rfile.readline()
            if not line:
                return
            method, path, _ = line.decode().split(" ", 2)
            headers = {}
            while True:
                h = self.rfile.readline().decode()
                if h in ("\r\n", "\n", ""):
                    break
                k, v = h.split(":", 1)
                headers[k.strip()] = v.strip()
            body = self.rfile.read(int(headers.get("Content-Length", "0")))
            print(f"req {time.clock_gettime_ns(time.CLOCK_BOOTTIME)} {path}", flush=True)
            r = match(path, body)
            if r and r["kind"] == "hold":
                print(f"hold {path} until {r['arg']}", flush=True)
                while not __import__("os").path.exists(r["arg"]):
                    time.sleep(0.02)
            fwd = {k: v for k, v in headers.items() if k.lower() in ("content-type", "authorization")}
            # a connection per request: a member restarted in between
            # must not cost the next request
            conn = http.client.HTTPConnection(up.hostname, up.port, timeout=30)
            try:
                conn.request(method, path, body, fwd)
            except OSError:
                return
            resp = conn.getresponse()
            data = resp.read()
            if r and r["kind"] == "drop":
                # No answer, and no close either: a closed keep-alive
                # connection makes libcurl send the request again by
                # itself; a silent one makes the client time out.
                print(f"drop {path} answer ({len(data)} bytes): {data[:200]!r}", flush=True)
                time.sleep(5)
                return
            if r and r["kind"] == "slow":
                print(f"slow {path} answer held {r['arg']} ms", flush=True)
                time.sleep(int(r["arg"]) / 1000)
            self.wfile.write(f"HTTP/1.1 {resp.status} {resp.reason}\r\n".encode())
            self.wfile.write(b"Content-Type: application/json\r\n")
            self.wfile.write(f"Content-Length: {len(data)}\r\n\r\n".encode())
            self.wfile.write(data)
            self.wfile.flush()


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


Server(("127.0.0.1", port), Handler).serve_forever()
