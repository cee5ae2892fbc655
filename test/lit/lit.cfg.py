# lit configuration for fpxc's FileCheck tests.
#
# Tools come from the build tree (fpx-opt, fpxc) and from Debian's LLVM 22
# (FileCheck, not). `%ptxas` is CUDA's ptxas; where it is absent the `ptxas`
# feature is missing and `REQUIRES: ptxas` tests report UNSUPPORTED.
import os
import sys

import lit.formats

config.name = "fpxc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fpx_obj_root, "test", "lit")

config.substitutions.append(("%python", sys.executable))
# project(fpxc VERSION ...) of the top CMakeLists.txt
config.substitutions.append(("%fpx_version", config.fpx_version))
config.substitutions.append(("%examples", os.path.join(config.fpx_src_root, "docs", "examples")))
config.substitutions.append(("%bench_specs",
                             os.path.join(config.fpx_src_root, "bench", "quantize", "specs")))

# Keep the environment small but let ptxas find its libraries.
for var in ["HOME", "TMPDIR", "CUDA_HOME", "LD_LIBRARY_PATH"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

def tool(name, path):
    # `fpx-opt` etc. as whole words only: not inside `-fpx-opt-foo` or paths.
    config.substitutions.append((r"(?<![-\w/.])%s(?![-\w])" % name.replace("-", r"\-"),
                                 path))

for name in ["fpx-opt", "fpxc"]:
    path = os.path.join(config.fpx_tools_dir, name)
    if not os.path.exists(path):
        lit_config.fatal("%s not found: build it first (ninja -C %s fpx-opt fpxc)"
                         % (path, config.fpx_obj_root))
    tool(name, path)
tool("FileCheck", config.filecheck)
tool("not", config.not_tool)

# fpxc looks for ptxas in FPX_PTXAS, on PATH and in /usr/local/cuda/bin; pin
# it to the configured one. Without ptxas, `REQUIRES: ptxas` tests show as
# UNSUPPORTED and %ptxas fails loudly if used elsewhere.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.environment["FPX_PTXAS"] = config.ptxas
    config.substitutions.append(("%ptxas", config.ptxas))
else:
    config.substitutions.append(("%ptxas", "false ptxas-not-found"))
