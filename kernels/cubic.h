// The cubic convolution weights (Keys) that Resize's cubic mode and
// GridSample's cubic mode share.
#ifndef ACLDUMP_KERNELS_CUBIC_H_
#define ACLDUMP_KERNELS_CUBIC_H_

namespace acldump {

// The weights of the four taps around a point at fraction r (0 <= r < 1)
// past the second tap, for the coefficient a (-0.75 in ONNX, -0.5 in some
// libraries). Computed in F: Resize uses double, GridSample float as ONNX
// Runtime does.
template <typename F>
void CubicCoefficients(F r, F a, F c[4]) {
  c[0] = ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a;
  c[1] = ((a + 2) * r - (a + 3)) * r * r + 1;
  c[2] = ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1;
  c[3] = ((a * ((1 - r) + 1) - 5 * a) * ((1 - r) + 1) + 8 * a) * ((1 - r) + 1) -
         4 * a;
}

}  // namespace acldump

#endif  // ACLDUMP_KERNELS_CUBIC_H_
