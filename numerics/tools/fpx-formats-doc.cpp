//===- fpx-formats-doc.cpp - Generate the tables of docs/formats.md -------===//
//
// Usage: fpx-formats-doc            print the generated markdown
//        fpx-formats-doc --update F rewrite the generated region of file F
//
//===----------------------------------------------------------------------===//
#include "fpx/Numerics/DocGen.h"
#include "fpx/Numerics/Format.h"

#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char **argv) {
  using namespace fpx::num;
  std::string generated = generateFormatsDoc();
  if (argc == 1) {
    std::cout << kGeneratedBegin << generated << kGeneratedEnd << "\n";
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "--update") == 0) {
    std::ifstream in(argv[2]);
    if (!in) {
      std::cerr << "fpx-formats-doc: cannot read " << argv[2] << "\n";
      return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    try {
      std::string updated = spliceGenerated(ss.str(), generated);
      std::ofstream(argv[2]) << updated;
    } catch (const Error &e) {
      std::cerr << e.what() << "\n";
      return 1;
    }
    return 0;
  }
  std::cerr << "usage: fpx-formats-doc [--update docs/formats.md]\n";
  return 2;
}
