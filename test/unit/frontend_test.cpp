// Parsing and checking through the public frontend interface.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "frontend/ast/ast_printer.h"
#include "frontend/compilation.h"
#include "frontend/parse/lexer_check.h"
#include "frontend/parse/parser.h"
#include "test/unit/checked_text.h"

namespace tmc {
namespace {

TEST(Frontend, PrecedenceFollowsC) {
  Checked r("let x = 1 + 2 * 3 << 1 < 20 == true && !false || false;");
  ASSERT_TRUE(r.module && r.module->ok);
  auto* c = static_cast<const ast::ConstDecl*>(r.module->ast->decls[0]);
  EXPECT_EQ(ast::PrintExpr(c->value), "((((((1 + (2 * 3)) << 1) < 20) == true) && (!false)) || false)");
  EXPECT_TRUE(r.Export("x")->value->b);
}

TEST(Frontend, ConstantFoldingAndMappingTypes) {
  Checked r("let n = cdiv(10, 4) * 3;\nlet m = spatial(4, 8) * repeat(n / 3, 2);\nlet w = m.workers;");
  ASSERT_TRUE(r.module && r.module->ok);
  EXPECT_EQ(r.Export("n")->value->i, 9);
  EXPECT_EQ(r.Export("m")->type->ToString(), "mapping<2, 32, (12, 16)>");
  EXPECT_EQ(r.Export("w")->value->i, 32);
}

TEST(Frontend, MappingRankMismatchIsAnError) {
  Checked r("let m = spatial(4, 8) * repeat(2);");
  EXPECT_TRUE(r.collect.Has(DiagKind::MappingRankMismatch));
}

TEST(Frontend, SyntaxErrorsDoNotCascade) {
  Checked r("op f(X: f32[N]) -> f32[N] { out[i] = X[i] +; }\nlet y = 2;");
  EXPECT_EQ(r.diags.ErrorCount(), 1u);
}

TEST(Frontend, ShapeSymbolsAreShared) {
  Checked r("op mm(A: f32[M, K], B: f32[K, N]) -> f32[M, N] { out[i, j] = sum(k < K) A[i, k] * B[k, j]; }\n"
        "graph g(x: f32[P, 64], w: f32[32, 16]) -> f32[P, 16] { return mm(x, w); }\n");
  EXPECT_TRUE(r.collect.Has(DiagKind::ShapeMismatch));
}

TEST(Frontend, StdlibImports) {
  Checked r("import std.nn;\ngraph g(x: f32[B, 8]) -> f32[B, 8] { return relu(x); }\n");
  EXPECT_TRUE(r.module && r.module->ok) << (r.collect.diags.empty() ? "" : r.collect.diags[0].message);
}

// `outline`, a parse that kept the body of kernel `keep` only (of none if
// empty), against `whole`, a whole parse of the same file: the same
// declarations, every other kernel's body left out (`whole`'s are emptied
// on the way, so that the two print alike).
void ExpectBodiesLeftOut(ast::Module& whole, const ast::Module& outline, const std::string& keep,
                         const SourceManager& sm, const std::filesystem::path& path, size_t* kernels) {
  ASSERT_EQ(whole.decls.size(), outline.decls.size()) << path;
  for (size_t i = 0; i < whole.decls.size(); ++i) {
    auto* k = ast::dyn_cast<ast::KernelDecl>(whole.decls[i]);
    auto* o = ast::dyn_cast<ast::KernelDecl>(outline.decls[i]);
    ASSERT_EQ(k == nullptr, o == nullptr) << path << ": declaration " << i;
    if (!k) continue;
    EXPECT_FALSE(k->body_skipped);
    EXPECT_FALSE(k->body->stmts.empty());
    bool left_out = k->name.name != keep;
    EXPECT_EQ(o->body_skipped, left_out) << path << ": " << o->name.name << " (keeping '" << keep << "')";
    if (left_out) {
      EXPECT_TRUE(o->body->stmts.empty());
      k->body->stmts.clear();
    }
    ++*kernels;
  }
  EXPECT_EQ(ast::PrintModule(whole, sm), ast::PrintModule(outline, sm)) << path << " (keeping '" << keep << "')";
}

// Parsing without the kernels' bodies (kernel_body_skipper.h) gives the
// same module as a whole parse whose kernel bodies are emptied, for every
// .tm file of the examples and the standard library; keeping one kernel's
// body (CompileOptions::main_kernel_only) gives that kernel as parsed whole.
TEST(Frontend, SkippedKernelBodiesLeaveTheRestAsParsed) {
  namespace fs = std::filesystem;
  size_t kernels = 0, kept_kernels = 0;
  for (const char* folder : {"examples", "stdlib"}) {
    for (const fs::directory_entry& e : fs::directory_iterator(fs::path(TMC_SOURCE_DIR) / folder)) {
      if (!e.is_regular_file() || e.path().extension() != ".tm") continue;
      std::ifstream f(e.path());
      std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      SourceManager sm;
      CollectDiagnostics collect;
      DiagnosticEngine diags(sm, collect);
      uint32_t id = sm.AddFile(e.path().string(), text);
      std::vector<std::string> keeps = {""};  // none kept, then each kernel in turn
      for (size_t turn = 0; turn < keeps.size(); ++turn) {
        std::unique_ptr<ast::Module> whole = ParseFile(id, diags);
        ParseOptions skip;
        skip.skip_kernel_bodies = true;
        skip.keep_kernel_body = keeps[turn];
        std::unique_ptr<ast::Module> outline = ParseFile(id, diags, skip);
        ASSERT_TRUE(whole && outline) << e.path() << ": " << collect.First();
        if (turn == 0)
          for (const ast::Decl* d : whole->decls)
            if (auto* k = ast::dyn_cast<ast::KernelDecl>(d)) keeps.push_back(k->name.name);
        size_t compared = 0;
        ExpectBodiesLeftOut(*whole, *outline, keeps[turn], sm, e.path(), &compared);
        if (turn == 0) kernels += compared;
        else ++kept_kernels;
      }
    }
  }
  EXPECT_GT(kernels, 30u);
  EXPECT_EQ(kept_kernels, kernels);
}

}  // namespace
}  // namespace tmc

// tmc's hand-written lexer against ANTLR's generated one (the reference):
// the same tokens for every .tm file of the repository, for adversarial
// numbers, operators and comments, and for random text.
TEST(Lexer, AgreesWithTheGeneratedLexer) {
  namespace fs = std::filesystem;
  size_t files = 0;
  for (const char* folder : {"examples", "stdlib", "test", "bench"}) {
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(fs::path(TMC_SOURCE_DIR) / folder)) {
      if (!e.is_regular_file() || e.path().extension() != ".tm") continue;
      std::ifstream f(e.path());
      std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      if (auto diff = tmc::CompareWithGeneratedLexer(text)) ADD_FAILURE() << e.path() << ": " << *diff;
      ++files;
    }
  }
  EXPECT_GT(files, 100u);
  const char* cases[] = {
      "", " ", "\n\n x", "1", "1.", "1.5", "1.5.3", ".5", "1e5", "1e", "1e+", "1e+5", "1E-7f16", "1.5e", "1.5e3x",
      "1.5ex", "1.5e+3", "1e5x", "1ex", "1_000", "1__", "1_e5", "0x", "0x1F", "0xg", "0x1g", "0x1fz", "0x1e5",
      "0X_1", "0x1_f_u8", "0b", "0b101", "0b2", "0b1021", "0b1_0u8", "10u32", "2f", "1.0f16", "1.0bf16", "07",
      "a1 _b __ i8 i80 int integer f16x bf16 bf1", "kernel kernels op ops in int", "<<= >>= << >> <= >= < >",
      "-> - -= = == ! != & && &= | || |= ^ ^= ~ ? : ; , . ( ) [ ] { } + += * *= % %=", "a/b a/=b a//c\nd",
      "/* c */ x", "/* unterminated", "/*/", "/**/", "/***/ y", "/* a */ b /* c", "// end", "//", "/", "x/*",
      "\t\r\f\v x", "caf\xc3\xa9 = 1;", "\x01 \x7f", "a\r\nb\n\nc", "@ # $ ` \\ \"", "f(x)[i].y",
      "\xe2\x82\xac x \xf0\x9f\x98\x80 // \xf0\x9f\x98\x80\ny /* \xc3\xa9 */ z",
  };
  for (const char* text : cases)
    if (auto diff = tmc::CompareWithGeneratedLexer(text)) ADD_FAILURE() << "'" << text << "': " << *diff;
  // Random text over the characters where the rules meet.
  const std::string alphabet = "0123456789abefxXbBEu_.+-*/=<>!&|^~?:;,()[]{} \n\t\xc3\xa9";
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    size_t n = rng() % 24;
    for (size_t j = 0; j < n; ++j) {
      size_t k = rng() % alphabet.size();
      if (static_cast<unsigned char>(alphabet[k]) >= 0x80) {
        text += "\xc3\xa9";  // one two-byte code point, never half of one
      } else {
        text += alphabet[k];
      }
    }
    if (auto diff = tmc::CompareWithGeneratedLexer(text)) {
      ADD_FAILURE() << "'" << text << "': " << *diff;
      break;
    }
  }
}
