// A tile carried by two nested loops: the inner loop is rebuilt with descriptor iter_args too
// (its init was replaced when the outer loop was rebuilt).
// RUN: xe-opt %s --convert-xetile-to-xegpu | FileCheck %s

gpu.module @m {
  // CHECK-LABEL: gpu.func @nested
  gpu.func @nested(%A: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant dense<0.0> : vector<8x16xf32>
    // CHECK: %[[T:.*]] = xegpu.create_nd_tdesc %{{.*}}[8, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %l = xetile.init_tile %A[8, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
    // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[O:.*]] = %[[T]]) -> (vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>)
    %r:2 = scf.for %i = %c0 to %c64 step %c8 iter_args(%acc = %zero, %la = %l) -> (vector<8x16xf32>, !xetile.tile<8x16xf32>) {
      // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[I:.*]] = %[[O]]) -> (vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>)
      // CHECK: xegpu.load_nd %[[I]] {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
      %in:2 = scf.for %j = %c0 to %c64 step %c8 iter_args(%a2 = %acc, %li = %la) -> (vector<8x16xf32>, !xetile.tile<8x16xf32>) {
        %v = xetile.load_tile %li : !xetile.tile<8x16xf32> -> vector<8x16xf32>
        %s = arith.addf %a2, %v : vector<8x16xf32>
        %ln = xetile.update_tile_offset %li, [0, 16] : !xetile.tile<8x16xf32>
        scf.yield %s, %ln : vector<8x16xf32>, !xetile.tile<8x16xf32>
      }
      scf.yield %in#0, %in#1 : vector<8x16xf32>, !xetile.tile<8x16xf32>
    }
    // CHECK-NOT: xetile.
    %o = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
    xetile.store_tile %r#0, %o : vector<8x16xf32>, !xetile.tile<8x16xf32>
    gpu.return
  }
}
