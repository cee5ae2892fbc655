//===- Expr.h - Integer shape and grid expressions --------------*- C++ -*-===//
//
// Artifact shapes and launch grids are small integer expressions over shape
// symbols: `cdiv(M*K, 8192)`, `K/2`, `max(N, 1)`. They are parsed once when
// an artifact is loaded into a flat postfix program whose symbols are indices
// into the owning function's symbol table, so evaluating one at launch time is
// a few dozen instructions and allocates nothing.
//
// Grammar (all values are int64; overflow and division by zero are errors):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '%') unary)*
//   unary   := '-' unary | primary
//   primary := INT | SYMBOL | ('cdiv' | 'min' | 'max') '(' expr ',' expr ')'
//            | '(' expr ')'
// `/` and `%` truncate toward zero as in C; cdiv(a, b) rounds up and needs
// b > 0.
//
//===----------------------------------------------------------------------===//

#ifndef FPX_RUNTIME_EXPR_H
#define FPX_RUNTIME_EXPR_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::rt {

/// Names of the symbols of one function; an Expr refers to them by index.
class SymbolTable {
public:
  /// Index of \p name, adding it when absent.
  unsigned intern(std::string_view name);
  /// Index of \p name if present.
  std::optional<unsigned> lookup(std::string_view name) const;
  const std::string &name(unsigned index) const { return Names[index]; }
  unsigned size() const { return static_cast<unsigned>(Names.size()); }

private:
  std::vector<std::string> Names;
};

/// A parsed integer expression.
class Expr {
public:
  Expr() = default;

  /// Parses \p text, interning its symbols into \p symbols. Throws
  /// Error(InvalidArtifact) with the column of the problem; \p where names
  /// the field for the message ("functions[0].outputs[1].shape[1]").
  static Expr parse(std::string_view text, SymbolTable &symbols,
                    std::string_view where = {});

  /// Evaluates with symbol values indexed like the SymbolTable. Throws
  /// Error(InvalidArgument) on overflow, division by zero or cdiv by b <= 0.
  int64_t eval(const int64_t *values) const;

  /// Parses and evaluates in one go, for tests and tools.
  static int64_t evaluate(std::string_view text,
                          const std::map<std::string, int64_t> &values);

  /// The text it was parsed from.
  const std::string &text() const { return Text; }
  /// If the expression is one bare symbol, its index.
  std::optional<unsigned> asSymbol() const;
  /// If the expression is an integer literal, its value.
  std::optional<int64_t> asConstant() const;
  /// Indices of the symbols it uses (may repeat).
  std::vector<unsigned> symbolsUsed() const;

  enum class Op : uint8_t { Const, Sym, Add, Sub, Mul, Div, Mod, Neg, CDiv, Min, Max };
  struct Inst {
    Op Kind;
    int64_t Value; ///< literal, or symbol index
  };

private:
  friend class ExprParser;
  std::string Text;
  std::vector<Inst> Program; ///< postfix
  unsigned MaxDepth = 0;
};

} // namespace fpx::rt

#endif // FPX_RUNTIME_EXPR_H
