import os
import sys

import pytest

import minifloat as mf

# the conformance harness is a tool beside the package, not part of it
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import compat  # noqa: E402


def pytest_report_header(config):
    from minifloat import _lib

    try:
        import ml_dtypes

        mld = ml_dtypes.__version__
    except ImportError:
        mld = "not installed"
    return [
        f"minifloat {mf.version()} from {_lib.core_path} (backend {mf.backend()}); lab: {_lib.lab_path}",
        f"formats: {' '.join(mf.formats())}; profiles: {' '.join(mf.profiles())}; ml_dtypes {mld}",
        f"conformance inputs: {compat.conformance_mode()} (MINIFLOAT_CONFORMANCE=quick|sample|all)",
    ]


@pytest.fixture(scope="session")
def ml_dtypes():
    return pytest.importorskip("ml_dtypes")
