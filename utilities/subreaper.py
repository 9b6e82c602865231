#!/usr/bin/python3
"""Runs a command as a child subreaper, reaping its orphans at once.

Usage: subreaper.py COMMAND [ARG]...

Exits with COMMAND's status (128 + N if signal N ended it).

Why: a daemon started with --detach (ovsdb-server, ovs-vswitchd) is
orphaned as soon as its launcher exits, and an orphan is reparented to the
nearest "child subreaper" ancestor, else to PID 1.  OVS's tests stop a
daemon with "ovs-appctl exit" and then wait while "kill -0 PID" succeeds,
which it does as long as the daemon is a zombie: until its new parent reaps
it.  Where PID 1 reaps orphans lazily (on the machine CI runs
on, about 1.7 s after they exit), every daemon's stop costs OVS_WAIT_WHILE
a full one- or two-second step instead of its first 0.1 s one: about 3 s a
test for ovsdb-server and ovs-vswitchd.  Run under this wrapper, the
orphans are reparented to it (prctl PR_SET_CHILD_SUBREAPER) and it reaps
each as it exits.

When COMMAND exits, the wrapper exits too: a daemon a test left running
is reparented once more, to PID 1, as without the wrapper.  SIGTERM and
SIGHUP are passed on to COMMAND; SIGINT is not, since a terminal sends it
to COMMAND's process group already.
"""

import ctypes
import os
import signal
import sys

PR_SET_CHILD_SUBREAPER = 36     # From <linux/prctl.h>.


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: %s COMMAND [ARG]...\n" % sys.argv[0])
        sys.exit(2)
    argv = sys.argv[1:]

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        # No subreapers here (Linux before 3.4, another OS): run COMMAND
        # as it would have run without us.
        os.execvp(argv[0], argv)

    child = os.fork()
    if child == 0:
        try:
            os.execvp(argv[0], argv)
        except OSError as e:
            sys.stderr.write("subreaper: %s: %s\n" % (argv[0], e.strerror))
            os._exit(127)

    def forward(signum, frame):
        try:
            os.kill(child, signum)
        except ProcessLookupError:
            pass
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGHUP, forward)
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    # Reap every child, ours and the orphans handed to us, until COMMAND
    # itself exits.
    while True:
        pid, status = os.wait()
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            sys.exit(128 - code if code < 0 else code)


if __name__ == "__main__":
    main()
