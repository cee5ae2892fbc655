"""python-bindings/tools/build_bundle.py as a module: the script that makes
the kernel bundle, whose tables (formats, configurations, names) the tests
compare with the package's."""
import importlib.util
import pathlib

_module = None


def load():
    global _module
    if _module is None:
        path = pathlib.Path(__file__).resolve().parents[1] / "tools" / "build_bundle.py"
        spec = importlib.util.spec_from_file_location("build_bundle", path)
        _module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_module)
    return _module
