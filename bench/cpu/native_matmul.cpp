// The peer of bench/cpu/matmul.sh: a plain f32 matmul on the CPU (g++ -O2,
// one thread), timed like `tmc run --bench` (median of 5 runs).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 256;
  std::vector<float> a(n * n), b(n * n), c(n * n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (float& x : a) x = u(rng);
  for (float& x : b) x = u(rng);
  std::vector<double> times;
  for (int r = 0; r < 5; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        float acc = 0;
        for (int k = 0; k < n; ++k) acc += a[i * n + k] * b[k * n + j];
        c[i * n + j] = acc;
      }
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  std::printf("%.3f\n", times[2] + c[0] * 0);
}
