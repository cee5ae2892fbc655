import pathlib

import pytest

DATA = pathlib.Path(__file__).parent / "data"


@pytest.fixture
def artifact_path():
    return DATA / "test.json"
