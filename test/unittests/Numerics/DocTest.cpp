//===- DocTest.cpp - docs/formats.md matches the generator ----------------===//
#include "fpx/Numerics/DocGen.h"
#include "fpx/Numerics/Format.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace fpx::num;

namespace {

std::string readDoc() {
  std::ifstream in(FPX_FORMATS_DOC);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(FormatsDoc, GeneratedRegionIsUpToDate) {
  std::string doc = readDoc();
  ASSERT_FALSE(doc.empty()) << "cannot read " << FPX_FORMATS_DOC;
  EXPECT_EQ(extractGenerated(doc), generateFormatsDoc())
      << "docs/formats.md is stale: run `fpx-formats-doc --update "
         "docs/formats.md`";
}

TEST(FormatsDoc, SpliceRoundTrips) {
  std::string doc = std::string("head\n") + kGeneratedBegin + "old" +
                    kGeneratedEnd + "\ntail\n";
  std::string out = spliceGenerated(doc, "new");
  EXPECT_EQ(extractGenerated(out), "new");
  EXPECT_EQ(out.substr(0, 5), "head\n");
  EXPECT_THROW(extractGenerated("no markers"), Error);
}

TEST(FormatsDoc, ExactDecimal) {
  EXPECT_EQ(exactDecimal(448.0), "448");
  EXPECT_EQ(exactDecimal(0.001953125), "0.001953125");
  EXPECT_EQ(exactDecimal(1.52587890625e-05), "1.52587890625e-05");
  EXPECT_EQ(exactDecimal(-0.0), "-0");
}

} // namespace
