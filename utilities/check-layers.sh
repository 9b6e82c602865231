#!/bin/sh
# Checks every rule of Documentation/architecture.md, "Layers", from the
# '#include "X"' lines of our files:
#   1. no file of lib/ outside lib/dpif/ (the dpif adapter, the top)
#      includes a header of lib/dpif/;
#   3. a netdev type (lib/afpacket/; lib/tunnels/netdev-ipip and
#      kernel-ipip) includes, of ours, only its own files and lib/packet/,
#      and kernel-ipip.h the module's ABI header datapath/ovsp-ipip-uapi.h;
#   4. lib/flow/ (the flow leaves) includes, of ours, only lib/flow/ and
#      lib/packet/;
#   5. lib/packet/ (the packet leaves) includes nothing of ours outside it;
# and, between the halves of the tree:
#   - no file of datapath/ includes anything of ours outside datapath/;
#   - of datapath/, lib/ and vswitchd/ include only ovsp-genl.h and
#     ovsp-ipip-uapi.h.
# (Rule 2, the core, adds nothing to these.)  A header is found as the
# build finds it: a plain name in the including file's folder first, then,
# outside datapath/ (kbuild searches only there), in lib/'s folders in the
# order of AM_CPPFLAGS; a name with a slash from the including file's
# folder.  A header found in none of our folders is
# OVS's or the system's, and no rule's business.
# Exits 1 and says which include breaks which rule, or 0.  'make check'
# runs it before the test suite (so CI does).
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 1
status=0

# The folders of lib/ the build searches, in AM_CPPFLAGS's order.
search_dirs="lib lib/flow lib/packet lib/tunnels lib/afpacket lib/dpif"

# The netdev type ipip, by path.
ipip_type="lib/tunnels/netdev-ipip.c lib/tunnels/netdev-ipip.h
    lib/tunnels/kernel-ipip.c lib/tunnels/kernel-ipip.h"

# includes FILE
#   The headers FILE includes with quotes.
includes() {
    sed -n 's/^#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$1"
}

# resolve FILE HEADER
#   Prints the path from the top of the file of ours that FILE's
#   '#include "HEADER"' finds, or nothing if it finds none of ours.
resolve() {
    dir=$(dirname "$1")
    case $2 in
    */*)
        p=$(realpath -m --relative-to=. "$dir/$2")
        case $p in
        lib/*|datapath/*|vswitchd/*)
            [ -e "$p" ] && echo "$p" ;;
        esac
        return ;;
    esac
    case $1 in
    datapath/*)
        # kbuild searches only the module's folder; a name found there
        # is the module's own, and one found in lib/ would be an include
        # of ours that only a changed search path could reach.
        dirs="$dir" ;;
    *)
        dirs="$dir $search_dirs" ;;
    esac
    for d in $dirs; do
        if [ -e "$d/$2" ]; then
            echo "$d/$2"
            return
        fi
    done
}

# in_list WORD LIST
in_list() {
    case " $(echo $2) " in
    *" $1 "*) return 0 ;;
    esac
    return 1
}

# complain FILE HEADER RULE...
complain() {
    f1=$1
    h1=$2
    shift 2
    echo "check-layers: $f1 includes $h1: $*" >&2
    status=1
}

# check FILE HEADER P
#   Applies to FILE's '#include "HEADER"', which finds P (empty when it
#   finds nothing of ours), every rule that concerns FILE.
check() {
    case $1 in
    datapath/*)
        case $3 in
        ''|datapath/*) ;;
        *) complain "$1" "$3" "the module includes nothing of ours" \
                    "outside datapath/" ;;
        esac
        return ;;
    esac
    # Userspace: lib/ and vswitchd/.
    case $3 in
    datapath/ovsp-genl.h|datapath/ovsp-ipip-uapi.h) ;;
    datapath/*)
        complain "$1" "$3" "of datapath/, userspace includes only" \
                 "ovsp-genl.h and ovsp-ipip-uapi.h" ;;
    esac
    case $1 in
    lib/dpif/*|vswitchd/*) return ;;
    esac
    # Rule 1.
    case $3 in
    lib/dpif/*)
        complain "$1" "$3" "only the dpif adapter (lib/dpif/) and" \
                 "vswitchd/ include its headers" ;;
    esac
    # Rules 3, 4 and 5.
    if in_list "$1" "$ipip_type"; then
        case $3 in
        ''|lib/packet/*) ;;
        datapath/ovsp-ipip-uapi.h)
            [ "$1" = lib/tunnels/kernel-ipip.h ] \
                || complain "$1" "$3" "only kernel-ipip.h includes the" \
                            "module's ABI header" ;;
        *) in_list "$3" "$ipip_type" \
               || complain "$1" "$3" "a netdev type includes only its" \
                           "own files and lib/packet/" ;;
        esac
    else
        case $1:$3 in
        *:|*:lib/packet/*|lib/afpacket/*:lib/afpacket/*) ;;
        lib/flow/*:lib/flow/*) ;;
        lib/flow/*)
            complain "$1" "$3" "lib/flow/ includes, of ours, only lib/flow/" \
                     "and lib/packet/" ;;
        lib/afpacket/*)
            complain "$1" "$3" "a netdev type includes only its own" \
                     "files and lib/packet/" ;;
        lib/packet/*)
            complain "$1" "$3" "lib/packet/ includes nothing of ours" \
                     "outside it" ;;
        esac
    fi
}

for f in lib/*.[ch] lib/*/*.[ch] vswitchd/*.[ch] datapath/*.[ch]; do
    for h in $(includes "$f"); do
        check "$f" "$h" "$(resolve "$f" "$h")"
    done
done
exit $status
