//===- Expr.cpp - Parse and evaluate shape expressions -----------------------===//

#include "fpx/Runtime/Expr.h"
#include "fpx/Runtime/Error.h"

#include <algorithm>
#include <cctype>

namespace fpx::rt {

unsigned SymbolTable::intern(std::string_view name) {
  if (std::optional<unsigned> index = lookup(name))
    return *index;
  Names.emplace_back(name);
  return static_cast<unsigned>(Names.size() - 1);
}

std::optional<unsigned> SymbolTable::lookup(std::string_view name) const {
  for (unsigned i = 0; i < Names.size(); ++i)
    if (Names[i] == name)
      return i;
  return std::nullopt;
}

/// Recursive-descent parser emitting postfix code.
class ExprParser {
public:
  ExprParser(std::string_view text, SymbolTable &symbols,
             std::string_view where)
      : Text(text), Symbols(symbols), Where(where) {}

  Expr run() {
    Expr out;
    out.Text = std::string(Text);
    Out = &out;
    skipSpace();
    if (Pos == Text.size())
      fail("empty expression");
    parseSum();
    skipSpace();
    if (Pos != Text.size())
      fail(std::string("unexpected '") + Text[Pos] + "'");
    // Stack depth of the postfix program, for a fixed-size evaluation stack.
    int depth = 0, maxDepth = 0;
    for (const Expr::Inst &inst : out.Program) {
      switch (inst.Kind) {
      case Expr::Op::Const:
      case Expr::Op::Sym:
        ++depth;
        break;
      case Expr::Op::Neg:
        break;
      default:
        --depth;
      }
      maxDepth = std::max(maxDepth, depth);
    }
    if (maxDepth > kMaxDepth)
      fail("expression nests too deeply");
    out.MaxDepth = static_cast<unsigned>(maxDepth);
    return out;
  }

  static constexpr int kMaxDepth = 32;

private:
  [[noreturn]] void fail(const std::string &why) {
    std::string subject(Where);
    throw Error(ErrorCode::InvalidArtifact, "parse expression", subject,
                why + " at column " + std::to_string(Pos + 1) + " in '" +
                    std::string(Text) + "'");
  }

  void skipSpace() {
    while (Pos < Text.size() && std::isspace(static_cast<unsigned char>(Text[Pos])))
      ++Pos;
  }

  bool consume(char c) {
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == c) {
      ++Pos;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!consume(c))
      fail(std::string("expected '") + c + "'");
  }

  void emit(Expr::Op op, int64_t value = 0) {
    Out->Program.push_back({op, value});
  }

  void parseSum() {
    parseProduct();
    for (;;) {
      if (consume('+')) {
        parseProduct();
        emit(Expr::Op::Add);
      } else if (consume('-')) {
        parseProduct();
        emit(Expr::Op::Sub);
      } else {
        return;
      }
    }
  }

  void parseProduct() {
    parseUnary();
    for (;;) {
      if (consume('*')) {
        parseUnary();
        emit(Expr::Op::Mul);
      } else if (consume('/')) {
        parseUnary();
        emit(Expr::Op::Div);
      } else if (consume('%')) {
        parseUnary();
        emit(Expr::Op::Mod);
      } else {
        return;
      }
    }
  }

  void parseUnary() {
    if (consume('-')) {
      parseUnary();
      emit(Expr::Op::Neg);
      return;
    }
    parsePrimary();
  }

  void parsePrimary() {
    skipSpace();
    if (Pos == Text.size())
      fail("expected a number, a symbol or '('");
    char c = Text[Pos];
    if (c == '(') {
      ++Pos;
      parseSum();
      expect(')');
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t value = 0;
      while (Pos < Text.size() &&
             std::isdigit(static_cast<unsigned char>(Text[Pos]))) {
        int digit = Text[Pos] - '0';
        if (value > (INT64_MAX - digit) / 10)
          fail("integer literal too large");
        value = value * 10 + digit;
        ++Pos;
      }
      if (Pos < Text.size() && (std::isalpha(static_cast<unsigned char>(Text[Pos])) || Text[Pos] == '_'))
        fail("a symbol cannot start with a digit");
      emit(Expr::Op::Const, value);
      return;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = Pos;
      while (Pos < Text.size() &&
             (std::isalnum(static_cast<unsigned char>(Text[Pos])) ||
              Text[Pos] == '_'))
        ++Pos;
      std::string_view word = Text.substr(start, Pos - start);
      size_t afterWord = Pos;
      skipSpace();
      bool call = Pos < Text.size() && Text[Pos] == '(';
      if (call) {
        Expr::Op op;
        if (word == "cdiv")
          op = Expr::Op::CDiv;
        else if (word == "min")
          op = Expr::Op::Min;
        else if (word == "max")
          op = Expr::Op::Max;
        else {
          Pos = start;
          fail("unknown function '" + std::string(word) +
               "' (known: cdiv, min, max)");
        }
        ++Pos;
        parseSum();
        expect(',');
        parseSum();
        expect(')');
        emit(op);
        return;
      }
      Pos = afterWord;
      if (word == "cdiv" || word == "min" || word == "max") {
        Pos = start;
        fail("'" + std::string(word) + "' is a function and needs '('");
      }
      emit(Expr::Op::Sym, Symbols.intern(word));
      return;
    }
    fail(std::string("unexpected '") + c + "'");
  }

  std::string_view Text;
  SymbolTable &Symbols;
  std::string_view Where;
  size_t Pos = 0;
  Expr *Out = nullptr;
};

Expr Expr::parse(std::string_view text, SymbolTable &symbols,
                 std::string_view where) {
  return ExprParser(text, symbols, where).run();
}

[[noreturn]] static void evalFail(const std::string &text,
                                  const std::string &why) {
  throw Error(ErrorCode::InvalidArgument, "evaluate expression", text, why);
}

int64_t Expr::eval(const int64_t *values) const {
  int64_t stack[ExprParser::kMaxDepth];
  int top = 0;
  for (const Inst &inst : Program) {
    if (inst.Kind == Op::Const) {
      stack[top++] = inst.Value;
      continue;
    }
    if (inst.Kind == Op::Sym) {
      stack[top++] = values[inst.Value];
      continue;
    }
    if (inst.Kind == Op::Neg) {
      if (stack[top - 1] == INT64_MIN)
        evalFail(Text, "integer overflow");
      stack[top - 1] = -stack[top - 1];
      continue;
    }
    int64_t b = stack[--top];
    int64_t a = stack[top - 1];
    int64_t r = 0;
    switch (inst.Kind) {
    case Op::Add:
      if (__builtin_add_overflow(a, b, &r))
        evalFail(Text, "integer overflow");
      break;
    case Op::Sub:
      if (__builtin_sub_overflow(a, b, &r))
        evalFail(Text, "integer overflow");
      break;
    case Op::Mul:
      if (__builtin_mul_overflow(a, b, &r))
        evalFail(Text, "integer overflow");
      break;
    case Op::Div:
    case Op::Mod:
      if (b == 0)
        evalFail(Text, "division by zero");
      if (a == INT64_MIN && b == -1)
        evalFail(Text, "integer overflow");
      r = inst.Kind == Op::Div ? a / b : a % b;
      break;
    case Op::CDiv: {
      if (b <= 0)
        evalFail(Text, "cdiv needs a positive divisor, got " + std::to_string(b));
      // Ceiling division that is exact for negative numerators too.
      int64_t q = a / b;
      r = (a % b != 0 && a > 0) ? q + 1 : q;
      break;
    }
    case Op::Min:
      r = std::min(a, b);
      break;
    case Op::Max:
      r = std::max(a, b);
      break;
    default:
      evalFail(Text, "corrupt expression program");
    }
    stack[top - 1] = r;
  }
  return stack[0];
}

int64_t Expr::evaluate(std::string_view text,
                       const std::map<std::string, int64_t> &values) {
  SymbolTable symbols;
  Expr expr = parse(text, symbols);
  std::vector<int64_t> bound(symbols.size());
  for (unsigned i = 0; i < symbols.size(); ++i) {
    auto it = values.find(symbols.name(i));
    if (it == values.end())
      throw Error(ErrorCode::InvalidArgument, "evaluate expression",
                  std::string(text),
                  "symbol '" + symbols.name(i) + "' has no value");
    bound[i] = it->second;
  }
  return expr.eval(bound.data());
}

std::optional<unsigned> Expr::asSymbol() const {
  if (Program.size() == 1 && Program[0].Kind == Op::Sym)
    return static_cast<unsigned>(Program[0].Value);
  return std::nullopt;
}

std::optional<int64_t> Expr::asConstant() const {
  if (Program.size() == 1 && Program[0].Kind == Op::Const)
    return Program[0].Value;
  return std::nullopt;
}

std::vector<unsigned> Expr::symbolsUsed() const {
  std::vector<unsigned> out;
  for (const Inst &inst : Program)
    if (inst.Kind == Op::Sym)
      out.push_back(static_cast<unsigned>(inst.Value));
  return out;
}

} // namespace fpx::rt
