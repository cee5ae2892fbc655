# The AOT kernel bundle that the Python package ships (fpxc/kernels): the
# core set of python-bindings/tools/build_bundle.py compiled by this build's
# fpxc for sm_90a and sm_100a into ${FPX_BUNDLE_DIR}/<target>/. It is
# regenerated whenever fpxc or the builder changes, so the build tree's
# bundle is always what the current fpxc produces; `pip install
# ./python-bindings` copies it into the package (setup.py), and
# scripts/dist.sh puts it into the source distribution for GPU machines
# without MLIR. Included from the top-level CMakeLists.txt when the compiler
# is built.
option(FPX_BUILD_BUNDLE "Generate the Python package's kernel bundle with fpxc" ON)
if(NOT FPX_BUILD_BUNDLE)
  return()
endif()
find_package(Python3 3.8 REQUIRED COMPONENTS Interpreter)
set(FPX_BUNDLE_DIR ${CMAKE_BINARY_DIR}/python-bindings/kernels)
set(FPX_BUNDLE_TARGETS sm_90a sm_100a)
set(FPX_BUNDLE_SET core)
set(builder ${CMAKE_CURRENT_LIST_DIR}/tools/build_bundle.py)
set(indexes)
foreach(t ${FPX_BUNDLE_TARGETS})
  list(APPEND indexes ${FPX_BUNDLE_DIR}/${t}/index.json)
endforeach()
list(JOIN FPX_BUNDLE_TARGETS "," targets)
# One command for all entries: build_bundle.py runs the fpxc calls in
# parallel (--jobs, at most 4) and writes each index last. --strict: a
# configuration fpxc stops lowering fails the build instead of silently
# leaving the package to the CPU fallback.
add_custom_command(OUTPUT ${indexes}
  COMMAND ${Python3_EXECUTABLE} ${builder} --set ${FPX_BUNDLE_SET} --targets ${targets}
          --out ${FPX_BUNDLE_DIR} --fpxc $<TARGET_FILE:fpxc> --strict
  DEPENDS fpxc ${builder}
  COMMENT "fpxc: the Python package's kernel bundle (${FPX_BUNDLE_SET} set, ${targets})"
  VERBATIM)
add_custom_target(fpx-bundle ALL DEPENDS ${indexes})
