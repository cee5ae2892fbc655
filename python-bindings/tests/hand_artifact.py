"""The hand-written test artifact (an f32 add-one kernel and a two-launch sum,
compiler "hand"). Its PTX and JSON have one owner, the runtime's C++ tests
(test/unittests/Runtime/TestArtifacts.h: kTestPtx, kTestJson); this reads them
from there (the package's tests run from the checkout) and writes them out as
an artifact folder."""
import pathlib
import re

HEADER = pathlib.Path(__file__).resolve().parents[2] / "test/unittests/Runtime/TestArtifacts.h"


def _raw_string(text, delimiter):
    """The body of the C++ raw string literal R"delimiter(...)delimiter"."""
    m = re.search(r'R"%s\((.*?)\)%s"' % (delimiter, delimiter), text, re.S)
    if m is None:
        raise RuntimeError(f"{HEADER}: no raw string R\"{delimiter}(...)\"")
    return m.group(1)


def write(folder):
    """Writes test.json and test.ptx into `folder`; returns the JSON's path."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    text = HEADER.read_text()
    (folder / "test.json").write_text(_raw_string(text, "JSON"))
    (folder / "test.ptx").write_text(_raw_string(text, "PTX"))
    return folder / "test.json"
