#! /usr/bin/python3
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

"""Runs a command as an unprivileged user in namespaces of its own.

Usage (as root): unprivileged.py COMMAND [ARG]...

COMMAND runs as uid and gid 65534 (nobody) on the host, in a new user
namespace where it is root, and a new network namespace that this user
namespace owns (tests/ovs_userns.py): what any local user can do where
unprivileged user namespaces are allowed, and so what the kernel
datapath's families accept from anyone (GENL_UNS_ADMIN_PERM).  It runs
in the current directory, or in / if that user may not enter it; in the
kernel guest's chroot too.  Exits with COMMAND's status.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import ovs_userns  # noqa: E402


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ovs_userns.become_nobody(net=True)
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
