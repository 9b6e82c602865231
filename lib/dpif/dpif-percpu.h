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

#ifndef DPIF_PERCPU_H
#define DPIF_PERCPU_H 1

/* The dpif provider of the ovs-percpu userspace datapath.
 *
 * dpif_percpu_register() must run before anything opens a datapath or
 * enumerates datapath types: it registers our class under the types
 * "netdev" and "dummy" and then disallows both types, so that OVS's own
 * dpif-netdev, which dp_initialize() tries to register later, is refused
 * (with a DBG log only) and never initialises. */

#include <stdbool.h>


struct datapath;
struct dpif;

void dpif_percpu_register(void);
void dpif_percpu_register_as(const char *type);
void dpif_percpu_override_system(void);

struct datapath *dpif_percpu_get_datapath(const struct dpif *);

#endif /* dpif-percpu.h */
