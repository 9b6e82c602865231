#!/bin/sh
# Checks the two rules lib/'s folders encode (Documentation/architecture.md,
# "Layers"), from the '#include "X.h"' lines of our files:
#   1. lib/packet/ (the leaf libraries) includes nothing else of ours:
#      every header it names is in lib/packet/ or not ours (OVS's,
#      config.h); a header of lib/, its other folders, vswitchd/ or
#      datapath/ is an include from above;
#   2. nothing in lib/ outside lib/dpif/ (the dpif adapter, the top layer)
#      includes a header of lib/dpif/.
# Exits 1 and says which include breaks a rule, or 0.  'make check' runs
# it before the test suite (so CI does).
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
status=0

# includes FILE
#   The headers FILE includes with quotes by a plain name (the build finds
#   ours by their plain names; a path such as "../../datapath/X.h" or
#   "openvswitch/X.h" names a file outside lib/'s folders).
includes() {
    sed -n 's/^#[ 	]*include[ 	]*"\([^"/]*\)".*/\1/p' "$1"
}

for f in "$top"/lib/packet/*.c "$top"/lib/packet/*.h; do
    for h in $(sed -n 's/^#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$f"); do
        if [ -e "$top/lib/packet/$h" ]; then
            continue
        fi
        for dir in lib lib/dpif lib/tunnels lib/afpacket vswitchd datapath; do
            if [ -e "$top/$dir/$h" ]; then
                echo "check-layers: ${f#$top/} includes $dir/$h:" \
                     "lib/packet/ may include only lib/packet/ and OVS" >&2
                status=1
            fi
        done
    done
done

for f in "$top"/lib/*.[ch] "$top"/lib/packet/*.[ch] \
         "$top"/lib/tunnels/*.[ch] "$top"/lib/afpacket/*.[ch]; do
    for h in $(includes "$f"); do
        if [ -e "$top/lib/dpif/$h" ]; then
            echo "check-layers: ${f#$top/} includes lib/dpif/$h:" \
                 "only the dpif adapter (lib/dpif/) includes its headers" >&2
            status=1
        fi
    done
done
exit $status
