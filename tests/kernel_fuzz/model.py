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

"""The flow table as Linux 6.1 keeps it (net/openvswitch/datapath.c
ovs_flow_cmd_new/set/get/del, flow_table.c), and the requests it checks.

The model's flows have keys of seven fields (recirc_id, priority, in_port,
skb_mark, the Ethernet addresses and the Ethertype) drawn from small pools,
so that keys, masks and UFIDs collide often; masks wildcard the Ethernet
addresses, the mark and the priority.  With every key carrying the same
attributes, Linux's comparisons of struct sw_flow_key ranges are
comparisons field by field:

- a flow is identified by its UFID (1 to 16 bytes; a UFID attribute of
  another length counts as absent) or else by its unmasked key;
- NEW looks for the UFID, else for a flow the key hits as a packet would
  (any mask); found, it fails EEXIST with NLM_F_CREATE or NLM_F_EXCL, else
  replaces the actions of that flow if its key is the new one (the masked
  key against the new unmasked key for a UFID flow, the unmasked keys for
  the others), else of the key-identified flow with that unmasked key,
  else fails ENOENT;
- SET, GET and DEL look for the UFID, else for the key-identified flow
  with exactly that unmasked key (never a packet-style lookup, never a
  UFID flow); SET needs a key or a UFID (EINVAL), actions need a key
  (EINVAL), and SET without actions only reads the flow back; DEL without
  both flushes;
- a reply carries the identifier first (the UFID, or the unmasked key),
  then for a UFID flow the masked key unless OMIT_KEY, the mask unless
  OMIT_MASK, the actions as sent unless OMIT_ACTIONS.

Where ovs_percpu answers otherwise on purpose (kernel-datapath.md), the
model follows it, and says so in the reason it gives:

- a UFID attribute of another length than 1 to 16 bytes fails EINVAL
  (Linux takes it as no UFID, so that such a DEL without a key flushes);
- SET with actions fails ENOENT on a UFID flow whose masked key is not
  the request's (its key masked by its mask): the actions were validated
  against another key (Linux replaces them).

Each check has a name (model-*), which a failure reports.
"""

import struct

from ovs_netlink import (attr, encode, decode_list, u32, be16, get_u32,
                 K_RECIRC_ID, K_PRIORITY, K_IN_PORT, K_SKB_MARK, K_ETHERNET,
                 K_ETHERTYPE, A_OUTPUT, A_USERSPACE, A_RECIRC, A_HASH,
                 A_TRUNC, A_CLONE, A_SAMPLE, A_SET_MASKED, U_PID, U_USERDATA,
                 S_PROBABILITY, S_ACTIONS,
                 OVS_FLOW_ATTR_KEY, OVS_FLOW_ATTR_MASK, OVS_FLOW_ATTR_ACTIONS,
                 OVS_FLOW_ATTR_UFID, OVS_FLOW_ATTR_UFID_FLAGS,
                 OVS_FLOW_ATTR_PROBE, OVS_FLOW_ATTR_CLEAR,
                 OVS_UFID_F_OMIT_KEY, OVS_UFID_F_OMIT_MASK,
                 OVS_UFID_F_OMIT_ACTIONS)

# The fields, their widths in bytes.
FIELDS = (("recirc_id", 4), ("priority", 4), ("in_port", 4),
          ("skb_mark", 4), ("eth_src", 6), ("eth_dst", 6), ("eth_type", 2))
WIDTH = dict(FIELDS)
ALL_ONES = {f: (1 << (8 * w)) - 1 for f, w in FIELDS}
ETH_TYPE = 0x88b5               # IEEE local experimental: no layer 3.

# Pools: two values a field, so that keys collide.
POOL = {
    "recirc_id": (0, 0, 9),
    "priority": (0, 3),
    "in_port": (1, 2),
    "skb_mark": (0, 0x10),
    "eth_src": (0x02aa00000001, 0x02aa00000002),
    "eth_dst": (0x02bb00000001, 0x02bb00000102),
    "eth_type": (ETH_TYPE,),
}
# Masks of the fields a mask may wildcard; the others are exact.
MASK_POOL = {
    "priority": (ALL_ONES["priority"], 0),
    "skb_mark": (ALL_ONES["skb_mark"], 0, 0xf0),
    "eth_src": (ALL_ONES["eth_src"], 0),
    "eth_dst": (ALL_ONES["eth_dst"], 0, 0xffffffff0000),
}


def key_attrs(k):
    """The OVS_KEY_ATTR_* list of key or mask 'k' (a dict of fields)."""
    return [attr(K_RECIRC_ID, u32(k["recirc_id"])),
            attr(K_PRIORITY, u32(k["priority"])),
            attr(K_IN_PORT, u32(k["in_port"])),
            attr(K_SKB_MARK, u32(k["skb_mark"])),
            attr(K_ETHERNET, k["eth_src"].to_bytes(6, "big")
                 + k["eth_dst"].to_bytes(6, "big")),
            attr(K_ETHERTYPE, be16(k["eth_type"]))]


def fields_of(buf):
    """The model's fields in key or mask attributes 'buf' (None where
    absent)."""
    out = dict.fromkeys(WIDTH)
    for t, p in decode_list(buf):
        if t == K_RECIRC_ID and len(p) == 4:
            out["recirc_id"] = get_u32(p)
        elif t == K_PRIORITY and len(p) == 4:
            out["priority"] = get_u32(p)
        elif t == K_IN_PORT and len(p) == 4:
            out["in_port"] = get_u32(p)
        elif t == K_SKB_MARK and len(p) == 4:
            out["skb_mark"] = get_u32(p)
        elif t == K_ETHERNET and len(p) == 12:
            out["eth_src"] = int.from_bytes(p[:6], "big")
            out["eth_dst"] = int.from_bytes(p[6:], "big")
        elif t == K_ETHERTYPE and len(p) == 2:
            out["eth_type"] = struct.unpack("!H", p)[0]
    return out


def masked(k, m):
    return {f: k[f] & m[f] for f in WIDTH}


def fmt(k):
    return " ".join("%s=%x" % (f, k[f]) for f in WIDTH if k[f] is not None)


class Flow:
    """A flow of the model."""

    def __init__(self, ufid, key, mask, acts):
        self.ufid = ufid        # bytes, or None: identified by its key.
        self.key = key          # The unmasked key, as sent.
        self.mask = mask        # The mask in effect.
        self.acts = acts        # The actions, encoded as sent.
        self.echo = None        # KEY, MASK, ACTIONS of its last reply.

    def hit_by(self, k):
        """Whether packet key 'k' hits this flow."""
        return all(k[f] & self.mask[f] == self.key[f] & self.mask[f]
                   for f in WIDTH)

    def same_as(self, k):
        """ovs_flow_cmp(): a UFID flow's masked key against the new
        unmasked key; a key-identified flow's unmasked key."""
        if self.ufid is not None:
            return masked(self.key, self.mask) == k
        return self.key == k

    def name(self):
        return ("ufid %s" % self.ufid.hex() if self.ufid is not None
                else "key %s" % fmt(self.key))


class Model:
    """The flows Linux would hold after the requests seen so far."""

    def __init__(self):
        self.flows = []
        self.why = ""           # The case of the last request.

    def by_ufid(self, ufid):
        for f in self.flows:
            if f.ufid is not None and f.ufid == ufid:
                return f
        return None

    def exact(self, k):
        """ovs_flow_tbl_lookup_exact(): the key-identified flow with
        unmasked key 'k'."""
        for f in self.flows:
            if f.ufid is None and f.key == k:
                return f
        return None

    def hits(self, k):
        return [f for f in self.flows if f.hit_by(k)]

    def new(self, ufid, k, m, acts, excl):
        """Applies a NEW; returns (errno, flow) where 'flow' is the flow
        created or changed, or (None, candidates) if which flow a
        packet-style lookup would find is not known (more than one hit
        and no NLM_F_CREATE/EXCL: the generator avoids it).  'why' says
        which case of Linux's it was."""
        m = m or dict(ALL_ONES)
        found = self.by_ufid(ufid) if ufid is not None else None
        cands = [found] if found else self.hits(k)
        if not cands:
            f = Flow(ufid, k, m, acts)
            self.flows.append(f)
            self.why = "new flow"
            return 0, f
        g = cands[0]
        self.why = ("its UFID is %s's" % g.name() if found else
                    "its key hits %s" % g.name())
        if excl:
            return 17, None     # EEXIST
        if len(cands) > 1:
            return None, cands
        if not g.same_as(k):
            self.why += ", whose key differs"
            g = self.exact(k) if g.ufid is None and not found else None
            if g is None:
                return 2, None  # ENOENT
            self.why += ", and %s has this unmasked key" % g.name()
        else:
            self.why += ", with this key"
        g.acts = acts
        return 0, g

    def lookup(self, ufid, k):
        """The flow SET, GET and DEL name, or None."""
        f = self.by_ufid(ufid) if ufid is not None else (
            self.exact(k) if k is not None else None)
        hit = [] if f or k is None else self.hits(k)
        self.why = ("%s" % f.name() if f else
                    "no such UFID" if ufid is not None else
                    "no flow without UFID has this unmasked key" +
                    (" (it hits %s)" % ", ".join(g.name() for g in hit)
                     if hit else ""))
        return f


def random_key(r, premasked_by=None):
    k = {f: r.choice(POOL[f]) for f in WIDTH}
    if premasked_by is not None:
        k = masked(k, premasked_by)
    return k


def random_mask(r):
    m = dict(ALL_ONES)
    for f, pool in MASK_POOL.items():
        m[f] = r.choice(pool)
    return m


def random_actions(r, upcall_pid, tag):
    """A short action list that Linux echoes byte for byte, encoded."""
    kind = r.randrange(9)
    if kind == 0:
        acts = []
    elif kind == 1:
        acts = [attr(A_OUTPUT, u32(r.choice([1, 2, 3])))]
    elif kind == 2:
        acts = [attr(A_OUTPUT, u32(2)), attr(A_OUTPUT, u32(3))]
    elif kind == 3:
        acts = [attr(A_USERSPACE, [attr(U_PID, u32(upcall_pid)),
                                   attr(U_USERDATA, tag)])]
    elif kind == 4:
        acts = [attr(A_RECIRC, u32(r.randrange(1, 100)))]
    elif kind == 5:
        acts = [attr(A_HASH, u32(0) + u32(r.randrange(1 << 32))),
                attr(A_RECIRC, u32(7))]
    elif kind == 6:
        acts = [attr(A_TRUNC, u32(r.choice([14, 100]))),
                attr(A_OUTPUT, u32(1))]
    elif kind == 7:
        acts = [attr(A_CLONE, [attr(A_OUTPUT, u32(2))]),
                attr(A_OUTPUT, u32(1))]
    else:
        acts = [attr(A_SAMPLE, [attr(S_PROBABILITY, u32(0xffffffff)),
                                attr(S_ACTIONS,
                                     [attr(A_OUTPUT, u32(1))])]),
                attr(A_SET_MASKED, [attr(K_SKB_MARK,
                                         u32(5) + u32(0xff))])]
    return encode(acts)


class Reply:
    """A flow reply: its UFID and its KEY, MASK and ACTIONS attributes."""

    def __init__(self, msg):
        attrs = decode_list(msg[8:])
        self.first = attrs[0][0] if attrs else None
        self.ufid = None
        self.keys = []
        self.mask = None
        self.acts = None
        for t, p in attrs:
            if t == OVS_FLOW_ATTR_UFID:
                self.ufid = p
            elif t == OVS_FLOW_ATTR_KEY:
                self.keys.append(p)
            elif t == OVS_FLOW_ATTR_MASK:
                self.mask = p
            elif t == OVS_FLOW_ATTR_ACTIONS:
                self.acts = p

    def echo(self):
        return (tuple(self.keys), self.mask, self.acts)


def check_reply(f, rep, flags, what):
    """Checks reply 'rep' about model flow 'f' (UFID flags 'flags');
    returns [(check, message)]."""
    out = []
    if f.ufid is not None:
        if rep.first != OVS_FLOW_ATTR_UFID or rep.ufid != f.ufid:
            out.append(("model-reply-ufid",
                        "%s: reply for %s names UFID %s first (attribute "
                        "%s)" % (what, f.name(), rep.ufid and rep.ufid.hex(),
                                 rep.first)))
        want_keys = 0 if flags & OVS_UFID_F_OMIT_KEY else 1
        if len(rep.keys) != want_keys:
            out.append(("model-reply-key",
                        "%s: reply for %s has %d KEY attributes, not %d"
                        % (what, f.name(), len(rep.keys), want_keys)))
        masked_keys = rep.keys
    else:
        # should_fill_key(): the masked key only for a UFID flow.
        if rep.first != OVS_FLOW_ATTR_KEY or not rep.keys:
            out.append(("model-reply-unmasked-key",
                        "%s: reply for %s does not start with its KEY"
                        % (what, f.name())))
            return out
        got = fields_of(rep.keys[0])
        if got != f.key:
            out.append(("model-reply-unmasked-key",
                        "%s: reply for a flow without UFID identifies it "
                        "by KEY %s, not by its unmasked key %s"
                        % (what, fmt(got), fmt(f.key))))
        if len(rep.keys) != 1:
            out.append(("model-reply-key",
                        "%s: reply for a flow without UFID has %d KEY "
                        "attributes, not 1 (its unmasked key)"
                        % (what, len(rep.keys))))
        masked_keys = []
    for kb in masked_keys:
        got = fields_of(kb)
        if got != masked(f.key, f.mask):
            out.append(("model-reply-key",
                        "%s: reply for %s has masked key %s, not %s"
                        % (what, f.name(), fmt(got),
                           fmt(masked(f.key, f.mask)))))
    if not flags & OVS_UFID_F_OMIT_MASK:
        got = fields_of(rep.mask or b"")
        if got != f.mask:
            out.append(("model-reply-mask",
                        "%s: reply for %s has mask %s, not %s"
                        % (what, f.name(), fmt(got), fmt(f.mask))))
    elif rep.mask is not None:
        out.append(("model-reply-mask", "%s: terse reply for %s has a MASK"
                    % (what, f.name())))
    if not flags & OVS_UFID_F_OMIT_ACTIONS:
        if rep.acts != f.acts:
            out.append(("model-reply-actions",
                        "%s: reply for %s has actions %s, not %s"
                        % (what, f.name(), rep.acts and rep.acts.hex(),
                           f.acts.hex())))
    elif rep.acts is not None:
        out.append(("model-reply-actions",
                    "%s: terse reply for %s has ACTIONS"
                    % (what, f.name())))
    return out


class ModelShape:
    """Drives one datapath's flow table with requests the model can
    predict, and checks every answer and every dump against it."""

    ENOENT, EEXIST, EINVAL = 2, 17, 22

    def bad_ufid(self, ufid_sent):
        """Whether ovs_percpu refuses 'ufid_sent' (EINVAL), where Linux
        takes it as no UFID; sets the model's reason."""
        if ufid_sent is None or 1 <= len(ufid_sent) <= 16:
            return False
        self.model.why = ("a UFID of %d bytes: EINVAL in ovs_percpu, none "
                          "in Linux" % len(ufid_sent))
        return True

    def unnamed(self, ufid_sent, k, model_ufid):
        """Whether SET or GET names no flow (EINVAL): a UFID ovs_percpu
        refuses, or neither a key nor a UFID; sets the model's reason."""
        if self.bad_ufid(ufid_sent):
            return True
        if k is None and model_ufid is None:
            self.model.why = "neither a key nor a UFID of 1 to 16 bytes"
            return True
        return False

    def __init__(self, world, dp):
        self.world = world
        self.dp = dp
        self.model = Model()
        self.ufids = []
        self.ops = 0

    def pick_ufid(self, r):
        """A UFID of the pool, None (a key-identified flow) or, now and
        then, one of 17 bytes, which Linux takes as none."""
        if not self.ufids:
            self.ufids = [bytes(r.randrange(256) for _ in range(n))
                          for n in (16, 16, 16, 16, 4, 1)]
        x = r.random()
        if x < 0.3:
            return None, None
        if x < 0.33:
            return None, bytes(r.randrange(256) for _ in range(17))
        u = r.choice(self.ufids)
        return u, u

    def fail(self, failures):
        """Reports 'failures' and starts over from an empty table, so that
        one difference does not make every later answer differ."""
        for check, msg in failures:
            self.world.fail(check, msg)
        if failures:
            self.flush()

    def flush(self):
        err, _ = self.world.flow_request(self.dp, 2, [], check=False)
        self.model.flows = []
        if err:
            self.world.fail("model-flush", "flush: errno %d" % err)

    def step(self, r):
        """One request, checked."""
        self.ops += 1
        x = r.random()
        if x < 0.45:
            self.new(r)
        elif x < 0.57:
            self.set(r)
        elif x < 0.72:
            self.get(r)
        elif x < 0.86:
            self.delete(r)
        elif x < 0.98:
            self.dump(r)
        else:
            self.dump(r)
            self.flush()

    def attrs(self, r, key, mask, ufid_sent, acts=None):
        a = []
        if ufid_sent is not None:
            a.append(attr(OVS_FLOW_ATTR_UFID, ufid_sent))
        if key is not None:
            a.append(attr(OVS_FLOW_ATTR_KEY, key_attrs(key)))
        if mask is not None:
            a.append(attr(OVS_FLOW_ATTR_MASK, key_attrs(mask)))
        if acts is not None:
            a.append(attr(OVS_FLOW_ATTR_ACTIONS, acts))
        if r.random() < 0.2:
            a.append(attr(OVS_FLOW_ATTR_PROBE, b""))
        r.shuffle(a)
        return a

    def known_key(self, r):
        """A key: mostly one the table holds, else a fresh one."""
        if self.model.flows and r.random() < 0.6:
            f = r.choice(self.model.flows)
            k = dict(f.key)
            if r.random() < 0.3:
                # Same masked key, other bits where the mask has none.
                k2 = random_key(r)
                k = {g: (k[g] & f.mask[g]) | (k2[g] & ~f.mask[g])
                     for g in WIDTH}
            return k, f.mask
        m = random_mask(r)
        return random_key(r, m if r.random() < 0.5 else None), m

    def new(self, r):
        ufid, ufid_sent = self.pick_ufid(r)
        k, m = self.known_key(r)
        if r.random() < 0.3:
            m = random_mask(r)
        if r.random() < 0.15:
            m = None
        acts = random_actions(r, self.world.upcall_pid,
                              self.world.userdata_tag(r, self.dp))
        excl = r.random() < 0.5
        model_ufid = ufid if ufid_sent is not None and \
            1 <= len(ufid_sent) <= 16 else None
        found = self.model.by_ufid(model_ufid) if model_ufid else None
        if not excl and not found and len(self.model.hits(k)) > 1:
            excl = True         # Which flow Linux finds is not known.
        flags = 0x400 if excl else 0
        err, msgs = self.world.flow_request(
            self.dp, 1, self.attrs(r, k, m, ufid_sent, acts), flags=flags)
        if self.bad_ufid(ufid_sent):
            want, f = self.EINVAL, None
        else:
            want, f = self.model.new(model_ufid, k, m and dict(m), acts,
                                     excl)
        what = "NEW %s key %s mask %s%s" % (
            "ufid " + ufid_sent.hex() if ufid_sent is not None else
            "without ufid", fmt(k), fmt(m) if m else "none (exact)",
            " NLM_F_CREATE" if excl else "")
        self.answer("model-new", what, err, want, msgs, f, 0)

    def answer(self, check, what, err, want, msgs, f, flags):
        """Checks errno 'err' and the replies 'msgs' against the model's
        'want' and flow 'f'."""
        failures = []
        if err != want:
            failures.append((check, "%s: errno %d, Linux %d (%s)"
                             % (what, err, want, self.model.why)))
        elif not err and f is not None:
            if len(msgs) != 1:
                failures.append((check, "%s: %d replies, not 1"
                                 % (what, len(msgs))))
            else:
                rep = Reply(msgs[0])
                failures += check_reply(f, rep, flags, "%s (%s)"
                                        % (what, self.model.why))
                if not flags:
                    f.echo = rep.echo()
        self.fail(failures)

    def set(self, r):
        ufid, ufid_sent = self.pick_ufid(r)
        k, m = self.known_key(r)
        if r.random() < 0.25:
            k = None
        acts = None
        if r.random() < 0.6:
            acts = random_actions(r, self.world.upcall_pid,
                                  self.world.userdata_tag(r, self.dp))
        model_ufid = ufid if ufid_sent is not None and \
            1 <= len(ufid_sent) <= 16 else None
        m_sent = m if k is not None and r.random() < 0.7 else None
        a = self.attrs(r, k, m_sent, ufid_sent, acts)
        clear = r.random() < 0.3
        if clear:
            a.append(attr(OVS_FLOW_ATTR_CLEAR, b""))
        err, msgs = self.world.flow_request(self.dp, 4, a)
        what = "SET %s key %s%s" % (
            "ufid " + ufid_sent.hex() if ufid_sent is not None else
            "without ufid", fmt(k) if k else "none",
            " with actions" if acts is not None else " without actions")
        f = None
        if self.unnamed(ufid_sent, k, model_ufid):
            want = self.EINVAL
        elif acts is not None and k is None:
            want = self.EINVAL
            self.model.why = "actions without a key"
        else:
            f = self.model.lookup(model_ufid, k)
            if (f and acts is not None and f.ufid is not None and
                    masked(f.key, f.mask) !=
                    masked(k, m_sent or dict(ALL_ONES))):
                self.model.why += (", whose masked key is not the "
                                   "request's: ENOENT in ovs_percpu")
                f = None
            want = 0 if f else self.ENOENT
            if f and acts is not None:
                f.acts = acts
        self.answer("model-set", what, err, want, msgs, f, 0)

    def get(self, r):
        ufid, ufid_sent = self.pick_ufid(r)
        k, _ = self.known_key(r)
        if ufid_sent is not None and r.random() < 0.5:
            k = None
        model_ufid = ufid if ufid_sent is not None and \
            1 <= len(ufid_sent) <= 16 else None
        flags = 0
        a = self.attrs(r, k, None, ufid_sent)
        if r.random() < 0.3:
            flags = r.randrange(8)
            a.append(attr(OVS_FLOW_ATTR_UFID_FLAGS, u32(flags)))
        err, msgs = self.world.flow_request(self.dp, 3, a, echo=False)
        what = "GET %s key %s" % (
            "ufid " + ufid_sent.hex() if ufid_sent is not None else
            "without ufid", fmt(k) if k else "none")
        f = None
        if self.unnamed(ufid_sent, k, model_ufid):
            want = self.EINVAL
        else:
            f = self.model.lookup(model_ufid, k)
            want = 0 if f else self.ENOENT
        echo = f.echo if f else None
        self.answer("model-get", what, err, want, msgs, f, flags)
        if f is not None and echo is not None and not flags and \
                f.echo != echo and not err:
            self.fail([("model-dump-echo", "%s: GET answers %r, its last "
                        "reply %r" % (what, f.echo, echo))])

    def delete(self, r):
        ufid, ufid_sent = self.pick_ufid(r)
        k, _ = self.known_key(r)
        if ufid_sent is not None and r.random() < 0.5:
            k = None
        if ufid_sent is None and k is None:
            return
        model_ufid = ufid if ufid_sent is not None and \
            1 <= len(ufid_sent) <= 16 else None
        err, msgs = self.world.flow_request(
            self.dp, 2, self.attrs(r, k, None, ufid_sent))
        what = "DEL %s key %s" % (
            "ufid " + ufid_sent.hex() if ufid_sent is not None else
            "without ufid", fmt(k) if k else "none")
        if self.bad_ufid(ufid_sent):
            want, f = self.EINVAL, None
        elif k is None and model_ufid is None:
            self.model.flows = []
            want, f = 0, None
            self.model.why = ("neither a key nor a UFID of 1 to 16 bytes: "
                              "a flush")
        else:
            f = self.model.lookup(model_ufid, k)
            want = 0 if f else self.ENOENT
            if f:
                self.model.flows.remove(f)
        self.answer("model-del", what, err, want, msgs, f, 0)

    def dump(self, r):
        """Dumps the table (tersely now and then) and checks it against
        the model: each flow once, under its UFID or its key, as its last
        reply showed it, and nothing else."""
        flags = 0
        a = []
        if r.random() < 0.3:
            flags = (OVS_UFID_F_OMIT_KEY | OVS_UFID_F_OMIT_MASK
                     | OVS_UFID_F_OMIT_ACTIONS)
            a.append(attr(OVS_FLOW_ATTR_UFID_FLAGS, u32(flags)))
        err, msgs = self.world.flow_dump(self.dp, a)
        failures = []
        if err:
            self.fail([("model-dump", "dump: errno %d" % err)])
            return
        left = list(self.model.flows)
        for msg in msgs:
            rep = Reply(msg)
            f = None
            if rep.ufid is not None:
                f = next((g for g in left if g.ufid == rep.ufid), None)
            elif rep.keys:
                k = fields_of(rep.keys[0])
                f = next((g for g in left if g.ufid is None and (
                    g.key == k or masked(g.key, g.mask) == k)), None)
            if f is None:
                failures.append((
                    "model-dump-extra",
                    "dump: a flow the model does not hold (UFID %s, key "
                    "%s)" % (rep.ufid and rep.ufid.hex(),
                             rep.keys and fmt(fields_of(rep.keys[0])))))
                continue
            left.remove(f)
            failures += check_reply(f, rep, flags, "dump")
            if not flags and f.echo is not None and rep.echo() != f.echo:
                failures.append((
                    "model-dump-echo",
                    "dump: %s shows %r, its last reply %r"
                    % (f.name(), rep.echo(), f.echo)))
        for f in left:
            failures.append(("model-dump-missing",
                             "dump: %s missing (%d flows dumped, the model "
                             "holds %d)" % (f.name(), len(msgs),
                                            len(self.model.flows))))
        if len(msgs) != len(self.model.flows) and not failures:
            failures.append(("model-dump-count",
                             "dump: %d flows, the model holds %d"
                             % (len(msgs), len(self.model.flows))))
        self.fail(failures)
