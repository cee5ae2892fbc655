import pathlib

import pytest

DATA = pathlib.Path(__file__).parent / "data"


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (skipped without one)")


def _have_gpu():
    try:
        import torch

        import fpxc
        return torch.cuda.is_available() and fpxc.has_gpu()
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if _have_gpu():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def artifact_path():
    return DATA / "test.json"
