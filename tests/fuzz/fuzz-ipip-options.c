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

/* Fuzz target: the options of an ipip port (lib/tunnels/netdev-ipip.c), the
 * tunnel configuration a user or a controller writes into
 * Interface.options.
 *
 * Input: text, one option per line, "key=value" (a line without '=' is a
 * key with an empty value; a later line replaces an earlier one with the
 * same key, as OVSDB's map holds one value per key; a NUL ends a line's
 * text, as OVSDB strings hold none).  The options go to netdev_set_config()
 * on one ipip port, which first holds a known configuration.
 *
 * Checks: set_config returns 0 with no message, or EINVAL with one and the
 * previous configuration untouched; an accepted configuration, read back
 * with netdev_get_config() and set again, is accepted and yields the same
 * parsed configuration. */

#include <config.h>
#include "fuzz-common.h"

#include <errno.h>
#include <string.h>

#include "netdev.h"
#include "netdev-ipip.h"
#include "ovs-numa.h"
#include "ovs-rcu.h"
#include "smap.h"
#include "util.h"

/* A CPU layout of one NUMA node with two cores, so that the port's counter
 * slots do not depend on the machine. */
#define FUZZ_DUMMY_NUMA "0,0"

/* Returns the ipip port the target configures, opened once. */
static struct netdev *
fuzz_port(void)
{
    static struct netdev *netdev;

    if (!netdev) {
        int error;

        ovs_numa_set_dummy(FUZZ_DUMMY_NUMA);
        netdev_ipip_register();
        error = netdev_open("fuzz0", "ipip", &netdev);
        fuzz_check(!error, "netdev_open: %s", ovs_strerror(error));
    }
    return netdev;
}

/* Returns true if 'a' and 'b' are the same configuration, member by
 * member (their padding may differ). */
static bool
config_equal(const struct netdev_ipip_config *a,
             const struct netdev_ipip_config *b)
{
    return (a->local_ip == b->local_ip
            && a->local_ip_flow == b->local_ip_flow
            && a->remote_ip == b->remote_ip
            && a->remote_ip_flow == b->remote_ip_flow
            && a->tos == b->tos && a->tos_inherit == b->tos_inherit
            && a->ttl == b->ttl && a->ttl_inherit == b->ttl_inherit
            && a->df_default == b->df_default && a->gro == b->gro);
}

/* Applies 'args' to 'netdev', checks set_config's result against its
 * promise, and returns it. */
static int
set_config(struct netdev *netdev, const struct smap *args)
{
    struct netdev_ipip_config before = *netdev_ipip_get_config(netdev);
    char *err = NULL;
    int error = netdev_set_config(netdev, args, &err);

    if (!error) {
        fuzz_check(!err, "set_config accepted with message %s", err);
    } else {
        fuzz_check(error == EINVAL, "set_config returned %d", error);
        fuzz_check(err && err[0], "set_config refused without a message");
        fuzz_check(config_equal(&before, netdev_ipip_get_config(netdev)),
                   "a refused configuration changed the port's");
    }
    free(err);
    return error;
}

/* Parses 'in' into 'args' as described at the top of this file. */
static void
parse_options(const struct fuzz_input *in, struct smap *args)
{
    const char *p = (const char *) in->data;
    const char *end = p + in->size;

    while (p < end) {
        const char *nl = memchr(p, '\n', end - p);
        const char *line_end = nl ? nl : end;
        char *line = xmemdup0(p, line_end - p);
        char *eq = strchr(line, '=');

        if (eq) {
            *eq = '\0';
        }
        smap_replace(args, line, eq ? eq + 1 : "");
        free(line);
        p = nl ? nl + 1 : end;
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { .data = data, .size = size };
    struct smap args = SMAP_INITIALIZER(&args);
    struct smap known = SMAP_INITIALIZER(&known);
    struct netdev *netdev;

    fuzz_init();
    netdev = fuzz_port();

    smap_add(&known, "remote_ip", "192.0.2.1");
    fuzz_check(!set_config(netdev, &known), "the known configuration");
    smap_destroy(&known);

    parse_options(&in, &args);
    if (!set_config(netdev, &args)) {
        struct netdev_ipip_config accepted = *netdev_ipip_get_config(netdev);
        struct smap back = SMAP_INITIALIZER(&back);

        fuzz_check(!netdev_get_config(netdev, &back), "get_config");
        fuzz_check(!set_config(netdev, &back), "the configuration read "
                   "back is refused");
        fuzz_check(config_equal(&accepted, netdev_ipip_get_config(netdev)),
                   "the configuration read back differs");
        smap_destroy(&back);
    }
    smap_destroy(&args);

    /* Frees the configurations replaced, as the main loop would. */
    ovsrcu_quiesce();
    return 0;
}
