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

"""The kernel datapath fuzzer's parts (tests/kernel-netlink-fuzz.py).

- nl: netlink sockets, the OVS and rtnetlink constants, attribute
  encoding and the strict decoding that upcalls are checked with;
- seeds: valid keys, masks, actions and packets, and their mutations;
- world: one network namespace's sockets, datapaths and devices;
- upcalls: what each datapath was sent, and the check of every upcall
  against it;
- model: the flow table as Linux 6.1 keeps it, and its checks;
- meters: a datapath's meters as Linux 6.1 keeps them, the meter
  shape's requests and packets, and their checks;
- ct_limits: a namespace's conntrack zone limits as Linux 6.1 keeps
  them, the ct_limit shape's requests, and their checks;
- shapes: the families of requests (--shapes).

Standard library only: it runs in the kernel guest's chroot.
"""
