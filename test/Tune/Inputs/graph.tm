// A graph whose matmul is scheduled by std.matmul's SIMT kernel (f32),
// with the bias add and relu fused into its epilogue; and one of
// element-wise ops only, scheduled automatically (docs/fusion.md).
import std.nn;
import std.matmul;

graph block(x: f32[M, 64], w: f32[64, 96], b: f32[96]) -> f32[M, 96] {
  let h = matmul(x, w);
  return relu(h + b);
}

graph scale(x: f32[M, 96], b: f32[96]) -> f32[M, 96] {
  return relu(x + b);
}
