#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send one QMP command to a QEMU and print the reply as JSON.

usage: qmp.py SOCKET COMMAND [ARGUMENTS-AS-JSON]
Exit status 1 if QEMU answered with an error.
"""
import json
import socket
import sys


def main():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    f = s.makefile("rw")
    json.loads(f.readline())  # the greeting

    def cmd(name, args=None):
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        f.write(json.dumps(msg) + "\n")
        f.flush()
        while True:
            reply = json.loads(f.readline())
            if "event" not in reply:
                return reply

    cmd("qmp_capabilities")
    args = json.loads(sys.argv[3]) if len(sys.argv) > 3 else None
    reply = cmd(sys.argv[2], args)
    print(json.dumps(reply))
    return 1 if "error" in reply else 0


if __name__ == "__main__":
    sys.exit(main())
