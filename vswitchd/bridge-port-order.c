/*
 * Copyright (c) 2026 The ovs-percpu authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/* A deleted port's bundle unregistered after its datapath ports. */

#include <config.h>
#include "bridge-port-order.h"

#include <stdlib.h>

#include "ofproto/ofproto.h"
#include "openvswitch/list.h"
#include "util.h"

/* One unregistration bridge.c asked for and that waits. */
struct deferred_unregister {
    struct ovs_list node;       /* In 'deferred'. */
    struct ofproto *ofproto;    /* The ofproto it is for. */
    void *aux;                  /* A bundle's 'aux' (bridge.c's port), or
                                 * NULL for... */
    ofp_port_t ofp_port;        /* ...an OpenFlow port's settings. */
};

/* The unregistrations waiting, in the order bridge.c asked for them.
 * Main thread only. */
static struct ovs_list deferred = OVS_LIST_INITIALIZER(&deferred);

/* OVS's functions, which the linker's --wrap renames. */
int __real_ofproto_bundle_unregister(struct ofproto *, void *aux);
void __real_ofproto_port_unregister(struct ofproto *, ofp_port_t);
int __real_ofproto_bundle_register(struct ofproto *, void *aux,
                                   const struct ofproto_bundle_settings *);
int __real_ofproto_port_add(struct ofproto *, struct netdev *,
                            ofp_port_t *ofp_portp);
void __real_ofproto_destroy(struct ofproto *, bool del);

/* What bridge.c calls instead, through --wrap. */
int __wrap_ofproto_bundle_unregister(struct ofproto *, void *aux);
void __wrap_ofproto_port_unregister(struct ofproto *, ofp_port_t);
int __wrap_ofproto_bundle_register(struct ofproto *, void *aux,
                                   const struct ofproto_bundle_settings *);
int __wrap_ofproto_port_add(struct ofproto *, struct netdev *,
                            ofp_port_t *ofp_portp);
void __wrap_ofproto_destroy(struct ofproto *, bool del);

/* Queues an unregistration for 'ofproto': of the bundle 'aux', or if it is
 * NULL, of the settings of OpenFlow port 'ofp_port'. */
static void
defer(struct ofproto *ofproto, void *aux, ofp_port_t ofp_port)
{
    struct deferred_unregister *d = xmalloc(sizeof *d);

    d->ofproto = ofproto;
    d->aux = aux;
    d->ofp_port = ofp_port;
    ovs_list_push_back(&deferred, &d->node);
}

/* Does the unregistrations waiting for 'ofproto', or for every ofproto if
 * it is NULL, in their order.  A bundle or port that its interfaces'
 * deletion already took away is not found again: nothing happens. */
static void
flush(const struct ofproto *ofproto)
{
    struct deferred_unregister *d;

    LIST_FOR_EACH_SAFE (d, node, &deferred) {
        if (ofproto && d->ofproto != ofproto) {
            continue;
        }
        ovs_list_remove(&d->node);
        if (d->aux) {
            __real_ofproto_bundle_unregister(d->ofproto, d->aux);
        } else {
            __real_ofproto_port_unregister(d->ofproto, d->ofp_port);
        }
        free(d);
    }
}

int
__wrap_ofproto_bundle_unregister(struct ofproto *ofproto, void *aux)
{
    if (aux) {
        defer(ofproto, aux, OFPP_NONE);
        return 0;
    }
    return __real_ofproto_bundle_unregister(ofproto, aux);
}

void
__wrap_ofproto_port_unregister(struct ofproto *ofproto, ofp_port_t ofp_port)
{
    defer(ofproto, NULL, ofp_port);
}

int
__wrap_ofproto_bundle_register(struct ofproto *ofproto, void *aux,
                               const struct ofproto_bundle_settings *s)
{
    /* A new port may have the address of a destroyed one, so its bundle
     * the same 'aux'; and every deletion of this reconfiguration is done. */
    flush(ofproto);
    return __real_ofproto_bundle_register(ofproto, aux, s);
}

int
__wrap_ofproto_port_add(struct ofproto *ofproto, struct netdev *netdev,
                        ofp_port_t *ofp_portp)
{
    /* A new port may take a deleted one's number. */
    flush(ofproto);
    return __real_ofproto_port_add(ofproto, netdev, ofp_portp);
}

void
__wrap_ofproto_destroy(struct ofproto *ofproto, bool del)
{
    flush(ofproto);
    __real_ofproto_destroy(ofproto, del);
}

/* Does every unregistration still waiting.  Called after each
 * bridge_run(). */
void
bridge_port_order_flush(void)
{
    flush(NULL);
}
