//===- ExprTest.cpp - Shape expression parser and evaluator ----------------===//

#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Expr.h"

#include <gtest/gtest.h>

using namespace fpx::rt;

namespace {

int64_t eval(const char *text, std::map<std::string, int64_t> values = {}) {
  return Expr::evaluate(text, values);
}

std::string parseError(const char *text) {
  SymbolTable symbols;
  try {
    Expr::parse(text, symbols, "field");
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArtifact);
    return e.what();
  }
  ADD_FAILURE() << "'" << text << "' parsed";
  return {};
}

TEST(Expr, Arithmetic) {
  EXPECT_EQ(eval("42"), 42);
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("10 - 3 - 2"), 5); // left associative
  EXPECT_EQ(eval("100 / 10 / 5"), 2);
  EXPECT_EQ(eval("17 % 5"), 2);
  EXPECT_EQ(eval("-3 + 5"), 2);
  EXPECT_EQ(eval("- -3"), 3);
  EXPECT_EQ(eval("-7 / 2"), -3); // truncates toward zero, like C
}

TEST(Expr, Functions) {
  EXPECT_EQ(eval("cdiv(10, 4)"), 3);
  EXPECT_EQ(eval("cdiv(8, 4)"), 2);
  EXPECT_EQ(eval("cdiv(0, 4)"), 0);
  EXPECT_EQ(eval("cdiv(-5, 2)"), -2);
  EXPECT_EQ(eval("min(3, 9)"), 3);
  EXPECT_EQ(eval("max(3, 9)"), 9);
  EXPECT_EQ(eval("max(min(1, 2), cdiv(7, 2))"), 4);
}

TEST(Expr, Symbols) {
  EXPECT_EQ(eval("cdiv(M*K, 8192)", {{"M", 128}, {"K", 4096}}), 64);
  EXPECT_EQ(eval("cdiv(K,32)", {{"K", 4097}}), 129);
  EXPECT_EQ(eval("K_2 / 2 + M", {{"K_2", 6}, {"M", 1}}), 4);

  SymbolTable symbols;
  Expr e = Expr::parse("M * N + M", symbols);
  ASSERT_EQ(symbols.size(), 2u);
  EXPECT_EQ(symbols.name(0), "M");
  EXPECT_EQ(e.symbolsUsed().size(), 3u);
  int64_t values[] = {3, 4};
  EXPECT_EQ(e.eval(values), 15);
  EXPECT_EQ(Expr::parse("N", symbols).asSymbol(), std::optional<unsigned>(1));
  EXPECT_EQ(Expr::parse("16", symbols).asConstant(), std::optional<int64_t>(16));
  EXPECT_FALSE(Expr::parse("N+1", symbols).asSymbol());
}

TEST(Expr, ParseErrors) {
  EXPECT_NE(parseError("").find("empty expression"), std::string::npos);
  EXPECT_NE(parseError("cdiv(M*K, 8192").find("expected ')' at column 15"),
            std::string::npos);
  EXPECT_NE(parseError("M +").find("expected a number"), std::string::npos);
  EXPECT_NE(parseError("floor(M, 2)").find("unknown function 'floor'"),
            std::string::npos);
  EXPECT_NE(parseError("cdiv + 1").find("is a function"), std::string::npos);
  EXPECT_NE(parseError("M $ 2").find("unexpected '$'"), std::string::npos);
  EXPECT_NE(parseError("2M").find("cannot start with a digit"),
            std::string::npos);
  EXPECT_NE(parseError("cdiv(M)").find("expected ','"), std::string::npos);
  EXPECT_NE(parseError("99999999999999999999").find("too large"),
            std::string::npos);
  // The message names the field it came from.
  EXPECT_NE(parseError("(").find("[field]"), std::string::npos);
}

TEST(Expr, EvalErrors) {
  auto code = [](const char *text, std::map<std::string, int64_t> v) {
    try {
      Expr::evaluate(text, v);
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(code("M / 0", {{"M", 1}}).find("division by zero"), std::string::npos);
  EXPECT_NE(code("M % K", {{"M", 1}, {"K", 0}}).find("division by zero"),
            std::string::npos);
  EXPECT_NE(code("cdiv(M, 0)", {{"M", 1}}).find("positive divisor"),
            std::string::npos);
  EXPECT_NE(code("M * M", {{"M", int64_t(1) << 40}}).find("overflow"),
            std::string::npos);
  EXPECT_NE(code("M + 1", {}).find("'M' has no value"), std::string::npos);
}

} // namespace
