# lit configuration for fpxc's FileCheck tests.
#
# Tools come from the build tree (fpx-opt, fpxc) and from Debian's LLVM 22
# (FileCheck, not). `%ptxas` is CUDA's ptxas; where it is absent the `ptxas`
# feature is missing and `REQUIRES: ptxas` tests report UNSUPPORTED.
import os

import lit.formats

config.name = "fpxc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fpx_obj_root, "test", "lit")

import sys
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%examples", os.path.join(config.fpx_src_root, "docs", "examples")))

# Keep the environment small but let ptxas find its libraries.
for var in ["HOME", "TMPDIR", "CUDA_HOME", "LD_LIBRARY_PATH"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

def tool(name, path):
    # `fpx-opt` etc. as whole words only: not inside `-fpx-opt-foo` or paths.
    config.substitutions.append((r"(?<![-\w/.])%s(?![-\w])" % name.replace("-", r"\-"),
                                 path))

tool("fpx-opt", os.path.join(config.fpx_tools_dir, "fpx-opt"))
tool("fpxc", os.path.join(config.fpx_tools_dir, "fpxc"))
tool("FileCheck", config.filecheck)
tool("not", config.not_tool)

# fpxc looks for ptxas on PATH and in FPX_PTXAS; pin it to the configured one,
# or hide it so that "ptxas not found" is what tests without ptxas see.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.environment["FPX_PTXAS"] = config.ptxas
    config.substitutions.append(("%ptxas", config.ptxas))
else:
    config.substitutions.append(("%ptxas", "false ptxas-not-found"))
