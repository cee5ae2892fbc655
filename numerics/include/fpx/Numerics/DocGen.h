//===- DocGen.h - Generated parts of docs/formats.md ------------*- C++ -*-===//
//
// The value tables and worked examples of docs/formats.md are produced by
// the library itself (tool fpx-formats-doc), and a unit test checks that the
// committed document matches, so the document cannot drift from the code.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_NUMERICS_DOCGEN_H
#define FPX_NUMERICS_DOCGEN_H

#include <string>

namespace fpx::num {

/// Markers that delimit the generated region of docs/formats.md.
extern const char *const kGeneratedBegin;
extern const char *const kGeneratedEnd;

/// The generated markdown (format summary, every code of every named
/// format, rounding / stochastic rounding / scale / layout examples).
std::string generateFormatsDoc();

/// The text strictly between the markers of `doc`; throws Error without them.
std::string extractGenerated(const std::string &doc);
/// `doc` with the text between the markers replaced by `generated`.
std::string spliceGenerated(const std::string &doc, const std::string &generated);

/// Exact decimal text of a value decoded from an FPx code ("NaN", "inf",
/// "-0" included); used by the tables.
std::string exactDecimal(double v);

} // namespace fpx::num

#endif // FPX_NUMERICS_DOCGEN_H
