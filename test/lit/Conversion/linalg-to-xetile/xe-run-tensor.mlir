// xe-run on a tensor program: it is bufferized (xe-bufferize), lowered by the given pipeline,
// simulated, and checked against the bufferized linalg function on the CPU, returned buffer
// included; at the work-group stage and after xetile-wg-to-sg.
// RUN: xe-run %s --pipeline xe-linalg-to-xetile --check | FileCheck %s
// RUN: xe-run %s --pipeline 'xe-linalg-to-xetile,xetile-wg-to-sg' --check | FileCheck %s

// CHECK:      simulated @mlp in
// CHECK:        A: max abs error 0, max rel error 0  ok
// CHECK:        bias: max abs error 0, max rel error 0  ok
// CHECK:        result0: max abs error {{.*}}  ok
// CHECK-NEXT: PASS

func.func @mlp(%A: tensor<100x40xbf16>, %B: tensor<40x72xbf16>, %bias: tensor<72xf32>) -> tensor<100x72xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x72xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<100x72xf32>) -> tensor<100x72xf32>
  %m = linalg.matmul ins(%A, %B : tensor<100x40xbf16>, tensor<40x72xbf16>) outs(%z : tensor<100x72xf32>) -> tensor<100x72xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<100x72xf32>, tensor<72xf32>) outs(%m : tensor<100x72xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    %y = arith.maximumf %s, %cst : f32
    linalg.yield %y : f32
  } -> tensor<100x72xf32>
  return %r : tensor<100x72xf32>
}
