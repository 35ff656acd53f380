"""Test session settings: what ``train/__init__.py`` sets for training, set before any test
module imports numpy or torch (see there: idle OpenMP threads spinning through numpy's
turn slowed training tests tenfold on a loaded machine)."""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
