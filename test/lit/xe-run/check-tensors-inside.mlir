// xe-run --check of a memref function that computes on tensors in between (to_tensor -> softmax
// -> materialize_in_destination): the lowering takes it, and the CPU reference bufferizes it first
// (upstream one-shot-bufferize) instead of refusing the tensor softmax. The summary gives the
// time of each phase.
// RUN: xe-run %s --pipeline=xe-linalg-to-xetile --check | FileCheck %s

// CHECK:      simulated @softmax in
// CHECK-NEXT: phases: reference compile {{.*}} s, lowering {{.*}} s, simulation {{.*}} s, reference run {{.*}} s, compare {{.*}} s
// CHECK-NEXT:   in: max abs error 0, max rel error 0  ok
// CHECK-NEXT:   out: max abs error {{.*}}  ok
// CHECK-NEXT: PASS

func.func @softmax(%in: memref<64x128xf32>, %out: memref<64x128xf32>) {
  %t = bufferization.to_tensor %in restrict : memref<64x128xf32> to tensor<64x128xf32>
  %e = tensor.empty() : tensor<64x128xf32>
  %s = linalg.softmax dimension(1) ins(%t : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  bufferization.materialize_in_destination %s in restrict writable %out : (tensor<64x128xf32>, memref<64x128xf32>) -> ()
  return
}
