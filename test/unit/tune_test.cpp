// The tuning database, shape buckets, the compile cache and the cost model.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tune/compile_cache.h"
#include "tune/cost_model.h"
#include "tune/shape_bucket.h"
#include "tune/tuning_db.h"

namespace fs = std::filesystem;
using namespace tmc::tune;

namespace {

// A fresh directory under the test's temporary directory.
std::string TempDir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("tmc-tune-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

TuningKey Key(const std::string& device = "model") { return {"matmul_tc", "abc123", "sm_90a", "T=f16", device, "0.1.0"}; }

BestEntry Best(const Shape& shape, const std::string& params, double metric, const std::string& kind = kModel,
               const std::string& device = "model") {
  BestEntry e;
  e.key = Key(device);
  e.shape = shape;
  e.params = params;
  e.metric = metric;
  e.metric_kind = kind;
  return e;
}

}  // namespace

TEST(ShapeBucket, TextRoundTripsAndRejectsBadText) {
  Shape s{{"N", 4096}, {"M", 1000}};
  EXPECT_EQ(ShapeText(s), "M=1000,N=4096");
  EXPECT_EQ(ParseShapeText("M=1000,N=4096"), s);
  EXPECT_FALSE(ParseShapeText("M=0"));
  EXPECT_FALSE(ParseShapeText("M=1,M=2"));
  EXPECT_FALSE(ParseShapeText("=3"));
  EXPECT_FALSE(ParseShapeText("M=3x"));
  EXPECT_EQ(ParseShapeText(""), Shape{});
}

TEST(ShapeBucket, PowerOfTwoBucketsAndDistance) {
  EXPECT_EQ(PowerOfTwoBucket({{"M", 1000}, {"N", 1024}, {"K", 1}}), (Shape{{"M", 1024}, {"N", 1024}, {"K", 1}}));
  EXPECT_DOUBLE_EQ(ShapeDistance({{"M", 1024}}, {{"M", 4096}}), 2.0);
  EXPECT_TRUE(std::isinf(ShapeDistance({{"M", 1}}, {{"N", 1}})));
}

TEST(TuningDb, RecordsAndKeepsTheBestMeasuredOverModelled) {
  std::string dir = TempDir("best");
  std::string error;
  auto db = TuningDb::Open(dir + "/t.db", true, &error);
  ASSERT_TRUE(db) << error;
  Shape s{{"M", 4096}, {"N", 4096}, {"K", 4096}};
  ASSERT_TRUE(db->OfferBest(Best(s, "BM=64", 5.0), &error)) << error;
  ASSERT_TRUE(db->OfferBest(Best(s, "BM=128", 7.0), &error)) << error;  // worse: kept out
  EXPECT_EQ(db->Lookup(Key(), s)->params, "BM=64");
  ASSERT_TRUE(db->OfferBest(Best(s, "BM=256", 9.0, kMeasured), &error)) << error;  // measured wins
  EXPECT_EQ(db->Lookup(Key(), s)->params, "BM=256");
  ASSERT_TRUE(db->OfferBest(Best(s, "BM=32", 1.0, kModel), &error)) << error;  // model never beats measured
  EXPECT_EQ(db->Lookup(Key(), s)->params, "BM=256");

  Measurement m;
  m.key = Key();
  m.shape = s;
  m.params = "BM=64";
  m.status = "dropped";
  m.reason = "spills 64 bytes";
  m.registers = 255;
  ASSERT_TRUE(db->Record(m, &error)) << error;
  m.status = "ok";  // the same candidate again replaces its row
  ASSERT_TRUE(db->Record(m, &error)) << error;
  auto all = db->AllMeasurements();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].status, "ok");
  EXPECT_EQ(all[0].registers, 255);
}

TEST(TuningDb, LookupTakesTheNearestBucket) {
  std::string error;
  auto db = TuningDb::Open(TempDir("bucket") + "/t.db", true, &error);
  ASSERT_TRUE(db) << error;
  ASSERT_TRUE(db->OfferBest(Best({{"M", 512}, {"N", 512}}, "small", 1), &error));
  ASSERT_TRUE(db->OfferBest(Best({{"M", 8192}, {"N", 8192}}, "large", 1), &error));
  EXPECT_EQ(db->Lookup(Key(), {{"M", 600}, {"N", 500}})->params, "small");
  EXPECT_EQ(db->Lookup(Key(), {{"M", 5000}, {"N", 7000}})->params, "large");
  EXPECT_FALSE(db->Lookup(Key(), {{"Q", 5}}));  // other symbols
  EXPECT_FALSE(db->Lookup(Key(), {}));           // two shapes tuned: ambiguous without one
  TuningKey other = Key();
  other.source_hash = "changed";
  EXPECT_FALSE(db->Lookup(other, {{"M", 512}, {"N", 512}}));
  other = Key();
  other.tmc_version = "9.9.9";
  EXPECT_FALSE(db->Lookup(other, {{"M", 512}, {"N", 512}}));
}

TEST(TuningDb, ExportImportAndMerge) {
  std::string dir = TempDir("merge");
  std::string error;
  auto a = TuningDb::Open(dir + "/a.db", true, &error);
  auto b = TuningDb::Open(dir + "/b.db", true, &error);
  ASSERT_TRUE(a && b) << error;
  Shape s{{"M", 64}};
  ASSERT_TRUE(a->OfferBest(Best(s, "A", 3.0), &error));
  ASSERT_TRUE(b->OfferBest(Best(s, "B", 2.0), &error));
  Measurement m;
  m.key = Key();
  m.shape = s;
  m.params = "B";
  m.status = "ok";
  m.metric = 2.0;
  m.metric_kind = kModel;
  ASSERT_TRUE(b->Record(m, &error));
  ASSERT_TRUE(a->Merge(*b, &error)) << error;
  EXPECT_EQ(a->Lookup(Key(), s)->params, "B");
  EXPECT_EQ(a->AllMeasurements().size(), 1u);

  auto c = TuningDb::Open(dir + "/c.db", true, &error);
  ASSERT_TRUE(c->ImportJson(a->ExportJson(), &error)) << error;
  EXPECT_EQ(c->ExportJson(), a->ExportJson());
  EXPECT_FALSE(c->ImportJson("{\"format\": \"other\"}", &error));
  EXPECT_FALSE(c->ImportJson("not json", &error));
  EXPECT_FALSE(TuningDb::Open(dir + "/missing.db", false, &error));
}

TEST(TuningDb, ConcurrentWritersLoseNothing) {
  std::string path = TempDir("concurrent") + "/t.db";
  std::string error;
  ASSERT_TRUE(TuningDb::Open(path, true, &error)) << error;
  auto writer = [&](int id) {
    std::string e;
    auto db = TuningDb::Open(path, true, &e);
    ASSERT_TRUE(db) << e;
    for (int i = 0; i < 50; ++i) {
      Measurement m;
      m.key = Key();
      m.shape = {{"M", 64}};
      m.params = "w" + std::to_string(id) + "_" + std::to_string(i);
      m.status = "ok";
      m.metric_kind = kModel;
      ASSERT_TRUE(db->Record(m, &e)) << e;
    }
  };
  std::thread t1(writer, 1), t2(writer, 2);
  t1.join();
  t2.join();
  auto db = TuningDb::Open(path, false, &error);
  EXPECT_EQ(db->AllMeasurements().size(), 100u);
}

TEST(TuningDb, ConcurrentCreationOfOneFile) {
  // Two tuners creating the same new database at once: both succeed.
  std::string dir = TempDir("create");
  for (int round = 0; round < 20; ++round) {
    std::string path = dir + "/t" + std::to_string(round) + ".db";
    std::string e1, e2;
    std::unique_ptr<TuningDb> a, b;
    std::thread t1([&] { a = TuningDb::Open(path, true, &e1); });
    std::thread t2([&] { b = TuningDb::Open(path, true, &e2); });
    t1.join();
    t2.join();
    ASSERT_TRUE(a) << "round " << round << ": " << e1;
    ASSERT_TRUE(b) << "round " << round << ": " << e2;
  }
}

TEST(CompileCache, HitMissAndCorruption) {
  CompileCache cache(TempDir("cache"));
  std::string key = CompileCache::Digest("kernel source + options");
  EXPECT_EQ(key.size(), 64u);
  EXPECT_NE(key, CompileCache::Digest("kernel source + other options"));
  std::string out, error;
  EXPECT_EQ(cache.Get(key, &out), CompileCache::Lookup::Miss);
  ASSERT_TRUE(cache.Put(key, "PTX text\0with a zero", &error)) << error;
  ASSERT_EQ(cache.Get(key, &out), CompileCache::Lookup::Hit);
  EXPECT_EQ(out, "PTX text");
  // A flipped byte and a truncated file are both detected and removed.
  {
    std::fstream f(cache.PathOf(key), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-2, std::ios::end);
    f.put('#');
  }
  EXPECT_EQ(cache.Get(key, &out), CompileCache::Lookup::Corrupt);
  EXPECT_FALSE(fs::exists(cache.PathOf(key)));
  ASSERT_TRUE(cache.Put(key, "a longer payload", &error));
  fs::resize_file(cache.PathOf(key), fs::file_size(cache.PathOf(key)) - 3);
  EXPECT_EQ(cache.Get(key, &out), CompileCache::Lookup::Corrupt);
  EXPECT_EQ(cache.Get(key, &out), CompileCache::Lookup::Miss);
}

TEST(CostModel, ParsesPtxasReportsPerKernel) {
  std::string report =
      "ptxas info    : Compiling entry function 'a' for 'sm_90a'\n"
      "ptxas info    : Function properties for a\n"
      "    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 49152 bytes smem, 380 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'b' for 'sm_90a'\n"
      "ptxas info    : Function properties for b\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 0 barriers, 380 bytes cmem[0]\n";
  Resources a = ParsePtxasReport(report, "a"), b = ParsePtxasReport(report, "b");
  EXPECT_TRUE(a.found);
  EXPECT_EQ(a.registers, 255);
  EXPECT_EQ(a.spill_bytes, 12);
  EXPECT_EQ(a.stack_bytes, 16);
  EXPECT_EQ(b.stack_bytes, 0);
  EXPECT_EQ(a.shared_bytes, 49152);
  EXPECT_EQ(b.registers, 40);
  EXPECT_EQ(b.spill_bytes, 0);
  EXPECT_FALSE(ParsePtxasReport(report, "c").found);
}

TEST(CostModel, DropReasons) {
  ArchLimits h200 = LimitsOf("sm_90a");
  Resources spills{true, 255, 96, 96, 0};
  EXPECT_EQ(DropReason(spills, 256, h200, false), "spills 96 bytes (255 registers)");
  Resources stack{true, 32, 0, 1024, 0};
  EXPECT_EQ(DropReason(stack, 256, h200, false), "");  // every candidate uses local memory: kept
  EXPECT_EQ(DropReason(stack, 256, h200, true),
            "keeps 1024 bytes in local memory (a register tensor too large for registers)");
  Resources big{true, 128, 0, 0, 0};
  EXPECT_EQ(DropReason(big, 1024, h200, false),
            "no block fits on an SM (registers: 128 registers x 1024 threads, 0 bytes of shared memory)");
  Resources fine{true, 64, 0, 0, 48 * 1024};
  EXPECT_EQ(DropReason(fine, 256, h200, true), "");
}

TEST(CostModel, OccupancyAndRanking) {
  ArchLimits h200 = LimitsOf("sm_90a");
  std::string limiter;
  Resources r{true, 255, 0, 0, 0};
  EXPECT_EQ(BlocksPerSm(r, 256, h200, &limiter), 1);
  EXPECT_EQ(limiter, "registers");
  r = {true, 32, 0, 0, 200 * 1024};
  EXPECT_EQ(BlocksPerSm(r, 128, h200, &limiter), 1);
  EXPECT_EQ(limiter, "shared memory");
  r = {true, 32, 0, 0, 240 * 1024};
  EXPECT_EQ(BlocksPerSm(r, 128, h200, nullptr), 0);

  PtxMix mix = AnalyzePtx(
      "\tld.global.nc.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd1];\n"
      "\tcp.async.cg.shared.global [%r1], [%rd2], 16;\n"
      "\tfma.rn.f32 \t%f5, %f1, %f2, %f3;\n"
      "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2,%f3,%f4};\n"
      "\tadd.s32 \t%r1, %r2, %r3;\n");
  EXPECT_DOUBLE_EQ(mix.global_bytes, 32);
  EXPECT_DOUBLE_EQ(mix.flops, 2 + 128);
  EXPECT_TRUE(mix.tensor_cores);

  // More reuse (flops per loaded byte) and enough blocks for the device
  // rank first; the model is deterministic.
  ModelInput big, small;
  big.resources = small.resources = {true, 128, 0, 0, 32 * 1024};
  big.threads = small.threads = 256;
  big.op_flops = small.op_flops = 2.0 * 4096 * 4096 * 4096;
  big.blocks = 32 * 32;
  small.blocks = 64 * 64;
  big.mix = {512, 32, true};
  small.mix = {128, 32, true};
  EXPECT_LT(ModelMicroseconds(big, h200), ModelMicroseconds(small, h200));
  EXPECT_EQ(ModelMicroseconds(big, h200), ModelMicroseconds(big, h200));
  big.resources.registers = 300;
  EXPECT_TRUE(std::isinf(ModelMicroseconds(big, h200)));
}
