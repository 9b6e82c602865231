# Copyright (c) 2026 ovs-percpu authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Becoming an unprivileged user in namespaces of its own.

What the kernel tests' scripts (tests/qemu/unprivileged.py, the fuzzer in
tests/kernel_fuzz/) share: the process, root so far, becomes uid and gid
65534 (nobody) on the host, in a new user namespace where it is root
(uid 0 mapped to 65534) with every capability, and optionally a new
network namespace that this user namespace owns: what any local user can
do where unprivileged user namespaces are allowed (Debian's default).

The kernel guest (kernel-guest.sh) runs everything in a chroot, where
unshare(CLONE_NEWUSER) is refused (EPERM: a chrooted caller may not
create a user namespace).  So, as root, the process first leaves the
chroot for the mount namespace's root (the classic way out, which root
may take), creates the namespaces there, and enters the chroot again as
the namespaces' root.
"""

import ctypes
import os
import tempfile

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PR_SET_DUMPABLE = 4
NOBODY = 65534

_libc = None


def libc():
    """The C library, with errno kept."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def unshare(flags):
    """unshare(2); raises OSError."""
    if libc().unshare(flags) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "unshare: %s" % os.strerror(err))


def leave_chroot():
    """Makes this process's root the mount namespace's root; returns an
    fd of the chroot's root, to enter it again."""
    chroot_root = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
    here = tempfile.mkdtemp(prefix="unprivileged.")
    # The working directory stays outside the new root, and '..' climbs
    # from it past the old one.
    os.chroot(here)
    os.fchdir(chroot_root)
    for _ in range(64):
        os.chdir("..")
    os.chroot(".")
    os.rmdir(here[1:], dir_fd=chroot_root)
    return chroot_root


def become_nobody(net=True):
    """Turns this process (root) into uid 65534 in a new user namespace,
    and with 'net' a new network namespace, in the same chroot and
    working directory (or / if that user may not enter it)."""
    cwd = os.getcwd()
    chroot_root = leave_chroot()
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)
    # Changing the uid made the process undumpable, which gives its /proc
    # files to root: its own maps could not be written.
    libc().prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    unshare(CLONE_NEWUSER | (CLONE_NEWNET if net else 0))
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write("0 %d 1" % NOBODY)
    with open("/proc/self/gid_map", "w") as f:
        f.write("0 %d 1" % NOBODY)
    os.fchdir(chroot_root)
    os.chroot(".")
    os.close(chroot_root)
    try:
        os.chdir(cwd)
    except PermissionError:
        # A root-only directory (an autotest test's, under mktemp -d).
        os.chdir("/")
