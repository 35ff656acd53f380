"""Test session settings, set before any test module imports numpy or torch: the ``cardrl``
command's ``TRAINING_ENV`` (``cardrl.cli``) and OpenMP's passive wait (the suite runs two
processes on two cores, where idle OpenMP threads spinning through the other's turn
slowed training tests tenfold); SB3's log folder of a model with no logger, one for the
session and removed after it (SB3 makes a ``/tmp/SB3-<time>`` folder per such model); and
the Ray tests' cluster."""

import atexit
import os
import shutil
import tempfile

import pytest

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
if "SB3_LOGDIR" not in os.environ:
    os.environ["SB3_LOGDIR"] = tempfile.mkdtemp(prefix="cardrl-tests-sb3-")
    atexit.register(shutil.rmtree, os.environ["SB3_LOGDIR"], ignore_errors=True)


@pytest.fixture(scope="module")
def ray_address():
    """A local Ray cluster of 2 CPUs for one test module, shut down after it (the Ray tests:
    RLlib training and tournaments as Ray tasks)."""
    from ray.cluster_utils import Cluster  # only the Ray tests need the ray extra loaded

    # Ray starts its workers at nice 15: beside the other pytest process (nice 0) they got a
    # few percent of a core, and a Ray test took minutes instead of seconds
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAY_worker_niceness", "0")
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2})
        try:
            yield cluster.address
        finally:
            cluster.shutdown()


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium driven by playwright, one per test module (the browser tests)."""
    from pathlib import Path

    from playwright.sync_api import sync_playwright

    from tests.web_util import CHROMIUM, FLAGS

    assert Path(CHROMIUM).exists(), "Debian's chromium is missing: run `make test` (installs it)"
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()

