#!/bin/sh
# Checks the rule lib/packet/ encodes (Documentation/architecture.md,
# "Layers"): the leaf libraries include nothing else of ours.  Every
# '#include "X.h"' of a file in lib/packet/ must name a header of
# lib/packet/ or one that is not ours (OVS's, config.h); a header of
# lib/, vswitchd/ or datapath/ is an include from above.  Exits 1 and says
# which, or 0.  'make check' runs it before the test suite (so CI does).
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
status=0
for f in "$top"/lib/packet/*.c "$top"/lib/packet/*.h; do
    for h in $(sed -n 's/^#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$f"); do
        if [ -e "$top/lib/packet/$h" ]; then
            continue
        fi
        for dir in lib vswitchd datapath; do
            if [ -e "$top/$dir/$h" ]; then
                echo "check-layers: ${f#$top/} includes $dir/$h:" \
                     "lib/packet/ may include only lib/packet/ and OVS" >&2
                status=1
            fi
        done
    done
done
exit $status
