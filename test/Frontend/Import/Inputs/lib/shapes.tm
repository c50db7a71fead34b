// A user module imported by the tests in test/Frontend/Import.
let TILE = 64;
let warp_map = spatial(8, 4);
op double(X: f32[N]) -> f32[N] { out[i] = 2.0 * X[i]; }
