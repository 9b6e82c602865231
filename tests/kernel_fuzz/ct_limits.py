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

"""A network namespace's conntrack zone limits as Linux 6.1 keeps them
(net/openvswitch/conntrack.c, the ovs_ct_limit family), the ct_limit
shape's requests, and their checks.

- The limits are the namespace's: a default (0, unlimited, at first) and
  a limit of its own for any zone 0 to 65535.  The request's dp_ifindex
  is only echoed.
- OVS_CT_LIMIT_ATTR_ZONE_LIMIT is a run of 12-byte struct ovs_zone_limit
  {int zone_id; u32 limit; u32 count}.  Linux walks the attribute's
  length rounded up to 4 bytes, 12 bytes at a time while 12 remain (an
  entry cut to 9 to 11 bytes is read with the zero padding, one cut to 8
  is not read); zone id -1 is the default, 0 to 65535 a zone, any other
  id is skipped.  Nothing in a list is ever refused.
- SET sets the default or the zone's own limit; DEL makes the default 0
  or removes the zone's own limit.  Both need the attribute (EINVAL);
  their replies carry no attribute.
- GET with a list answers each entry in order: {-1, default, 0}, or
  {zone, its limit or the default, its count}; without one, the default
  then every zone with a limit of its own (Linux in the order of its hash
  table, ours ascending).  The reply is one buffer of
  genlmsg_new(NLMSG_DEFAULT_SIZE): past 653 entries, EMSGSIZE.
- An attribute of 1 to 3 bytes is ERANGE (the family's policy: a nest is
  empty or holds at least an attribute header); attributes of other
  types are ignored.

No connection is committed by the fuzzer, so every count is 0.

Mutated requests (seeds.mutate(), wrong lengths) are not predicted;
after one the model reads the limits back (a GET without a list) and
takes the module's word for them.

Each check has a name (model-ct-limit-*), which a failure reports.
"""

import errno
import struct

from ovs_netlink import (attr, encode, ovs_header, zone_limit,
                         parse_zone_limits, decode, OVS_CT_LIMIT_CMD_SET,
                         OVS_CT_LIMIT_CMD_DEL, OVS_CT_LIMIT_CMD_GET,
                         OVS_CT_LIMIT_ATTR_ZONE_LIMIT,
                         OVS_ZONE_LIMIT_DEFAULT_ZONE)
from . import seeds

DEFAULT = OVS_ZONE_LIMIT_DEFAULT_ZONE
# Entries a GET reply holds: genlmsg_new(NLMSG_DEFAULT_SIZE) allocates two
# pages (the headers push it past one), 7,872 bytes of data, of which the
# headers take 28 and each entry 12.
MAX_REPLY = 653
# Zones the requests name, so that they meet: the limits of the table's
# chunks and of Linux's hash buckets (zone & 511), and the ends.
ZONES = (0, 1, 2, 3, 7, 255, 256, 511, 512, 513, 1023, 4095, 32768, 65534,
         65535)
# Zone ids out of range: skipped.
BAD_ZONES = (-2, -65536, 65536, 70000, 0x7fffffff, -0x80000000)
LIMITS = (0, 1, 2, 3, 5, 10, 0x7fffffff, 0xffffffff)
# The first zone of the bulk requests, which set many zones at once.
BULK_BASE = 20000

EINVAL, ERANGE, EMSGSIZE = errno.EINVAL, errno.ERANGE, errno.EMSGSIZE

NAMES = {OVS_CT_LIMIT_CMD_SET: "SET", OVS_CT_LIMIT_CMD_DEL: "DEL",
         OVS_CT_LIMIT_CMD_GET: "GET"}


def linux_entries(b):
    """The entries Linux reads from a ZONE_LIMIT payload 'b':
    [(zone_id, limit)], out-of-range ids included."""
    rem = (len(b) + 3) & ~3
    padded = b + bytes(rem - len(b))
    out = []
    off = 0
    while rem >= 12:
        zone_id, limit, _ = struct.unpack("=iII", padded[off:off + 12])
        out.append((zone_id, limit))
        rem -= 12
        off += 12
    return out


class CtLimitShape:
    """Drives one namespace's zone limits with requests the model
    predicts and mutated ones; checks every answer against the model."""

    def __init__(self, world, args):
        self.world = world
        self.args = args
        self.stock = world.stock
        self.default = 0
        self.zones = {}         # Zone: its own limit.
        self.pool = list(ZONES)
        self.why = ""
        self.resync()

    def request(self, cmd, attrs, ifindex=0, ruin=None):
        """(errno, the reply's attributes or None, its dp_ifindex)."""
        err, msgs = self.world.request("ovs_ct_limit", cmd,
                                       ovs_header(ifindex)
                                       + encode(attrs, ruin))
        if not msgs:
            return err, None, None
        return (err, decode(msgs[0][8:]),
                struct.unpack("=i", msgs[0][4:8])[0])

    def fail(self, check, msg):
        self.world.fail(check, "%s (%s)" % (msg, self.why))

    def step(self, r):
        x = r.random()
        if x < self.args.mutate * 0.3:
            self.mutated(r)
        elif x < 0.4:
            self.set_or_del(r, OVS_CT_LIMIT_CMD_SET)
        elif x < 0.55:
            self.set_or_del(r, OVS_CT_LIMIT_CMD_DEL)
        elif x < 0.9:
            self.get(r)
        else:
            self.bulk(r)

    # The requests' lists.

    def zone(self, r):
        x = r.random()
        if x < 0.1:
            return DEFAULT
        if x < 0.2:
            return r.choice(BAD_ZONES)
        if x < 0.25:
            zone = r.randrange(65536)
            if len(self.pool) < 48:
                self.pool.append(zone)
            return zone
        return r.choice(self.pool)

    def entries(self, r):
        """A list of entries (maybe none), as bytes, with a cut or extra
        bytes now and then."""
        n = r.choice([0, 1, 1, 1, 2, 2, 3, 5, 8])
        b = b"".join(zone_limit(self.zone(r), r.choice(LIMITS)
                                if r.random() < 0.8
                                else r.getrandbits(32),
                                r.getrandbits(32) if r.random() < 0.1 else 0)
                     for _ in range(n))
        x = r.random()
        if x < 0.1 and b:
            b = b[:len(b) - r.randrange(1, 12)]
            self.why += ", the last entry cut"
        elif x < 0.15:
            b += bytes(r.randrange(256) for _ in range(r.randrange(1, 12)))
            self.why += ", bytes left over"
        return b

    def attrs(self, r, b):
        """The request's attributes for list 'b', maybe with a defect:
        (attributes, errno Linux answers, whether it holds a list)."""
        attrs = [attr(OVS_CT_LIMIT_ATTR_ZONE_LIMIT, b)]
        x = r.random()
        if x < 0.05:
            self.why += ", no list"
            return [], 0, False
        if x < 0.1:
            self.why += ", a list of 1 to 3 bytes"
            return [attr(OVS_CT_LIMIT_ATTR_ZONE_LIMIT,
                         bytes(r.randrange(1, 4)))], ERANGE, True
        if x < 0.15:
            # Ignored: types past the last, or 0.
            attrs.append(attr(r.choice([0, 2, 99]), bytes(r.randrange(9))))
            r.shuffle(attrs)
            self.why += ", an attribute of another type"
        # An empty list with bytes left over can itself be 1 to 3 bytes.
        return attrs, ERANGE if 0 < len(b) < 4 else 0, True

    def ifindex(self, r):
        return r.choice([0, 0, 0, 1, -1, r.getrandbits(31)])

    # Requests the model predicts.

    def set_or_del(self, r, cmd):
        name = NAMES[cmd]
        self.why = "a valid " + name
        b = self.entries(r)
        attrs, want, has_list = self.attrs(r, b)
        if not has_list:
            want = EINVAL
        ifindex = self.ifindex(r)
        err, rep, got_ifindex = self.request(cmd, attrs, ifindex)
        what = "%s of %s" % (name, linux_entries(b) if has_list else "none")
        if err != want:
            self.fail("model-ct-limit-" + name.lower(),
                      "%s: errno %d, Linux %d" % (what, err, want))
            self.resync()
            return
        if err:
            return
        for zone_id, limit in linux_entries(b):
            if zone_id == DEFAULT:
                self.default = limit if cmd == OVS_CT_LIMIT_CMD_SET else 0
            elif 0 <= zone_id <= 65535:
                if cmd == OVS_CT_LIMIT_CMD_SET:
                    self.zones[zone_id] = limit
                else:
                    self.zones.pop(zone_id, None)
        if rep or got_ifindex != ifindex:
            self.fail("model-ct-limit-reply", "%s: the reply holds "
                      "attributes %s and dp_ifindex %s; Linux none, and %d"
                      % (what, sorted(rep or {}), got_ifindex, ifindex))

    def expected(self, entries):
        """GET's answer for a list of 'entries', or for none (None)."""
        if entries is None:
            return ([(DEFAULT, self.default, 0)]
                    + [(z, limit, 0) for z, limit in
                       sorted(self.zones.items())])
        out = []
        for zone_id, _ in entries:
            if zone_id == DEFAULT:
                out.append((DEFAULT, self.default, 0))
            elif 0 <= zone_id <= 65535:
                out.append((zone_id, self.zones.get(zone_id, self.default),
                            0))
        return out

    def get(self, r):
        self.why = "a valid GET"
        b = self.entries(r)
        attrs, want, has_list = self.attrs(r, b)
        entries = linux_entries(b) if has_list else None
        ifindex = self.ifindex(r)
        exp = self.expected(entries)
        if not want and len(exp) > MAX_REPLY:
            want = EMSGSIZE
            self.why += ", %d entries" % len(exp)
        err, rep, got_ifindex = self.request(OVS_CT_LIMIT_CMD_GET, attrs,
                                             ifindex)
        what = "GET of %s" % ("every zone" if entries is None else entries)
        if err != want:
            self.fail("model-ct-limit-get", "%s: errno %d, Linux %d"
                      % (what, err, want))
            self.resync()
            return
        if err:
            return
        self.check_get(what, rep, got_ifindex, ifindex, exp,
                       entries is None)

    def check_get(self, what, rep, got_ifindex, ifindex, exp, every):
        rep = rep or {}
        if OVS_CT_LIMIT_ATTR_ZONE_LIMIT not in rep:
            self.fail("model-ct-limit-reply", "%s: no ZONE_LIMIT in the "
                      "reply (attributes %s)" % (what, sorted(rep)))
            return
        got, rest = parse_zone_limits(rep[OVS_CT_LIMIT_ATTR_ZONE_LIMIT])
        if every and self.stock:
            # Linux's order is its hash table's.
            same = got[:1] == exp[:1] and sorted(got[1:]) == exp[1:]
        else:
            same = got == exp
        if not same or rest or got_ifindex != ifindex:
            self.fail("model-ct-limit-reply", "%s: %s%s, dp_ifindex %s; "
                      "Linux %s, dp_ifindex %d"
                      % (what, got, " and %d bytes" % rest if rest else "",
                         got_ifindex, exp, ifindex))
            self.resync()

    def bulk(self, r):
        """Many zones at once: SET, GET of every zone (one reply or
        EMSGSIZE), GET of them listed, DEL."""
        n = r.choice([100, 400, 651, 652, 653, 700, 1000])
        zones = [BULK_BASE + 3 * i for i in range(n)]
        b = b"".join(zone_limit(z, z) for z in zones)
        self.why = "a bulk SET of %d zones" % n
        err, _, _ = self.request(OVS_CT_LIMIT_CMD_SET,
                                 [attr(OVS_CT_LIMIT_ATTR_ZONE_LIMIT, b)])
        if err:
            self.fail("model-ct-limit-set", "SET of %d zones: errno %d, "
                      "Linux 0" % (n, err))
            self.resync()
            return
        for z in zones:
            self.zones[z] = z
        self.get_every(r)
        k = r.choice([n, min(n, MAX_REPLY), min(n, MAX_REPLY + 1)])
        listed = linux_entries(b[:12 * k])
        exp = self.expected(listed)
        want = EMSGSIZE if len(exp) > MAX_REPLY else 0
        self.why = "a GET of %d listed zones" % k
        err, rep, got_ifindex = self.request(
            OVS_CT_LIMIT_CMD_GET, [attr(OVS_CT_LIMIT_ATTR_ZONE_LIMIT,
                                        b[:12 * k])])
        if err != want:
            self.fail("model-ct-limit-get", "GET of %d listed zones: errno "
                      "%d, Linux %d" % (k, err, want))
        elif not err:
            self.check_get("GET of %d listed zones" % k, rep, got_ifindex,
                           0, exp, False)
        self.why = "a bulk DEL of %d zones" % n
        err, _, _ = self.request(OVS_CT_LIMIT_CMD_DEL,
                                 [attr(OVS_CT_LIMIT_ATTR_ZONE_LIMIT, b)])
        if err:
            self.fail("model-ct-limit-del", "DEL of %d zones: errno %d, "
                      "Linux 0" % (n, err))
            self.resync()
            return
        for z in zones:
            self.zones.pop(z, None)

    def get_every(self, r):
        exp = self.expected(None)
        want = EMSGSIZE if len(exp) > MAX_REPLY else 0
        self.why = "a GET of every zone, %d entries" % len(exp)
        ifindex = self.ifindex(r)
        err, rep, got_ifindex = self.request(OVS_CT_LIMIT_CMD_GET, [],
                                             ifindex)
        if err != want:
            self.fail("model-ct-limit-get", "GET of every zone: errno %d, "
                      "Linux %d" % (err, want))
        elif not err:
            self.check_get("GET of every zone", rep, got_ifindex, ifindex,
                           exp, True)

    def clear(self):
        """Deletes every limit (the default's too), as the end of a turn
        does, so that the ct shape's commits in the same namespace meet
        none; the reply must be empty."""
        self.why = "the DEL of every limit at the end of a turn"
        zones = sorted(self.zones)
        b = b"".join(zone_limit(z, 0) for z in [DEFAULT] + zones)
        err, rep, _ = self.request(OVS_CT_LIMIT_CMD_DEL,
                                   [attr(OVS_CT_LIMIT_ATTR_ZONE_LIMIT, b)])
        if err or rep:
            self.fail("model-ct-limit-del", "DEL of the default and %d "
                      "zones: errno %d, reply %s; Linux 0, empty"
                      % (len(zones), err, sorted(rep or {})))
        self.default = 0
        self.zones = {}
        self.get_every_quiet()

    def get_every_quiet(self):
        """Checks that GET of every zone answers the default alone."""
        err, rep, _ = self.request(OVS_CT_LIMIT_CMD_GET, [])
        got = []
        if not err and rep and OVS_CT_LIMIT_ATTR_ZONE_LIMIT in rep:
            got, _ = parse_zone_limits(rep[OVS_CT_LIMIT_ATTR_ZONE_LIMIT])
        if err or got != [(DEFAULT, 0, 0)]:
            self.fail("model-ct-limit-reply", "GET after the DEL of every "
                      "limit: errno %d, %s; Linux 0, [(-1, 0, 0)]"
                      % (err, got))
            self.resync()

    def resync(self):
        """Takes the module's word for the limits: after a mutated
        request, or a difference.  Zones left by a bulk request that
        would not fit in one reply are deleted first."""
        self.request(OVS_CT_LIMIT_CMD_DEL, [attr(
            OVS_CT_LIMIT_ATTR_ZONE_LIMIT,
            b"".join(zone_limit(BULK_BASE + 3 * i, 0)
                     for i in range(1000)))])
        err, rep, _ = self.request(OVS_CT_LIMIT_CMD_GET, [])
        got = []
        if not err and rep and OVS_CT_LIMIT_ATTR_ZONE_LIMIT in rep:
            got, _ = parse_zone_limits(rep[OVS_CT_LIMIT_ATTR_ZONE_LIMIT])
        self.default = got[0][1] if got and got[0][0] == DEFAULT else 0
        self.zones = {z: limit for z, limit, _ in got[1:]}

    # Mutated requests.

    def mutated(self, r):
        cmd = r.choice([OVS_CT_LIMIT_CMD_SET, OVS_CT_LIMIT_CMD_DEL,
                        OVS_CT_LIMIT_CMD_GET, 0, 4])
        self.why = "a mutated request"
        attrs, _, _ = self.attrs(r, self.entries(r))
        if not attrs:
            attrs = [attr(OVS_CT_LIMIT_ATTR_ZONE_LIMIT, self.entries(r))]
        # The list as attributes, so that mutations reach inside it.
        if r.random() < 0.5:
            attrs = [attr(t, [attr(r.randrange(4), p[i:i + 12])
                              for i in range(0, len(p), 12)])
                     if isinstance(p, bytes) and p else [t, p]
                     for t, p in attrs]
        seeds.mutate(attrs, r)
        ruin = seeds.length_ruin(r) if r.random() < 0.2 else None
        self.request(cmd, attrs, self.ifindex(r), ruin)
        self.resync()
