# SPDX-License-Identifier: GPL-2.0
# uidgen's one version, the module's (UIDGEN_VERSION_STR in module/internal.h),
# as $(VERSION) for every Makefile that includes this file.
VERSION := $(shell sed -n 's/^\#define UIDGEN_VERSION_STR[[:space:]]*"\(.*\)"/\1/p' $(dir $(lastword $(MAKEFILE_LIST)))module/internal.h)
