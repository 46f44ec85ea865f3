# SPDX-License-Identifier: GPL-2.0
# Sphinx configuration for make docs (tests/docs.sh sets UIDGEN_KSRC to an
# unpacked Debian linux-source-6.12, whose kernel-doc extension pulls the
# userspace API reference out of uapi/linux/uidgen.h).
import os
import sys

ksrc = os.environ['UIDGEN_KSRC']
sys.path.insert(0, os.path.join(ksrc, 'Documentation', 'sphinx'))

project = 'uidgen'
author = 'The uidgen developers'
master_doc = 'index'
extensions = ['kerneldoc']
kerneldoc_bin = os.path.join(ksrc, 'scripts', 'kernel-doc')
kerneldoc_srctree = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
exclude_patterns = ['_build']
html_theme = 'alabaster'
html_title = 'uidgen'
