# SPDX-License-Identifier: GPL-2.0
#
# uidgen: the human interface.
#
#   make            build the module (against KDIR) and libuidgen + the CLI
#   make demo       set up this machine, boot a throwaway VM, show IDs
#   make check      set up this machine, run every test suite in a VM,
#                   and KUnit on a debug kernel
#   make bench      set up, boot a VM, print the benchmark table and plot
#   make kunit      KUnit alone (debug kernel cached in /var/cache/uidgen-kunit)
#   make style      checkpatch --strict, kernel-doc, uapi header as C90
#   make sparse     build the module under sparse
#   make clean

# This machine's kernel if it has headers, else Debian's 6.1 headers (the
# test VM's kernel).
KVER_TEST = $(shell tests/qemu/kver.sh 6.1 2>/dev/null)
KDIR ?= $(if $(wildcard /lib/modules/$(shell uname -r)/build),/lib/modules/$(shell uname -r)/build,/usr/src/linux-headers-$(KVER_TEST))

all: module userlib

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

userlib:
	$(MAKE) -C userlib

selftests:
	$(MAKE) -C selftests

tests: userlib selftests
	$(MAKE) -C userlib tests/unit

setup:
	tests/setup.sh

demo: setup
	$(MAKE) all
	tests/qemu/vm.sh tests/qemu/guest-demo.sh

check: setup
	$(MAKE) module KCFLAGS=-Werror
	$(MAKE) userlib tests
	tests/check.sh

bench: setup
	$(MAKE) module userlib
	$(MAKE) -C bench
	bench/bench.sh

kunit: setup
	tests/kunit/run.sh

style:
	tests/style.sh

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 W=1 modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userlib clean
	$(MAKE) -C selftests clean
	$(MAKE) -C bench clean
	rm -rf build

.PHONY: all module userlib selftests tests setup demo check bench kunit style sparse clean
