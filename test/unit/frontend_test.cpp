// Parsing and checking through the public frontend interface.
#include <gtest/gtest.h>

#include "frontend/ast/ast_printer.h"
#include "frontend/compilation.h"
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

}  // namespace
}  // namespace tmc
