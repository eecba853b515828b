#!/usr/bin/env python3
"""fake_agent.py PATH MODE: a stand-in for serve's local agent (src/serve/agent.h) on the Unix
socket PATH, for tests/cli/status_agent.sh: status's client side (its fallbacks, and that it
prints what an agent answers) is checked without serve. MODE is how it answers each request:
  ok           AGENT_REP_OK: exit code 3, stdout "hello from the agent", stderr "agent stderr"
  unsupported  AGENT_REP_UNSUPPORTED "a test says so"
  v9           a reply header of protocol version 9
  mute         accepts nothing and answers nothing (listens only)
The request it received last is written to PATH.req. It runs until killed."""
import os
import socket
import struct
import sys
import time

path, mode = sys.argv[1], sys.argv[2]
try:
    os.unlink(path)
except FileNotFoundError:
    pass
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path + ".tmp")
srv.listen(16)
os.rename(path + ".tmp", path)


def frame(typ, payload, version=1):
    return b"GVA1" + struct.pack("<HHI", version, typ, len(payload)) + payload


def read_exact(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


while True:
    if mode == "mute":
        time.sleep(3600)
        continue
    conn, _ = srv.accept()
    hdr = read_exact(conn, 12)
    if len(hdr) == 12:
        (length,) = struct.unpack("<I", hdr[8:12])
        req = read_exact(conn, length)
        with open(path + ".req", "wb") as f:
            f.write(req)
    if mode == "ok":
        out, err = b"hello from the agent\n", b"agent stderr\n"
        conn.sendall(frame(2, struct.pack("<IQII", 3, 1500000, len(out), len(err)) + out + err))
    elif mode == "unsupported":
        conn.sendall(frame(3, b"a test says so"))
    elif mode == "v9":
        conn.sendall(frame(2, b"", version=9))
    conn.close()
