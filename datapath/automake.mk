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
	datapath/conntrack-nat.c \
	datapath/conntrack-nat.h \
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
	datapath/vport-fragment.c \
	datapath/vport-internal.c \
	datapath/vport-netdev.c \
	datapath/vport.c \
	datapath/vport.h
EXTRA_DIST += $(DATAPATH_SOURCES) datapath/dkms/Makefile datapath/dkms/dkms.conf.in

# The module's source tree as dkms builds it, written to DKMS_SOURCEDIR
# (utilities/build-deb.sh's ovs-percpu-datapath-dkms installs it as
# /usr/src/ovs-percpu-VERSION): the sources above, Kbuild among them, the
# Makefile that drives kbuild and dkms.conf.  Needs no Linux build tree.
dkms-source:
	@test -n "$(DKMS_SOURCEDIR)" \
	  || { echo "dkms-source: set DKMS_SOURCEDIR" >&2; exit 1; }
	rm -rf '$(DKMS_SOURCEDIR)' && $(MKDIR_P) '$(DKMS_SOURCEDIR)'
	for f in $(DATAPATH_SOURCES); do \
	  cp '$(srcdir)'/$$f '$(DKMS_SOURCEDIR)' || exit 1; \
	done
	cp '$(srcdir)/datapath/dkms/Makefile' '$(DKMS_SOURCEDIR)/Makefile'
	sed 's/#MODULE_VERSION#/$(PACKAGE_VERSION)/g' \
	  '$(srcdir)/datapath/dkms/dkms.conf.in' > '$(DKMS_SOURCEDIR)/dkms.conf'
.PHONY: dkms-source

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

# make install puts the module where kbuild's modules_install puts an
# external module, /lib/modules/LINUX_KVER/INSTALL_MOD_DIR (extra, kbuild's
# default; make's command line may change it) under DESTDIR, whatever the
# prefix, and runs depmod for that kernel, which modules_install skips
# without the System.map that Debian's headers lack.  Under a DESTDIR
# depmod is left to whoever installs the tree.  kbuild signs what it
# installs when the kernel signs its modules (Debian's does), with the
# build tree's key: Debian's headers have none, so signing is skipped
# where there is no certs/signing_key.x509 instead of failing on it.
INSTALL_MOD_DIR = extra
datapath_install_args = -C $(LINUX_BUILDDIR) M=$(abs_top_srcdir)/datapath \
	INSTALL_MOD_PATH='$(DESTDIR)' INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
	`test -f $(LINUX_BUILDDIR)/certs/signing_key.x509 \
	  || echo CONFIG_MODULE_SIG_ALL=`
install-exec-local: datapath-install
datapath-install:
	@echo "  INSTALL  $(DESTDIR)/lib/modules/$(LINUX_KVER)/$(INSTALL_MOD_DIR)/ovs_percpu.ko"
	@$(MAKE) $(datapath_install_args) modules_install \
		> datapath/kbuild-install.log 2>&1 \
		|| { cat datapath/kbuild-install.log; exit 1; }
	test -n '$(DESTDIR)' || depmod -a $(LINUX_KVER)

uninstall-local: datapath-uninstall
datapath-uninstall:
	rm -f '$(DESTDIR)/lib/modules/$(LINUX_KVER)/$(INSTALL_MOD_DIR)/ovs_percpu.ko'
	test -n '$(DESTDIR)' || depmod -a $(LINUX_KVER)

clean-local: datapath-clean
datapath-clean:
	-@$(MAKE) -C $(LINUX_BUILDDIR) M=$(abs_top_srcdir)/datapath clean \
		> /dev/null 2>&1
	rm -f datapath/kbuild.log datapath/kbuild-install.log datapath/*.ci
.PHONY: datapath-module datapath-clean datapath-install datapath-uninstall
endif
