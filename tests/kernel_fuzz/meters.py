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

"""A datapath's meters as Linux 6.1 keeps them (net/openvswitch/meter.c),
the meter shape's requests, and their checks.

- SET needs ID and BANDS, at most one band (DP_MAX_BANDS), each with
  TYPE, RATE and BURST and a rate that is not 0, else EINVAL; an
  attribute shorter than its type is ERANGE (the family's policy, for
  every command), a longer one is read for its first bytes; a valid
  request to no datapath is ENODEV.  Any 32-bit id and band type.  The
  reply carries the id, and the replaced meter's statistics if it kept
  them (it was set without CLEAR).
- GET of no meter is ENOENT; DEL of no meter answers with nothing.
- FEATURES: MAX_METERS from 1 to 200000, MAX_BANDS 1, one band type,
  drop.
- A meter counts every packet that reaches it, with its bytes, on top of
  the STATS it was set with (unless CLEAR); a meter that does not exist
  lets packets through.  A band's bucket starts full (its burst) and
  refills up to it, never more, so a packet certainly fits while the
  costs of every packet sent through the band, its own included, add up
  to no more than the burst; it never fits when its cost alone is more.
  In between the time decides, and nothing is predicted.  A packet that
  does not fit is counted by the band, and dropped by a drop band.

Where ovs_percpu answers otherwise on purpose, the model follows it:
Linux's table is an array indexed by the id modulo its size, and a SET
whose slot another id holds fails EBUSY; ours is a hash table.  Against
Debian's openvswitch.ko (/sys/module/openvswitch), EBUSY is taken as
that refusal.

Mutated requests (seeds.mutate(), wrong lengths) are not predicted; after
one the model reads the pool's meters back (GET) and takes the module's
word for them, with their bands unknown.

Each check has a name (model-meter-*, meter-passed), which a failure
reports.
"""

import errno

from ovs_netlink import (attr, u32, get_u32, decode, decode_list, meter_band,
                 meter_stats, NLM_F_CREATE,
                 OVS_METER_CMD_FEATURES, OVS_METER_CMD_SET,
                 OVS_METER_CMD_DEL, OVS_METER_CMD_GET, OVS_METER_ATTR_ID,
                 OVS_METER_ATTR_KBPS, OVS_METER_ATTR_STATS,
                 OVS_METER_ATTR_BANDS, OVS_METER_ATTR_USED,
                 OVS_METER_ATTR_CLEAR, OVS_METER_ATTR_MAX_METERS,
                 OVS_METER_ATTR_MAX_BANDS, OVS_BAND_ATTR_TYPE,
                 OVS_BAND_ATTR_RATE, OVS_BAND_ATTR_BURST,
                 OVS_METER_BAND_TYPE_DROP, OVS_FLOW_CMD_NEW,
                 OVS_FLOW_CMD_DEL, OVS_FLOW_ATTR_KEY, OVS_FLOW_ATTR_MASK,
                 OVS_FLOW_ATTR_ACTIONS, OVS_PACKET_ATTR_PACKET,
                 OVS_PACKET_ATTR_KEY, OVS_PACKET_ATTR_ACTIONS, A_METER,
                 A_USERSPACE, A_RECIRC, A_CLONE, A_SAMPLE, U_PID,
                 U_USERDATA, S_PROBABILITY, S_ACTIONS, K_IN_PORT)
from . import seeds
from .upcalls import frame_tag

# Linux's DP_MAX_BANDS and DP_METER_NUM_MAX (net/openvswitch/meter.h).
MAX_BANDS = 1
MAX_METERS = 200000
# Bucket units: a packet is 1000 units, a kilobit 1000 bits (meter.c).
UNITS = 1000

ENOENT, EINVAL, ERANGE, ENODEV = (errno.ENOENT, errno.EINVAL, errno.ERANGE,
                                  errno.ENODEV)


class Meter:
    """A meter of the model."""

    def __init__(self, kbps, bands, keep_stats, packets, nbytes):
        self.kbps = kbps
        self.bands = bands          # [(type, rate, burst)], None: unknown.
        self.n_bands = len(bands) if bands is not None else None
        self.keep_stats = keep_stats    # None: unknown.
        self.packets = packets
        self.bytes = nbytes
        self.taken = [0] * (self.n_bands or 0)  # Costs sent through each
                                                # band, in units.
        self.exceeded = [0, 0]      # Packets the bands certainly counted,
                                    # and those they may have.

    def run(self, length):
        """A packet of 'length' bytes reaches the meter: counts it, and
        returns True if it certainly passes, False if it certainly is
        dropped, None if the time decides."""
        self.packets += 1
        self.bytes += length
        if self.bands is None:
            return None
        cost = length * 8 if self.kbps else UNITS
        verdict = True
        for i, (btype, _, burst) in enumerate(self.bands):
            self.taken[i] += cost
            if self.taken[i] <= burst * UNITS:
                continue
            if cost > burst * UNITS:
                self.exceeded[0] += 1
                fits = False
            else:
                self.exceeded[1] += 1
                fits = None
            if btype == OVS_METER_BAND_TYPE_DROP:
                verdict = fits if verdict is not False else False
        return verdict


def band_nests(bands):
    return [meter_band(rate, burst, btype) for btype, rate, burst in bands]


def short(r, width):
    """Fewer bytes than a 'width'-byte attribute needs."""
    return bytes(r.randrange(256) for _ in range(r.randrange(width)))


class MeterShape:
    """Drives one datapath's meters with requests the model predicts,
    mutated ones, and packets through meter actions of executes and of
    flows; checks every answer against the model."""

    def __init__(self, world, dp, args):
        self.world = world
        self.dp = dp
        self.args = args
        self.meters = {}        # Id: Meter.
        self.why = ""           # Linux's reason for the last prediction.

    def step(self, r):
        x = r.random()
        if x < self.args.mutate * 0.3:
            self.mutated(r)
        elif x < 0.45:
            self.set(r)
        elif x < 0.55:
            self.get_or_del(r, OVS_METER_CMD_GET)
        elif x < 0.65:
            self.get_or_del(r, OVS_METER_CMD_DEL)
        elif x < 0.7:
            self.features(r)
        else:
            self.packet(r)

    def fail(self, check, msg):
        self.world.fail(check, "%s (%s)" % (msg, self.why))

    # Requests the model predicts.

    def set_request(self, r, meter_id):
        """A SET, maybe with one defect: (attributes, errno Linux
        answers, the meter made if none)."""
        kbps = r.random() < 0.3
        bands = [seeds.meter_band_config(r) for _ in range(r.choice(
            [0, 1, 1, 1, 1]))]
        clear = r.random() < 0.2
        start = (r.randrange(1 << 20), r.randrange(1 << 30))
        extra = []
        if r.random() < 0.3:
            extra.append(attr(OVS_METER_ATTR_STATS,
                              u32(start[0]) + bytes(4) + u32(start[1])
                              + bytes(4)))
        else:
            start = (0, 0)
        if clear:
            extra.append(attr(OVS_METER_ATTR_CLEAR, b""))
            start = (0, 0)
        if r.random() < 0.1:
            # Ignored: a reply's attributes, types past the last.
            extra.append(attr(r.choice([OVS_METER_ATTR_USED,
                                        OVS_METER_ATTR_MAX_METERS, 10, 99]),
                              bytes(8)))
        attrs = [attr(OVS_METER_ATTR_ID, u32(meter_id))]
        if kbps:
            attrs.append(attr(OVS_METER_ATTR_KBPS, b""))
        attrs += [attr(OVS_METER_ATTR_BANDS, band_nests(bands))] + extra
        meter = Meter(kbps, bands, not clear, *start)
        want = 0
        self.why = "a valid SET"
        defect = r.randrange(10) if r.random() < 0.4 else None
        if any(rate == 0 for _, rate, _ in bands):
            want, self.why = EINVAL, "a band of rate 0"
        elif defect == 0:
            del attrs[0]
            want, self.why = EINVAL, "no ID"
        elif defect == 1:
            attrs = [a for a in attrs if a[0] != OVS_METER_ATTR_BANDS]
            want, self.why = EINVAL, "no BANDS"
        elif defect == 2:
            bands.append(seeds.meter_band_config(r))
            bands = bands[:MAX_BANDS + 1]
            while len(bands) <= MAX_BANDS:
                bands.append(seeds.meter_band_config(r))
            attrs = [attr(t, band_nests(bands)) if t == OVS_METER_ATTR_BANDS
                     else [t, p] for t, p in attrs]
            want, self.why = EINVAL, "%d bands" % len(bands)
        elif defect == 3 and bands:
            bands[0] = (bands[0][0], 0, bands[0][2])
            attrs = [attr(t, band_nests(bands)) if t == OVS_METER_ATTR_BANDS
                     else [t, p] for t, p in attrs]
            want, self.why = EINVAL, "a band of rate 0"
        elif defect == 4 and bands:
            nest = band_nests(bands)
            missing = r.choice([OVS_BAND_ATTR_TYPE, OVS_BAND_ATTR_RATE,
                                OVS_BAND_ATTR_BURST])
            nest[0][1] = [a for a in nest[0][1] if a[0] != missing]
            attrs = [attr(t, nest) if t == OVS_METER_ATTR_BANDS
                     else [t, p] for t, p in attrs]
            want, self.why = EINVAL, "a band without attribute %d" % missing
        elif defect == 5 and bands:
            nest = band_nests(bands)
            nest[0][1][r.randrange(3)][1] = short(r, 4)
            attrs = [attr(t, nest) if t == OVS_METER_ATTR_BANDS
                     else [t, p] for t, p in attrs]
            want, self.why = ERANGE, "a short band attribute"
        elif defect == 6:
            attrs[0][1] = short(r, 4)
            want, self.why = ERANGE, "a short ID"
        elif defect == 7:
            attrs.append(attr(OVS_METER_ATTR_STATS, short(r, 16)))
            want, self.why = ERANGE, "short STATS"
        elif defect == 8:
            attrs.append(attr(OVS_METER_ATTR_KBPS, bytes(r.choice([1, 4]))))
            want, self.why = ERANGE, "a KBPS flag with a payload"
        elif defect == 9:
            # Read for its first four bytes.
            attrs[0][1] += bytes(r.randrange(256) for _ in range(4))
            self.why = "an ID of 8 bytes"
        r.shuffle(attrs)
        return attrs, want, meter

    def ifindex(self, r, want):
        """The datapath a request goes to: now and then none (0), where a
        request that is otherwise valid is ENODEV.  Returns (ifindex,
        errno)."""
        if r.random() < 0.05:
            if not want:
                self.why += ", to no datapath"
                return 0, ENODEV
            return 0, want
        return self.dp.ifindex, want

    def set(self, r):
        meter_id = seeds.meter_id(r)
        attrs, want, meter = self.set_request(r, meter_id)
        ifindex, want = self.ifindex(r, want)
        err, rep = self.world.meter_request(ifindex, OVS_METER_CMD_SET,
                                            attrs)
        what = "SET of meter %#x" % meter_id
        if err == errno.EBUSY and not want and self.world.stock:
            return
        if err != want:
            self.fail("model-meter-set", "%s: errno %d, Linux %d"
                      % (what, err, want))
            self.resync()
            return
        if err:
            return
        old = self.meters.get(meter_id)
        self.meters[meter_id] = meter
        if old is not None and old.keep_stats is None:
            # Set by a mutated request: whether it kept its statistics
            # is not known, but if the reply has them, they are its.
            if meter_stats(rep or {})[0] is None:
                old = None
        elif old is not None and not old.keep_stats:
            old = None
        self.check_reply(what, rep, meter_id, old)

    def id_request(self, r, meter_id):
        """The attributes of a GET or DEL, maybe with a defect, and the
        errno Linux answers."""
        attrs = [attr(OVS_METER_ATTR_ID, u32(meter_id))]
        self.why = "a valid request"
        x = r.random()
        if x < 0.05:
            self.why = "no ID"
            return [], EINVAL
        if x < 0.1:
            self.why = "a short ID"
            return [attr(OVS_METER_ATTR_ID, short(r, 4))], ERANGE
        if x < 0.15:
            self.why = "an ID of 8 bytes"
            attrs[0][1] += bytes(4)
        return attrs, 0

    def get_or_del(self, r, cmd):
        """A GET or DEL of a meter of the pool, maybe with a defect."""
        meter_id = seeds.meter_id(r)
        attrs, want = self.id_request(r, meter_id)
        ifindex, want = self.ifindex(r, want)
        name = "GET" if cmd == OVS_METER_CMD_GET else "DEL"
        m = self.meters.get(meter_id)
        if cmd == OVS_METER_CMD_GET and not want and m is None:
            want = ENOENT
            self.why += ", and no such meter"
        err, rep = self.world.meter_request(ifindex, cmd, attrs)
        what = "%s of meter %#x" % (name, meter_id)
        if err != want:
            self.fail("model-meter-" + name.lower(), "%s: errno %d, Linux "
                      "%d" % (what, err, want))
            self.resync()
            return
        if err:
            return
        if cmd == OVS_METER_CMD_DEL:
            self.meters.pop(meter_id, None)
        if m is not None:
            self.check_reply(what, rep, meter_id, m)
        elif rep:
            self.fail("model-meter-reply", "%s, of no meter: the reply "
                      "holds attributes %s, Linux none" % (what, sorted(rep)))

    def features(self, r):
        ifindex, want = self.ifindex(r, 0)
        self.why = "FEATURES"
        err, rep = self.world.meter_request(ifindex, OVS_METER_CMD_FEATURES,
                                            [])
        if err != want:
            self.fail("model-meter-features", "errno %d, Linux %d"
                      % (err, want))
            return
        if err:
            return
        rep = rep or {}
        most = get_u32(rep.get(OVS_METER_ATTR_MAX_METERS, b""))
        bands = get_u32(rep.get(OVS_METER_ATTR_MAX_BANDS, b""))
        types = [get_u32(decode(b).get(OVS_BAND_ATTR_TYPE, b""))
                 for _, b in decode_list(rep.get(OVS_METER_ATTR_BANDS,
                                                 b""))]
        if (most is None or not 1 <= most <= MAX_METERS
                or bands != MAX_BANDS or types != [OVS_METER_BAND_TYPE_DROP]):
            self.fail("model-meter-features", "MAX_METERS %s, MAX_BANDS %s, "
                      "band types %s; Linux 1 to %d, %d, [%d]"
                      % (most, bands, types, MAX_METERS, MAX_BANDS,
                         OVS_METER_BAND_TYPE_DROP))

    def check_reply(self, what, rep, meter_id, m):
        """The reply to a SET, GET or DEL of 'meter_id': the id, and
        meter 'm''s statistics (None: none)."""
        rep = rep or {}
        got_id = get_u32(rep.get(OVS_METER_ATTR_ID, b""))
        if got_id != meter_id:
            self.fail("model-meter-reply", "%s: the reply's ID is %s"
                      % (what, got_id))
            return
        total, bands = meter_stats(rep)
        if m is None:
            if total is not None or bands is not None:
                self.fail("model-meter-reply", "%s: statistics in the "
                          "reply, Linux none (the meter replaced kept "
                          "none)" % what)
            return
        if total != (m.packets, m.bytes) or OVS_METER_ATTR_USED not in rep:
            self.fail("model-meter-stats", "%s: statistics %s, used %s; "
                      "the model %s" % (what, total,
                                        OVS_METER_ATTR_USED in rep,
                                        (m.packets, m.bytes)))
            self.resync()
            return
        if m.n_bands is not None and (bands is None or
                                      len(bands) != m.n_bands):
            self.fail("model-meter-stats", "%s: %s band statistics, the "
                      "meter has %d bands" % (what, bands and len(bands),
                                              m.n_bands))
            return
        counted = sum(b[0] for b in bands or [] if b)
        if m.bands is not None and not (m.exceeded[0] <= counted <=
                                        sum(m.exceeded)):
            self.fail("model-meter-stats", "%s: the bands counted %d "
                      "packets, the model %d to %d"
                      % (what, counted, m.exceeded[0], sum(m.exceeded)))
            self.resync()

    def resync(self):
        """Takes the module's word for the meters of the pool: after a
        mutated request, or a difference."""
        self.meters = {}
        for meter_id in seeds.METER_IDS:
            err, rep = self.world.meter_request(
                self.dp.ifindex, OVS_METER_CMD_GET,
                [attr(OVS_METER_ATTR_ID, u32(meter_id))])
            if err or not rep:
                continue
            total, bands = meter_stats(rep)
            if total is None:
                continue
            m = Meter(None, None, None, *total)
            m.n_bands = len(bands) if bands is not None else None
            self.meters[meter_id] = m

    # Mutated requests.

    def mutated(self, r):
        cmd = r.choice([OVS_METER_CMD_SET] * 3 + [OVS_METER_CMD_GET,
                                                  OVS_METER_CMD_DEL,
                                                  OVS_METER_CMD_FEATURES,
                                                  0, 5])
        meter_id = seeds.meter_id(r)
        if cmd == OVS_METER_CMD_SET or r.random() < 0.2:
            attrs, _, _ = self.set_request(r, meter_id)
        else:
            attrs, _ = self.id_request(r, meter_id)
        seeds.mutate(attrs, r)
        ruin = seeds.length_ruin(r) if r.random() < 0.2 else None
        self.world.meter_request(self.dp.ifindex, cmd, attrs, ruin)
        if r.random() < 0.3:
            self.packet(r, mutate=True)
        self.resync()

    # Packets through meters.

    def packet(self, r, mutate=False):
        """An execute through a meter of the pool, or through a flow that
        a recirculation reaches; the packet must pass or be dropped as
        the model says, and be counted."""
        w = self.world
        dp = self.dp
        meter_id = seeds.meter_id(r)
        frame = seeds.plain_frame(r, w.frame_tag())
        if mutate:
            # Neither the frame nor the userdata of the strict shapes: a
            # mutation may cut them.
            ud = b"\0" + bytes(r.randrange(256) for _ in range(7))
        else:
            ud = w.userdata_tag(r, dp, False)
            dp.reg.frames[frame_tag(frame)] = (frame, True, None)
        inner = [attr(A_METER, u32(meter_id)),
                 attr(A_USERSPACE, [attr(U_PID, u32(w.upcall_pid)),
                                    attr(U_USERDATA, ud)])]
        x = r.random()
        if x < 0.15:
            inner = [attr(A_CLONE, inner)]
        elif x < 0.3:
            inner = [attr(A_SAMPLE, [attr(S_PROBABILITY, u32(0xffffffff)),
                                     attr(S_ACTIONS, inner)])]
        in_port = r.choice([0, 1, 7])
        flow = None
        acts = inner
        if r.random() < 0.4:
            recirc_id = r.randrange(1, 1 << 31)
            key, mask = seeds.recirc_flow(recirc_id, in_port)
            flow = [attr(OVS_FLOW_ATTR_KEY, key),
                    attr(OVS_FLOW_ATTR_MASK, mask),
                    attr(OVS_FLOW_ATTR_ACTIONS, inner)]
            if mutate:
                seeds.mutate(flow, r)
            err, _ = w.flow_request(dp, OVS_FLOW_CMD_NEW, flow,
                                    flags=NLM_F_CREATE, echo=False)
            if err and not mutate:
                if err != errno.EEXIST:
                    w.refused("meter: NEW of a flow with meter(%#x)"
                              % meter_id, err)
                return
            acts = [attr(A_RECIRC, u32(recirc_id))]
        execute = [attr(OVS_PACKET_ATTR_PACKET, frame),
                   attr(OVS_PACKET_ATTR_KEY, [attr(K_IN_PORT, u32(in_port))]),
                   attr(OVS_PACKET_ATTR_ACTIONS, acts)]
        if mutate:
            seeds.mutate(execute, r)
        err, _ = w.execute(dp, execute)
        w.drain()
        seen = ud in dp.reg.seen
        if flow is not None:
            w.flow_request(dp, OVS_FLOW_CMD_DEL, flow[:1], echo=False)
        w.maybe_flush(dp)
        if mutate:
            return
        if err:
            w.refused("meter: execute through meter(%#x)" % meter_id, err)
            return
        m = self.meters.get(meter_id)
        verdict = m.run(len(frame)) if m is not None else True
        self.why = ("no such meter" if m is None else
                    "bands %s, %s, costs so far %s" % (
                        m.bands, "kbps" if m.kbps else "pktps", m.taken))
        if verdict is not None and seen != verdict:
            self.fail("meter-passed", "a frame of %d bytes through meter "
                      "%#x%s: %s, Linux %s"
                      % (len(frame), meter_id,
                         " (by a flow)" if flow else "",
                         "passed" if seen else "dropped",
                         "passes" if verdict else "drops"))
            self.resync()
