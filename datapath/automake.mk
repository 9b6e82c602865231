# The kernel datapath module (datapath/), built with kbuild against
# LINUX_BUILDDIR when configure found one (m4/ovs-percpu-linux.m4).  kbuild
# builds in the source directory, as external modules do, and decides
# itself what to rebuild, so it runs on every make (about a second when
# nothing changed).  Its output goes to datapath/kbuild.log, shown on
# failure.
DATAPATH_SOURCES = \
	datapath/Kbuild \
	datapath/actions.h \
	datapath/datapath.h \
	datapath/dp-module.c \
	datapath/flow-actions.h \
	datapath/flow-key.h \
	datapath/flow-netlink.h \
	datapath/skb-cb.h
EXTRA_DIST += $(DATAPATH_SOURCES)

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
	rm -f datapath/kbuild.log
.PHONY: datapath-module datapath-clean
endif
