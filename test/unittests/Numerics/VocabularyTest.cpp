//===- VocabularyTest.cpp - Every fpx word parses back to its value -------===//
#include "fpx/Numerics/Vocabulary.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace fpx::num;

namespace {

/// Every spelling of every entry parses to that entry, the canonical name
/// prints back, no word names two entries, and an unknown word is an Error
/// that lists the canonical names.
template <typename Info, typename Lookup, typename Parse>
void checkTable(const std::vector<Info> &table, Lookup lookup, Parse parse,
                const std::string &what) {
  std::set<std::string_view> words;
  std::string known;
  for (const Info &i : table) {
    SCOPED_TRACE(std::string(i.names.name));
    EXPECT_FALSE(i.names.name.empty());
    EXPECT_FALSE(i.names.api.empty());
    EXPECT_EQ(toString(i.value), i.names.name);
    EXPECT_EQ(&info(i.value), &i);
    std::vector<std::string_view> spellings = {i.names.name, i.names.api};
    spellings.insert(spellings.end(), i.names.aliases.begin(),
                     i.names.aliases.end());
    std::set<std::string_view> own(spellings.begin(), spellings.end());
    for (std::string_view w : own) {
      EXPECT_TRUE(words.insert(w).second) << "'" << w << "' names two entries";
      EXPECT_EQ(lookup(w), i.value) << w;
      EXPECT_EQ(parse(w), i.value) << w;
    }
    known += (known.empty() ? "" : ", ") + std::string(i.names.name);
  }
  EXPECT_EQ(lookup("no-such-word"), std::nullopt);
  try {
    parse("no-such-word");
    ADD_FAILURE() << "parse accepted an unknown word";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), "fpx: unknown " + what +
                                         " 'no-such-word' (known: " + known +
                                         ")");
  }
}

TEST(Vocabulary, RoundingsRoundTrip) {
  checkTable(roundings(), lookupRounding, parseRounding, "rounding");
  EXPECT_EQ(roundings().size(), 5u);
}

TEST(Vocabulary, ScaleRulesRoundTrip) {
  checkTable(scaleRules(), lookupScaleRule, parseScaleRule, "scale rule");
  // The dialect's five and the CPU reference's rceil_rcp.
  std::vector<std::string_view> compiled, pow2;
  for (const ScaleRuleInfo &r : scaleRules()) {
    if (r.compiled)
      compiled.push_back(r.names.name);
    if (r.pow2)
      pow2.push_back(r.names.name);
  }
  EXPECT_EQ(joinNames(compiled, " or "), "floor, ceil, even, rceil or amax");
  EXPECT_EQ(joinNames(pow2), "floor, ceil, even, rceil, rceil_rcp");
}

TEST(Vocabulary, ScaleKindsRoundTrip) {
  checkTable(scaleKinds(), lookupScaleKind, parseScaleKind, "scale kind");
  for (const ScaleKindInfo &k : scaleKinds()) {
    if (!k.scaleFormat.empty()) {
      EXPECT_TRUE(lookupFormat(k.scaleFormat)) << k.scaleFormat;
    }
  }
}

TEST(Vocabulary, PackingsRoundTrip) {
  checkTable(packings(), lookupPacking, parsePacking, "packing");
  // The Python API's words and the dialect's keywords are spellings too.
  EXPECT_EQ(parsePacking("planes"), Packing::Fp6Planes);
  EXPECT_EQ(parsePacking("fp6_planes"), Packing::Fp6Planes);
  EXPECT_EQ(parsePacking("interleaved"), Packing::Fp6Interleaved4p2);
  EXPECT_EQ(parsePacking("fp6_interleaved"), Packing::Fp6Interleaved4p2);
  // "4+2" is what both fp6 split layouts have been called: no guess.
  for (const char *ambiguous : {"4+2", "fp6_4p2", "split4p2"}) {
    EXPECT_EQ(lookupPacking(ambiguous), std::nullopt);
    try {
      parsePacking(ambiguous);
      FAIL() << ambiguous;
    } catch (const Error &e) {
      std::string m = e.what();
      EXPECT_NE(m.find("ambiguous"), std::string::npos) << m;
      EXPECT_NE(m.find("'planes'"), std::string::npos) << m;
      EXPECT_NE(m.find("'interleaved'"), std::string::npos) << m;
    }
  }
  EXPECT_EQ(parsePacking("contiguous"), Packing::Fp6Contiguous24);
  EXPECT_EQ(parsePacking("fp6_packed"), Packing::Fp6Contiguous24);
  EXPECT_EQ(parsePacking("fp6_byte"), Packing::Bytes);
  for (Fp6Layout l : {Fp6Layout::Bytes, Fp6Layout::Contiguous24,
                      Fp6Layout::Contiguous24Msb, Fp6Layout::Planes,
                      Fp6Layout::Interleaved4p2}) {
    EXPECT_EQ(fp6Layout(packingOf(l)), l);
    EXPECT_EQ(info(packingOf(l)).elementBits % 6, 0);
  }
  EXPECT_EQ(fp6Layout(Packing::Fp4x2), std::nullopt);
  EXPECT_STREQ(toString(Fp6Layout::Planes), "planes");
  EXPECT_STREQ(toString(Fp6Layout::Interleaved4p2), "interleaved");
}

TEST(Vocabulary, ScaleLayoutsRoundTrip) {
  checkTable(scaleLayouts(), lookupScaleLayout, parseScaleLayout,
             "scale layout");
  EXPECT_EQ(parseScaleLayout("blocked"), ScaleLayout::Blocked128x4);
}

TEST(Vocabulary, NonFinitesRoundTrip) {
  checkTable(nonFinites(), lookupNonFinite, parseNonFinite, "nonfinite choice");
  // The default (QuantSpec's and the dialect's) is the table's first entry.
  EXPECT_EQ(nonFinites().front().value, QuantSpec().nonFinite);
  EXPECT_EQ(parseNonFinite("saturate"), NonFinite::Saturate);
}

TEST(Vocabulary, FormatNamesAndAliases) {
  std::set<std::string_view> words;
  for (const FormatNames &n : formatNames()) {
    std::optional<Format> f = lookupFormat(n.format);
    ASSERT_TRUE(f) << n.format;
    EXPECT_EQ(f->name, n.format);
    EXPECT_TRUE(words.insert(n.format).second) << n.format;
    EXPECT_EQ(&formatAliases(n.format), &n.aliases);
    for (std::string_view a : n.aliases) {
      EXPECT_TRUE(words.insert(a).second) << "'" << a << "' names two formats";
      std::optional<Format> g = lookupFormat(a);
      ASSERT_TRUE(g) << a;
      EXPECT_EQ(g->name, n.format) << a;
      // Case-insensitive, as before.
      std::string upper;
      for (char c : a)
        upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      EXPECT_EQ(lookupFormat(upper)->name, n.format) << upper;
    }
  }
  // Every named format has a row.
  for (const Format &f : namedFormats())
    EXPECT_TRUE(words.count(f.name)) << f.name;
  EXPECT_TRUE(formatAliases("e4m2").empty());
}

TEST(Vocabulary, Schemes) {
  std::set<std::string_view> words;
  for (const SchemeInfo &s : schemes()) {
    SCOPED_TRACE(std::string(s.names.name));
    std::optional<Format> elem = lookupFormat(s.elem);
    ASSERT_TRUE(elem);
    EXPECT_EQ(elem->name, s.elem); // a canonical name
    EXPECT_TRUE(elem->hasSign && elem->bits() <= 8);
    EXPECT_EQ(lookupScheme(s.names.name), &s);
    EXPECT_TRUE(words.insert(s.names.name).second);
    for (std::string_view a : s.names.aliases) {
      EXPECT_EQ(lookupScheme(a), &s);
      EXPECT_TRUE(words.insert(a).second);
    }
  }
  EXPECT_EQ(lookupScheme("MXFP4_E2M1"), lookupScheme("mxfp4"));
  EXPECT_EQ(lookupScheme("nvfp4")->scaleKind, ScaleKind::NVFP4);
  EXPECT_EQ(lookupScheme("e4m3fn"), nullptr);
}

TEST(Vocabulary, AmaxRuleIsRCeilForE8M0) {
  for (float a : {0.0f, 1.0f, 448.0f, 449.0f, 3.0e38f, 1.0e-40f})
    EXPECT_EQ(e8m0Scale(a, e4m3fn(), ScaleRule::Amax),
              e8m0Scale(a, e4m3fn(), ScaleRule::RCeil))
        << a;
}

} // namespace
