// Thread-block clusters: the `cluster` clause (compile-time, positive, at
// most 8 blocks), cluster_rank in kernels only, block ranks and multicast
// masks inside the kernel's cluster (a kernel without the clause is a
// cluster of one block).
// RUN: %tmc %s --arch=sm_90a --verify-diagnostics

op copy1(X: f32[N]) -> f32[N] { out[i] = X[i]; }
op copy2(X: f32[M, N]) -> f32[M, N] { out[i, j] = X[i, j]; }

kernel zero(X: f32[N], Y: f32[N]) implements copy1 grid(N) block(32) cluster(2, 0) {  // expected-error {{cluster dimension must be positive, got 0}}
  Y[0] = X[0];
}

kernel big(X: f32[N], Y: f32[N]) implements copy1 grid(N, 4) block(32) cluster(4, 4) {  // expected-error {{a cluster of 16 blocks exceeds the portable limit of 8}}
  Y[0] = X[0];
}

kernel runtime_dim(X: f32[N], Y: f32[N]) implements copy1 grid(N) block(32) cluster(N) {  // expected-error {{a cluster dimension must be a compile-time constant}}
  Y[0] = X[0];
}

kernel twice(X: f32[N], Y: f32[N]) implements copy1 grid(N) block(32) cluster(2) cluster(2) {  // expected-error {{duplicate 'cluster' clause}}
  // expected-note@-1 {{previous definition is here}}
  Y[0] = X[0];
}

kernel flat(X: f32[N], Y: f32[N]) implements copy1 grid(N) block(32) cluster(1, 2) {  // expected-error {{the cluster has 2 blocks along y, but the grid has 1 dimension: its extent there is 1, never a whole number of clusters}}
  Y[0] = X[0];
}

func rank_in_function() -> i32 {
  return cluster_rank();  // expected-error {{'cluster_rank' is used in kernels only: a device function does not know its kernel's cluster (pass the rank as an argument)}}
}

kernel ranks(X: f32[M, N] by tma, Y: f32[M, N]) implements copy2 grid(2) block(128) cluster(2) {
  shared t: f32[8, 32];
  shared bar: mbarrier[1];
  let r: i32 = cluster_rank();
  cluster_sync();
  mbarrier_arrive(bar[0], 1 - r);
  mbarrier_arrive(bar[0], 2);  // expected-error {{block rank 2 is outside the cluster of kernel 'ranks', which has 2 blocks (ranks 0 to 1)}}
  mbarrier_arrive(bar[0], -1);  // expected-error {{block rank -1 is outside the cluster of kernel 'ranks', which has 2 blocks (ranks 0 to 1)}}
  tma_load(t, X[0, 0], bar[0], 3);
  tma_load(t, X[0, 0], bar[0], 4);  // expected-error {{multicast mask 4 is outside the cluster of kernel 'ranks', which has 2 blocks (masks 1 to 3)}}
  tma_load(t, X[0, 0], bar[0], 0);  // expected-error {{multicast mask 0 is outside the cluster of kernel 'ranks', which has 2 blocks (masks 1 to 3)}}
  tma_load(t, X[0, 0], bar[0], 1.5);  // expected-error {{implicit conversion from 'f32' to 'i32' may lose information}}
  Y[0, 0] = t[0, 0];
}

kernel lonely(X: f32[M, N] by tma, Y: f32[M, N]) implements copy2 grid(2) block(128) {
  shared t: f32[8, 32];
  shared bar: mbarrier[1];
  let r = cluster_rank();  // a block alone is rank 0 of its cluster
  cluster_sync();          // and cluster_sync a barrier of the block
  mbarrier_arrive(bar[0], r);       // its own barrier, as rank 0 of its cluster of one
  tma_load(t, X[0, 0], bar[0], 1);  // to itself
  mbarrier_arrive(bar[0], 1);  // expected-error {{block rank 1 is outside the cluster of kernel 'lonely', which has 1 block (ranks 0 to 0)}}
  tma_load(t, X[0, 0], bar[0], 2);  // expected-error {{multicast mask 2 is outside the cluster of kernel 'lonely', which has 1 block (masks 1 to 1)}}
  Y[0, 0] = t[0, 0];
}
