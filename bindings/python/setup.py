# SPDX-License-Identifier: LGPL-2.1-or-later
"""The uidgen binding's C extension, uidgen._native (libuidgen's
uidgen_next() behind next(); uidgen/_native.c), for pip and setuptools;
the rest of the package is pyproject.toml's. Optional: if it cannot be
built (no Python headers, no libuidgen), pip installs the pure-Python
binding, which works the same, slower.

Against the installed libuidgen (libuidgen-dev: uidgen.h, libuidgen.so) by
default; UIDGEN_SRC=DIR builds it against a uidgen source tree's instead,
its -fPIC objects linked in (make -C DIR/userlib libuidgen-pic.a first)."""
import os

from setuptools import Extension, setup

src = os.environ.get("UIDGEN_SRC")
if src:
    ext = Extension("uidgen._native", ["uidgen/_native.c"], optional=True,
                    define_macros=[("_GNU_SOURCE", None)],
                    include_dirs=[os.path.join(src, "uapi"), os.path.join(src, "userlib")],
                    extra_objects=[os.path.join(src, "userlib/libuidgen-pic.a")],
                    extra_link_args=["-Wl,--exclude-libs,ALL"], libraries=["pthread"])
else:
    ext = Extension("uidgen._native", ["uidgen/_native.c"], optional=True,
                    define_macros=[("_GNU_SOURCE", None)], libraries=["uidgen"])
setup(ext_modules=[ext])
