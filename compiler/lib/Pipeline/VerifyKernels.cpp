//===- VerifyKernels.cpp - reject what the NVPTX backend cannot take ------===//
//
// Kernel-level input reaches LLVM's NVPTX backend as written. The backend
// aborts on some IR (`$5` in the inline asm of an op with two operands, a
// symbol named `a b`) and prints other IR into PTX that ptxas rejects
// (`.maxntid 0, 1, 1`, a kernel named `a.b`); both become errors at the op
// here, before the lowering.
//
//===----------------------------------------------------------------------===//
#include "fpx/Pipeline/Passes.h"
#include "fpx/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/Support/MathExtras.h"

namespace fpx {
#define GEN_PASS_DEF_FPXVERIFYKERNELS
#include "fpx/Pipeline/Passes.h.inc"
} // namespace fpx

using namespace mlir;
using namespace fpx;

namespace {

constexpr llvm::StringLiteral kIdentifierRule =
    "[a-zA-Z][a-zA-Z0-9_$]* or [_$][a-zA-Z0-9_$]+";

bool isLocal(LLVM::Linkage l) {
  return l == LLVM::Linkage::Private || l == LLVM::Linkage::Internal;
}

/// A symbol of a gpu.module that reaches the PTX under its own name: not an
/// LLVM intrinsic, and not a local symbol, which the backend renames.
bool namedInPtx(Operation *op, StringRef name) {
  if (auto f = dyn_cast<LLVM::LLVMFuncOp>(op))
    return !name.starts_with("llvm.") && !isLocal(f.getLinkage());
  if (auto g = dyn_cast<LLVM::GlobalOp>(op))
    return !isLocal(g.getLinkage());
  return true;
}

LogicalResult checkName(Operation *op, StringRef name) {
  if (name == "WARP_SZ")
    return op->emitOpError("name 'WARP_SZ' is a predefined PTX identifier");
  if (!isPtxIdentifier(name))
    return op->emitOpError("name '")
           << name << "' is not a PTX identifier (" << kIdentifierRule << ")";
  return success();
}

/// `nvvm.maxntid = array<i32: x, y, z>` and the like: 1 to 3 positive sizes
/// whose product is at most `maxProduct` (0: no limit).
LogicalResult checkSizes(Operation *op, StringRef attrName, Attribute attr,
                         int64_t maxProduct, StringRef what) {
  auto sizes = dyn_cast<DenseI32ArrayAttr>(attr);
  if (!sizes || sizes.empty() || sizes.size() > 3)
    return op->emitOpError()
           << attrName << " must be an array<i32> of 1 to 3 sizes, got "
           << attr;
  uint64_t product = 1;
  for (auto [dim, size] : llvm::enumerate(sizes.asArrayRef())) {
    if (size <= 0)
      return op->emitOpError()
             << attrName << ": size " << size << " in dimension " << dim
             << ", sizes must be positive";
    product = llvm::SaturatingMultiply(product, uint64_t(size));
  }
  if (maxProduct && product > uint64_t(maxProduct)) {
    std::string dims;
    llvm::raw_string_ostream os(dims);
    llvm::interleave(sizes.asArrayRef(), os, "x");
    return op->emitOpError() << attrName << ": " << dims << " " << what
                             << ", more than " << maxProduct;
  }
  return success();
}

/// `nvvm.maxnreg = 32 : i32` and the like: an integer in [lo, hi].
LogicalResult checkCount(Operation *op, StringRef attrName, Attribute attr,
                         int64_t lo, int64_t hi) {
  auto i = dyn_cast<IntegerAttr>(attr);
  if (!i || !isa<IntegerType>(i.getType()) || i.getType().isInteger(1))
    return op->emitOpError() << attrName << " must be an integer, got " << attr;
  llvm::APSInt v(i.getValue(), i.getType().isUnsignedInteger());
  if (llvm::APSInt::compareValues(v, llvm::APSInt::get(lo)) < 0 ||
      llvm::APSInt::compareValues(v, llvm::APSInt::get(hi)) > 0)
    return op->emitOpError()
           << attrName << " = " << llvm::toString(v, 10, v.isSigned())
           << " is out of range [" << lo << ", " << hi << "]";
  return success();
}

/// The launch attributes of a function that the NVVM target prints as PTX
/// performance directives (.maxntid, .reqntid, .minnctapersm, .maxnreg,
/// .reqnctapercluster, .maxclusterrank), and gpu.func's launch hints.
LogicalResult checkLaunchAttributes(FunctionOpInterface f) {
  bool ok = true;
  for (NamedAttribute a : f->getAttrs()) {
    StringRef name = a.getName().getValue();
    Operation *op = f.getOperation();
    LogicalResult r = success();
    if (name == "nvvm.maxntid" || name == "nvvm.reqntid" ||
        name == "known_block_size" || name == "gpu.known_block_size")
      r = checkSizes(op, name, a.getValue(), kMaxThreadsPerBlock,
                     "threads per block");
    else if (name == "nvvm.cluster_dim" || name == "known_cluster_size")
      r = checkSizes(op, name, a.getValue(), kMaxBlocksPerCluster,
                     "blocks per cluster");
    else if (name == "known_grid_size" || name == "gpu.known_grid_size")
      r = checkSizes(op, name, a.getValue(), 0, "");
    else if (name == "nvvm.cluster_max_blocks")
      r = checkCount(op, name, a.getValue(), 1, kMaxBlocksPerCluster);
    else if (name == "nvvm.minctasm")
      r = checkCount(op, name, a.getValue(), 1, kMaxBlocksPerSM);
    else if (name == "nvvm.maxnreg")
      r = checkCount(op, name, a.getValue(), 1, kMaxRegistersPerThread);
    ok &= succeeded(r);
  }
  // PTX takes one of .reqntid and .maxntid (which known_block_size becomes),
  // and one of .reqnctapercluster (nvvm.cluster_dim, known_cluster_size)
  // and .maxclusterrank.
  auto conflict = [&](ArrayRef<StringRef> these, StringRef that,
                      StringRef directives) {
    if (!f->hasAttr(that))
      return;
    for (StringRef name : these)
      if (f->hasAttr(name)) {
        f->emitOpError() << name << " and " << that << " cannot both be given ("
                         << directives << " conflict)";
        ok = false;
        return;
      }
  };
  conflict({"nvvm.maxntid", "known_block_size", "gpu.known_block_size"},
           "nvvm.reqntid", "PTX's .maxntid and .reqntid");
  conflict({"nvvm.cluster_dim", "known_cluster_size"},
           "nvvm.cluster_max_blocks",
           "PTX's .reqnctapercluster and .maxclusterrank");
  return success(ok);
}

/// Constraint codes of an operand that the NVPTX backend takes: registers
/// (b: pred, c/h: 16-bit, r: 32-bit, l/N: 64-bit, q: 128-bit, f: f32,
/// d: f64), immediates (n, i) and a tied output's index.
bool isPtxConstraintCode(StringRef code) {
  if (!code.empty() && llvm::all_of(code, llvm::isDigit))
    return true;
  return code.size() == 1 && StringRef("bchrlNqfdni").contains(code[0]);
}

/// "1 output", "2 outputs".
std::string countOf(size_t n, StringRef what) {
  return std::to_string(n) + " " + what.str() + (n == 1 ? "" : "s");
}

/// The text of the `$` reference at `start` of `s`: through the closing '}'
/// of `${...}`, else up to the next space, ',' or ';'.
StringRef refText(StringRef s, size_t start) {
  size_t end = StringRef::npos;
  if (start + 1 < s.size() && s[start + 1] == '{') {
    end = s.find('}', start);
    if (end != StringRef::npos)
      ++end;
  }
  if (end == StringRef::npos)
    end = s.find_first_of(" \t\n,;", start + 1);
  return s.slice(start, end);
}

bool isImmediate(const llvm::InlineAsm::ConstraintInfo &c) {
  return llvm::all_of(c.Codes, [](const std::string &code) {
    return code == "n" || code == "i";
  });
}

/// The checks of llvm::InlineAsm::verify (which LLVM makes only in builds
/// with assertions; in others a constraint without an operand segfaults),
/// the constraints the NVPTX backend takes, and the operand references of
/// the string (which AsmPrinter checks with report_fatal_error).
LogicalResult checkInlineAsm(LLVM::InlineAsmOp op) {
  if (op.getAsmDialect().value_or(LLVM::AsmDialect::AD_ATT) !=
      LLVM::AsmDialect::AD_ATT)
    return op.emitOpError("asm_dialect must be att (the default) for PTX");
  StringRef constraintString = op.getConstraints();
  llvm::InlineAsm::ConstraintInfoVector constraints =
      llvm::InlineAsm::ParseConstraints(constraintString);
  if (constraints.empty() && !constraintString.empty())
    return op.emitOpError("cannot parse the constraints '")
           << constraintString << "'";
  // Outputs, then inputs, then clobbers; the string refers to the first two.
  SmallVector<const llvm::InlineAsm::ConstraintInfo *> referable;
  unsigned outputs = 0, inputs = 0, clobbers = 0;
  for (const llvm::InlineAsm::ConstraintInfo &c : constraints) {
    if (c.Type == llvm::InlineAsm::isLabel)
      return op.emitOpError("label constraints ('!') need callbr, which "
                            "llvm.inline_asm is not");
    if (c.Type == llvm::InlineAsm::isClobber) {
      ++clobbers;
      continue;
    }
    if (clobbers || (c.Type == llvm::InlineAsm::isOutput && inputs))
      return op.emitOpError("constraints must list outputs, then inputs, then "
                            "clobbers, got '")
             << constraintString << "'";
    if (c.isIndirect)
      return op.emitOpError("indirect ('*') operands are not supported in PTX "
                            "inline asm, got '")
             << constraintString << "'";
    if (c.isMultipleAlternative)
      return op.emitOpError("alternative constraints ('|') are not supported "
                            "in PTX inline asm, got '")
             << constraintString << "'";
    for (const std::string &code : c.Codes)
      if (!isPtxConstraintCode(code))
        return op.emitOpError("constraint '")
               << code << "' is not one the NVPTX backend takes (b, c, h, r, "
               << "l, N, q, f, d, n, i, or an output's index)";
    (c.Type == llvm::InlineAsm::isOutput ? outputs : inputs)++;
    referable.push_back(&c);
  }

  // No result for no output, one for one, one struct of N for N > 1.
  Type result = op.getRes() ? op.getRes().getType() : Type();
  auto st = dyn_cast_or_null<LLVM::LLVMStructType>(result);
  bool resultsMatch = outputs == 0   ? !result
                      : outputs == 1 ? result && !st
                                     : st && st.getBody().size() == outputs;
  if (!resultsMatch) {
    InFlightDiagnostic d = op.emitOpError("has ")
                           << countOf(outputs, "output") << " in '"
                           << constraintString << "' but ";
    if (result)
      d << "returns " << result;
    else
      d << "no result";
    return d << " (no result for 0 outputs, one for 1, a struct of N for N)";
  }
  if (op.getOperands().size() != inputs)
    return op.emitOpError("has ")
           << countOf(inputs, "input") << " in '" << constraintString
           << "' but " << countOf(op.getOperands().size(), "operand");

  // Operand references, as AsmPrinter's EmitInlineAsmStr reads them.
  StringRef s = op.getAsmString();
  bool inVariant = false;
  for (size_t i = s.find('$'); i != StringRef::npos; i = s.find('$', i)) {
    size_t start = i++;
    char c = i < s.size() ? s[i] : '\0';
    if (c == '\0')
      return op.emitOpError("asm string ends with a lone '$' (write '$$' for "
                            "a literal '$')");
    if (c == '(' && inVariant)
      return op.emitOpError("nested '$(' in the asm string");
    if (c == '$' || c == '|' || c == '(' || c == ')') { // $$ is '$'; $( $| $)
      inVariant = c == '(' || (inVariant && c != ')');  // delimit variants
      ++i;
      continue;
    }
    StringRef ref = refText(s, start);
    i = start + ref.size();
    if (ref.starts_with("${:")) {
      if (ref != "${:comment}" && ref != "${:private}" && ref != "${:uid}")
        return op.emitOpError("'")
               << ref << "' is not ${:comment}, ${:private} or ${:uid}";
      continue;
    }
    StringRef body = ref.drop_front();
    bool braces = body.consume_front("{");
    StringRef digits = body.take_while(llvm::isDigit);
    body = body.drop_front(digits.size());
    if (digits.empty())
      return op.emitOpError("'")
             << ref << "' is not an operand reference ($N, ${N} or ${N:r}; "
             << "write '$$' for a literal '$')";
    unsigned n = 0;
    if (digits.getAsInteger(10, n) || n >= referable.size())
      return op.emitOpError("'")
             << (braces ? ref : s.slice(start, start + 1 + digits.size()))
             << "' refers to operand " << digits << ", but the op has "
             << referable.size() << " (" << countOf(outputs, "output") << ", "
             << countOf(inputs, "input") << ")";
    if (!braces) {
      i = start + 1 + digits.size(); // `$1abc` is operand 1, then `abc`
      continue;
    }
    if (body == "}")
      continue;
    if (body.size() != 3 || body[0] != ':' || body[2] != '}')
      return op.emitOpError("'") << ref
                                 << "' is not an operand reference (${N} or "
                                    "${N:r})";
    char mod = body[1];
    bool immMod = mod == 'c' || mod == 'n' || mod == 's';
    if (mod != 'r' && !(immMod && isImmediate(*referable[n])))
      return op.emitOpError("'")
             << ref << "': the NVPTX backend takes the modifier 'r', and 'c', "
             << "'n', 's' on immediate ('n', 'i') operands";
  }
  return success();
}

struct FPxVerifyKernels
    : public fpx::impl::FPxVerifyKernelsBase<FPxVerifyKernels> {
  using Base::Base;

  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](gpu::GPUModuleOp gm) {
      ok &= succeeded(checkName(gm, gm.getName()));
      for (Operation &op : gm.getBody()->getOperations()) {
        if (auto sym = dyn_cast<SymbolOpInterface>(op))
          if (namedInPtx(&op, sym.getName()))
            ok &= succeeded(checkName(&op, sym.getName()));
        if (auto f = dyn_cast<FunctionOpInterface>(op))
          ok &= succeeded(checkLaunchAttributes(f));
      }
      gm.walk(
          [&](LLVM::InlineAsmOp op) { ok &= succeeded(checkInlineAsm(op)); });
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
