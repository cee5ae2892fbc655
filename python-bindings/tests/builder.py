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


def with_fpxc():
    """(the module with fpxc's vocabulary loaded, the fpxc path), or a
    skip where no fpxc was built ($FPX_FPXC: a GPU machine without MLIR)."""
    import pytest
    from conftest import fpxc_path
    fpxc_bin = fpxc_path()
    if not fpxc_bin:
        pytest.skip("no fpxc (FPX_FPXC)")
    bb = load()
    bb.load_vocabulary(fpxc_bin)
    return bb, fpxc_bin


def compile_config(c, fpxc_bin, out_dir, target="sm_90a"):
    """Writes configuration c's spec to out_dir and compiles it for `target`:
    (the fpxc run, the artifact's fpxc._fpx.ArtifactInfo or None on a
    failure)."""
    import subprocess

    import fpxc
    spec = out_dir / f"{c['name']}.mlir"
    spec.write_text(load().any_spec_text(c["options"], c["name"]))
    r = subprocess.run([fpxc_bin, "compile", str(spec), "--target", target, "-o",
                        str(out_dir / c["name"])], capture_output=True, text=True)
    if r.returncode:
        return r, None
    return r, fpxc._fpx.ArtifactInfo.read(str(out_dir / f"{c['name']}.json"))
