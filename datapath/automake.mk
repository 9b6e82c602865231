# The kernel datapath module (datapath/), built with kbuild against
# LINUX_BUILDDIR when configure found one (m4/ovs-percpu-linux.m4).  kbuild
# builds in the source directory, as external modules do, and decides
# itself what to rebuild, so it runs on every make (about a second when
# nothing changed).  Its output goes to datapath/kbuild.log, shown on
# failure.
DATAPATH_SOURCES = \
	datapath/Kbuild \
	datapath/actions-format.h \
	datapath/actions.c \
	datapath/actions.h \
	datapath/conntrack.c \
	datapath/conntrack.h \
	datapath/ct-limit-family.c \
	datapath/ct-limit.c \
	datapath/ct-limit.h \
	datapath/datapath.c \
	datapath/datapath.h \
	datapath/dp-core.h \
	datapath/dp-family.c \
	datapath/dp-module.c \
	datapath/dp-notify.c \
	datapath/flow-actions.c \
	datapath/flow-actions.h \
	datapath/flow-family.c \
	datapath/flow-key.c \
	datapath/flow-key.h \
	datapath/flow-netlink.c \
	datapath/flow-netlink.h \
	datapath/flow-stats.c \
	datapath/flow-stats.h \
	datapath/flow-table.c \
	datapath/flow-table.h \
	datapath/ipip-cells.c \
	datapath/ipip-dev.c \
	datapath/ipip-rcv.c \
	datapath/ipip-xmit.c \
	datapath/ipip.h \
	datapath/meter-family.c \
	datapath/meter.c \
	datapath/meter.h \
	datapath/ovsp-genl.h \
	datapath/ovsp-ipip-uapi.h \
	datapath/packet-family.c \
	datapath/percpu-family.c \
	datapath/skb-cb.h \
	datapath/upcall.c \
	datapath/vport-family.c \
	datapath/vport-internal.c \
	datapath/vport-netdev.c \
	datapath/vport.c \
	datapath/vport.h
EXTRA_DIST += $(DATAPATH_SOURCES)

# The module's stack budget (utilities/check-stack.py), from the call graph
# gcc writes while kbuild compiles it; make check runs it.
if LINUX_ENABLED
check_stack = /usr/bin/python3 '$(srcdir)/utilities/check-stack.py' \
	'$(abs_top_srcdir)/datapath'
else
check_stack = @echo "check-stack: skipped: the kernel module is not built"
endif
check-stack: all
	$(check_stack)

if LINUX_ENABLED
all-local: datapath-module
datapath-module:
	@echo "  KBUILD   datapath/ovs_percpu.ko"
	@$(MAKE) -C $(LINUX_BUILDDIR) M=$(abs_top_srcdir)/datapath modules \
		> datapath/kbuild.log 2>&1 \
		|| { cat datapath/kbuild.log; exit 1; }

clean-local: datapath-clean
datapath-clean:
	-@$(MAKE) -C $(LINUX_BUILDDIR) M=$(abs_top_srcdir)/datapath clean \
		> /dev/null 2>&1
	rm -f datapath/kbuild.log datapath/*.ci
.PHONY: datapath-module datapath-clean
endif
