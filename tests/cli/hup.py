#!/usr/bin/env python3
"""hup.py: a terminal closed under a command (tests/cli/burn_faults.sh).

hup.py OUT PIDFILE CMD...: run CMD as the session leader of a pseudo-terminal of its own,
its stdout to OUT and its stderr on the terminal, write its PID to PIDFILE, close the terminal
after 1.5 s (the kernel sends SIGHUP) and print its exit code (-N: killed by signal N)."""
import os
import pty
import sys
import time
out, pidfile, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    o = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(o, 1)
    os.execvp(cmd[0], cmd)
open(pidfile, "w").write("%d\n" % pid)
end = time.time() + 1.5
while time.time() < end:
    try:
        os.read(fd, 4096)
    except OSError:
        break
os.close(fd)
_, st = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(st) if hasattr(os, "waitstatus_to_exitcode") else st)
