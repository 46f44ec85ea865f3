# SPDX-License-Identifier: GPL-2.0
#
# uidgen: the human interface.
#
#   make            build the module (against KDIR), libuidgen + the CLI, and
#                   uidgen-lease + uidgen-cluster (lease/)
#   make demo       set up this machine, boot a throwaway VM, show IDs
#   make check      set up this machine, run every test suite in a VM,
#                   and KUnit on a debug kernel
#   make check-observe  issue 30's ping-pong alone: two VMs 2 s apart pass
#                   an ID back and forth 10,000 times (ROUNDS=N), without
#                   observe, with it, and at the default bound (make check
#                   runs it too)
#   make check-cluster  uidgen-lease against a real 3-member etcd: on the
#                   host with the device stand-in, then three VMs, then a
#                   VM cloned from a migration file (CI runs it)
#   make bench      set up, boot a VM, print the benchmark table and plot;
#                   then make bench-compare
#   make bench-compare  the cost and scale rows of this tree against 1.4.0's
#                   (BASE=REV for another baseline), in turns in one VM boot:
#                   a table of both and their ratios (bench/compare.sh); then
#                   the userspace paths' instructions per ID (callgrind) for
#                   releases 1.4 and 2.0 and this tree; ICOUNT=1: only those
#   make bench-lease  500 uidgen-lease agents (device stand-in) against a
#                   3-member etcd: claim latency, agents outnumbering IDs;
#                   then the ID clock's offset over 100 restarts, crashes
#                   and hand-overs (bench/lease-restarts.sh)
#   make bench-pg   PostgreSQL 15 in a VM: insert rate, index size, WAL and
#                   time ranges for bigserial, uidgen and UUID keys (ROWS=N)
#   make docs       Documentation/ as HTML in build/docs/html (sphinx)
#   make kunit      KUnit alone (debug kernel cached in /var/cache/uidgen-kunit)
#   make check-kcsan  the concurrency, node and fault suites on a KCSAN kernel
#   make check-system  the user's own machine: a Debian 12 guest that boots
#                   with systemd (disk image cached in /var/cache/uidgen-system)
#                   installs make deb's packages as the admin guide says,
#                   reboots and is reset; no ID repeats; upgrades its
#                   kernel, scrapes its metrics, runs containers
#                   (tests/system/)
#   make style      checkpatch --strict, kernel-doc, uapi header as C90
#   make upstream   the module as a kernel patch series (git format-patch,
#                   build/upstream/) for Debian's linux-source-6.12: the
#                   uapi header, the generator core, the device with the
#                   node's life, RESERVE and the fence page, OBSERVE, the
#                   status files and docs, the kselftests; each patch
#                   builds (tools/upstream.sh; the suite that applies,
#                   bisects and builds it =m: tests/upstream.sh, in make
#                   check)
#   make check-upstream-full  that series in a kernel built from it: =y
#                   with W=1, htmldocs, and a guest booted from it runs
#                   run_kselftest.sh (tests/upstream-full.sh; not in make
#                   check: the first run builds a kernel, about an hour)
#   make model      the fleet protocol's Promela model (model/fleet.pml), spin
#   make sparse     build the module under sparse
#   make install    the module (+ depmod), header, libuidgen, CLI, man pages,
#                   systemd units, modprobe.d example, the udev rule for
#                   /dev/uid (and its group uidgen, without DESTDIR);
#                   DESTDIR and PREFIX honoured, KVER picks the kernel
#                   (default: the running one; refused if it has no
#                   headers and KVER/KDIR unset)
#   make uninstall  remove all of it (KVER as for install, refused alike)
#   make dkms-install    the module's source to /usr/src/uidgen-VERSION, and
#                   dkms add, build and install it for KVER (dkms then
#                   rebuilds it for every new kernel)
#   make dkms-uninstall  dkms remove it from every kernel, and the source
#   make deb        Debian packages in build/deb/: uidgen-dkms, libuidgen2,
#                   libuidgen-dev, uidgen-tools, postgresql-15-uidgen
#                   (dpkg-buildpackage)
#   make clean

# The kernel the module is built for (KDIR, its headers) and installed
# into (KVER, /lib/modules/KVER). Either given, the other follows it.
# Neither given: the running kernel (UNAME_R) if it has headers; else
# Debian's 6.1 headers (the test VM's kernel), said on stderr, and install
# and dkms-install refuse that kernel's tree until KVER or KDIR is given.
UNAME_R ?= $(shell uname -r)
KDIR_GIVEN := $(filter-out undefined,$(origin KDIR))$(filter-out undefined,$(origin KVER))
KVER_TEST = $(shell tests/qemu/kver.sh 6.1 2>/dev/null)
ifeq ($(origin KDIR)$(origin KVER),undefinedundefined)
ifneq ($(wildcard /lib/modules/$(UNAME_R)/build),)
KDIR := /lib/modules/$(UNAME_R)/build
KVER := $(UNAME_R)
else
KVER := $(KVER_TEST)
KDIR := $(if $(KVER),/usr/src/linux-headers-$(KVER))
KDIR_NOT_RUNNING := 1
endif
else ifeq ($(origin KDIR),undefined)
KDIR := /lib/modules/$(KVER)/build
else ifeq ($(origin KVER),undefined)
# /lib/modules/KVER/build or /usr/src/linux-headers-KVER; else unknown.
KVER_OF_KDIR := $(patsubst /lib/modules/%/build,%,$(patsubst /usr/src/linux-headers-%,%,$(patsubst %/,%,$(KDIR))))
KVER := $(if $(findstring /,$(KVER_OF_KDIR)),,$(KVER_OF_KDIR))
endif

# What make module says, and install refuses, when KDIR is not the running
# kernel's and nobody asked for it.
define KDIR_WARNING
uidgen: no headers for the running kernel $(UNAME_R) (/lib/modules/$(UNAME_R)/build)
uidgen: building against $(or $(KDIR),no headers at all) instead: this module will not load on this machine.
uidgen: for this kernel: apt-get install linux-headers-$(UNAME_R); for another: make KDIR=... (or KVER=...)
endef
ifeq ($(KDIR_NOT_RUNNING),1)
ifneq ($(filter all module sparse install install-module,$(or $(MAKECMDGOALS),all)),)
$(warning $(KDIR_WARNING))
endif
endif
# install, install-module, dkms-install, uninstall: never into (or out of)
# a tree nobody named (refused before anything is built or removed).
ifneq ($(filter install install-module dkms-install uninstall,$(MAKECMDGOALS)),)
ifeq ($(KDIR_NOT_RUNNING),1)
$(error uidgen: refusing to $(if $(filter uninstall,$(MAKECMDGOALS)),uninstall the module from,install the module into) /lib/modules/$(or $(KVER),?): not the running kernel ($(UNAME_R)), which has no headers. Say which kernel: make $(MAKECMDGOALS) KVER=$(or $(KVER),...) (or KDIR=...))
endif
ifeq ($(KVER),)
$(error uidgen: which kernel's /lib/modules is KDIR=$(KDIR) for? Say so: make $(MAKECMDGOALS) KDIR=$(KDIR) KVER=...)
endif
endif

# The VM targets (demo, check, check-observe, check-cluster, bench, bench-pg,
# check-kcsan) build the module for the test VM's kernel, which is not
# this machine's (read after setup has installed its headers).
VM_KDIR = $(if $(KDIR_GIVEN),$(KDIR),/usr/src/linux-headers-$$(tests/qemu/kver.sh 6.1))

PREFIX ?= /usr/local
DESTDIR ?=
MODDIR = /lib/modules/$(KVER)/updates
MANDIR := $(PREFIX)/share/man
UNITDIR := $(PREFIX)/lib/systemd/system
DOCDIR := $(PREFIX)/share/doc/uidgen
# udev reads rules from /usr/local/lib/udev/rules.d as well as /usr/lib's.
UDEVRULESDIR := $(PREFIX)/lib/udev/rules.d
# Container runtimes read CDI specs from /etc/cdi (and /var/run/cdi) only.
CDIDIR := /etc/cdi
# The systemd units, named: a glob that matches nothing would reach the
# shell as a pattern in UNITDIR.
UNITS := systemd/uidgen-state.service systemd/uidgen-persist.service \
	systemd/uidgen-lease.service systemd/uidgen-metrics.service systemd/uidgen-metrics.timer
# The section 3 pages. A page that documents another's function too is a
# symlink to it in man/ (uidgen_close.3 -> uidgen_open.3), which man -l
# follows from the tree; installed, it is man's own link, a ".so man3/PAGE"
# line (dh_installman turns those into symlinks in the package).
MAN3 := $(notdir $(wildcard man/*.3))
MAN3_LINKS := $(notdir $(shell find man -maxdepth 1 -name '*.3' -type l))
MAN3_PAGES := $(filter-out $(MAN3_LINKS),$(MAN3))
include version.mk
DKMS_SRC := /usr/src/uidgen-$(VERSION)

all: module userlib lease

module:
	@test -d "$(KDIR)" || { echo "uidgen: no kernel headers in '$(KDIR)': apt-get install linux-headers-$(UNAME_R), or make KDIR=..." >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

userlib:
	$(MAKE) -C userlib

lease: userlib
	$(MAKE) -C lease

selftests:
	$(MAKE) -C selftests

tests: userlib selftests clients
	$(MAKE) -C userlib tests/unit tests/unit-asan tests/unit-tsan tests/uuid tests/public
	$(MAKE) -C lease tests/rules

# The clients the VM suites test: the PostgreSQL extension (PGXS), the Go
# binding's test binary (built here, run in the guest), the Python
# binding's C extension, the Node binding's addon (cc against
# /usr/include/node: the VM suite node and make bench run it; the host suite
# node-pack builds another from npm pack's tarball), and tests/lib/idref
# (libuidgen's answers, which the bindings' tests compare theirs with).
GO_ENV = GOCACHE=$(CURDIR)/build/go-cache GOPATH=$(CURDIR)/build/go GOFLAGS=-mod=mod GOTOOLCHAIN=local
clients: userlib python-native python-wheel
	$(MAKE) -C clients/postgresql
	$(CC) -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -Iuapi -Iuserlib -o tests/lib/idref tests/lib/idref.c userlib/libuidgen.a
	cd bindings/go && $(GO_ENV) go vet ./... && $(GO_ENV) go test -c -o uidgen.test .
	sh bindings/node/build.sh

# The Python binding's C extension, uidgen._native (libuidgen's
# uidgen_next() for next()), in place in bindings/python/uidgen: Debian's
# python3-dev (/usr/bin/python3's headers), a plain cc build, libuidgen's
# -fPIC objects linked in and hidden. The binding is pure Python without
# it; pip builds the same from setup.py (bindings/python/README.md).
PYTHON ?= /usr/bin/python3
PY_EXT = bindings/python/uidgen/_native$(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
python-native: userlib
	$(MAKE) -C userlib libuidgen-pic.a
	$(CC) -O2 -g -Wall -Wextra -Werror -fPIC -shared -D_GNU_SOURCE \
		-I$$($(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])') -Iuapi -Iuserlib \
		-Wl,--exclude-libs,ALL -o $(PY_EXT) bindings/python/uidgen/_native.c userlib/libuidgen-pic.a -lpthread

# The same as pip builds it, as a wheel in build/py-wheel (pip wheel,
# offline, Debian's setuptools, against this tree's libuidgen): the VM
# suite python installs it with pip, with no compiler run under TCG.
python-wheel: python-native
	rm -rf build/py-wheel bindings/python/build bindings/python/*.egg-info
	UIDGEN_SRC=$(CURDIR) $(PYTHON) -m pip wheel -q --no-deps --no-build-isolation --no-index \
		-w build/py-wheel bindings/python
	rm -rf bindings/python/build bindings/python/*.egg-info

setup:
	tests/setup.sh

demo:
	tests/setup.sh --demo
	$(MAKE) all KDIR=$(VM_KDIR)
	tests/qemu/vm.sh tests/qemu/guest-demo.sh

check: setup
	$(MAKE) module KCFLAGS=-Werror KDIR=$(VM_KDIR)
	$(MAKE) userlib tests
	tests/check.sh

# Causal order across machines (issue 30): tests/observe/pingpong.sh, two
# VMs whose clocks are 2 s apart (about 8 minutes; make check runs it too).
check-observe: setup
	$(MAKE) module KCFLAGS=-Werror KDIR=$(VM_KDIR)
	$(MAKE) userlib
	tests/observe/pingpong.sh $(if $(ROUNDS),-n $(ROUNDS))

# uidgen-lease and etcd: the host suite (device stand-in) and the VMs.
check-cluster: setup
	$(MAKE) module KCFLAGS=-Werror KDIR=$(VM_KDIR)
	$(MAKE) lease
	tests/lease/check-cluster.sh

bench-lease: setup
	$(MAKE) lease
	bench/lease-sim.sh
	bench/lease-restarts.sh

bench: setup
	$(MAKE) module userlib clients KDIR=$(VM_KDIR)
	$(MAKE) -C bench
	bench/bench.sh
	bench/compare.sh $(if $(BASE),-b $(BASE))

# This tree against a baseline release (by default release 1.4.0: b251b5b)
# in one VM boot; compare.sh builds both sides its own way. ICOUNT=1: the
# instruction table alone (compare.sh -i).
bench-compare: setup
	bench/compare.sh $(if $(BASE),-b $(BASE)) $(if $(KVER),-k $(KVER)) $(if $(ICOUNT),-i)

# PostgreSQL keys in a VM (a benchmark, not a test; not in make check).
bench-pg: setup
	$(MAKE) module userlib clients KDIR=$(VM_KDIR)
	bench/pg.sh $(if $(ROWS),-n $(ROWS))

kunit: setup
	tests/kunit/run.sh

# The concurrency, node and fault selftests on a KCSAN kernel (built once
# into the KUnit cache, next to the KASAN one; not in make check: the
# build alone takes about 20 minutes on 2 cores).
check-kcsan: setup
	$(MAKE) module userlib selftests KDIR=$(VM_KDIR)
	test -r /var/cache/uidgen-kunit/build/.config || tests/kunit/run.sh
	tests/qemu/debug-vm.sh -k kcsan

# The user's own machine (tests/system/static.sh; not in CI yet): the
# first run builds the guest's disk from Debian's archive (mmdebstrap).
check-system: setup
	tests/system/static.sh
	tests/system/upgrade.sh
	tests/system/metrics.sh
	tests/system/containers.sh

style:
	tests/style.sh

# The in-tree patch series, in build/upstream/ (OUT=DIR for another).
upstream:
	tools/upstream.sh -o $(or $(OUT),$(CURDIR)/build/upstream)

check-upstream-full:
	tests/upstream-full.sh

# The fleet protocol, model-checked (spin; also part of make check).
model:
	model/check.sh

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 W=1 modules

install: install-module install-user

install-module: module
	install -D -m 0644 module/uidgen.ko $(DESTDIR)$(MODDIR)/uidgen.ko
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

# Everything but the module: what the Debian packages other than
# uidgen-dkms hold.
install-user: userlib lease
	install -D -m 0644 uapi/linux/uidgen.h $(DESTDIR)$(PREFIX)/include/linux/uidgen.h
	$(MAKE) -C userlib install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	$(MAKE) -C lease install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) MANDIR=$(MANDIR)
	install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man3 $(addprefix man/,$(MAN3_PAGES))
	for m in $(MAN3_LINKS); do \
		printf '.so man3/%s\n' "$$(readlink man/$$m)" > $(DESTDIR)$(MANDIR)/man3/$$m && \
		chmod 0644 $(DESTDIR)$(MANDIR)/man3/$$m || exit 1; \
	done
	install -D -m 0644 man/uid.4 $(DESTDIR)$(MANDIR)/man4/uid.4
	install -d $(DESTDIR)$(UNITDIR)
	for u in $(UNITS); do \
		sed -e 's|/usr/bin/uidgen|$(PREFIX)/bin/uidgen|' -e 's|/usr/sbin/uidgen|$(PREFIX)/sbin/uidgen|' \
			$$u > $(DESTDIR)$(UNITDIR)/$$(basename $$u); \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$(basename $$u); \
	done
	install -D -m 0644 etc/uidgen.conf.example $(DESTDIR)$(DOCDIR)/uidgen.conf.example
	install -D -m 0644 etc/uidgen.default.example $(DESTDIR)$(DOCDIR)/uidgen.default.example
	install -D -m 0644 etc/lease.conf.example $(DESTDIR)$(DOCDIR)/lease.conf.example
	install -D -m 0644 etc/60-uidgen.rules $(DESTDIR)$(UDEVRULESDIR)/60-uidgen.rules
	install -D -m 0755 deploy/prometheus/uidgen-metrics $(DESTDIR)$(PREFIX)/sbin/uidgen-metrics
	install -D -m 0644 deploy/prometheus/uidgen-metrics.8 $(DESTDIR)$(MANDIR)/man8/uidgen-metrics.8
	install -D -m 0644 deploy/cdi/uidgen.yaml $(DESTDIR)$(CDIDIR)/uidgen.yaml
	$(if $(DESTDIR),,ldconfig)
	$(if $(DESTDIR),,getent group uidgen > /dev/null || groupadd --system uidgen)

# The module's source, no build products, as a tree of its own in SRCDIR
# that builds with make -C KDIR M=SRCDIR (DKMS, and the test builds for
# other kernels).
module-source:
	test -n "$(SRCDIR)"
	rm -rf $(SRCDIR)
	install -d $(SRCDIR)/module/tests $(SRCDIR)/uapi/linux
	install -m 0644 Kbuild $(SRCDIR)/
	install -m 0644 module/Kbuild module/Kconfig $(filter-out %.mod.c,$(wildcard module/*.c)) module/*.h $(SRCDIR)/module/
	install -m 0644 module/tests/*.c module/tests/*.h $(SRCDIR)/module/tests/
	install -m 0644 uapi/linux/uidgen.h $(SRCDIR)/uapi/linux/

# The module's source as DKMS wants it, in $(DESTDIR)/usr/src/uidgen-VERSION.
dkms-source:
	$(MAKE) module-source SRCDIR=$(DESTDIR)$(DKMS_SRC)
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf.in > $(DESTDIR)$(DKMS_SRC)/dkms.conf

uninstall:
	rm -f $(DESTDIR)$(MODDIR)/uidgen.ko
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)
	rm -f $(DESTDIR)$(PREFIX)/include/linux/uidgen.h
	$(MAKE) -C userlib uninstall DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	$(MAKE) -C lease uninstall DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) MANDIR=$(MANDIR)
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(MAN3)) $(DESTDIR)$(MANDIR)/man4/uid.4
	for u in $(UNITS); do rm -f $(DESTDIR)$(UNITDIR)/$$(basename $$u); done
	rm -f $(DESTDIR)$(DOCDIR)/uidgen.conf.example $(DESTDIR)$(DOCDIR)/uidgen.default.example \
		$(DESTDIR)$(DOCDIR)/lease.conf.example
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-uidgen.rules $(DESTDIR)$(PREFIX)/sbin/uidgen-metrics \
		$(DESTDIR)$(MANDIR)/man8/uidgen-metrics.8 \
		$(DESTDIR)$(CDIDIR)/uidgen.yaml
	$(if $(DESTDIR),,ldconfig)

docs:
	tests/docs.sh

version:
	@echo $(VERSION)

# Debian packages (uidgen-dkms, libuidgen2, libuidgen-dev, uidgen-tools,
# postgresql-15-uidgen)
# in build/deb/, built from a copy of the files git tracks or would.
deb:
	rm -rf build/deb
	mkdir -p build/deb/uidgen-$(VERSION)
	git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t build/deb/uidgen-$(VERSION)
	cd build/deb/uidgen-$(VERSION) && dpkg-buildpackage -us -uc -b

dkms-install:
	$(MAKE) dkms-source DESTDIR=
	dkms status -m uidgen -v $(VERSION) | grep -q . || dkms add -m uidgen -v $(VERSION)
	dkms build -m uidgen -v $(VERSION) -k $(KVER)
	dkms install -m uidgen -v $(VERSION) -k $(KVER)

dkms-uninstall:
	-dkms remove -m uidgen -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

# kbuild's clean with M=module, not M=$(CURDIR): it deletes every *.mod,
# *.a, *.o, *.s ... under M=, and bindings/go/go.mod is one. The top's
# own kbuild outputs go by name. With no kernel headers at all (no KDIR),
# the module's products go by name too, and the rest is cleaned as ever.
MODULE_PRODUCTS := $(addprefix module/,*.o *.ko *.mod *.mod.c .*.cmd modules.order .*.d \
	tests/*.o tests/.*.cmd)
clean:
	$(if $(wildcard $(KDIR)/Makefile),$(MAKE) -C $(KDIR) M=$(CURDIR)/module clean,\
		@echo "uidgen: no kernel headers (KDIR '$(KDIR)'): the module's build products removed by name, without kbuild")
	$(if $(wildcard $(KDIR)/Makefile),,rm -f $(MODULE_PRODUCTS))
	rm -f Module.symvers modules.order .Module.symvers.cmd .modules.order.cmd
	$(MAKE) -C userlib clean
	$(MAKE) -C lease clean
	$(MAKE) -C selftests clean
	$(MAKE) -C bench clean
	$(MAKE) -C clients/postgresql clean
	rm -f tests/lib/idref bindings/go/uidgen.test
	rm -rf bindings/node/build bindings/node/deps bindings/node/*.tgz
	rm -rf bindings/python/build bindings/python/*.egg-info
	rm -f bindings/python/uidgen/_native*.so
	if [ -d build/go ]; then chmod -R u+w build/go; fi
	rm -rf build

.PHONY: all module userlib python-native python-wheel lease check-cluster check-observe check-upstream-full check-system bench-lease selftests tests clients setup demo check bench bench-compare bench-pg kunit check-kcsan style upstream model sparse install install-module install-user uninstall module-source dkms-source dkms-install dkms-uninstall deb version docs clean
