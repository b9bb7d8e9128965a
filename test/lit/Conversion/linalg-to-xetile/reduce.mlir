// linalg.reduce of a 2D memref along one dimension becomes a memory-bound XeTile kernel: each
// work-group owns a band of output rows (dimensions = [1]) or columns ([0]); a loop over the
// reduced dimension loads full-width tiles and combines each element-wise into a tile
// accumulator, reduced once after the loop with xetile.tile_reduce into a row / column (every
// subgroup owns whole rows / columns: no exchange between subgroups); the result is combined with
// the init and stored through a 2D view of the output.
// max clamps the last tile inside the array (arith.minsi), sums read zero-padded edges.
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s
// RUN: xe-opt %s --xe-print-plan --convert-linalg-to-xetile -o %t 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry row_sum | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry col_max | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-spirv-portable --backend opencl --check --entry col_max | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry dyn_row_sum --dims A=70x45,O=70 | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry widen | FileCheck %s --check-prefix=OK
// RUN: xe-opt %s --convert-linalg-to-xetile --verify-diagnostics -o %t

// CHECK-LABEL: func.func @row_sum
// CHECK-NOT:   linalg.reduce
// CHECK:       gpu.launch_func @row_sum_kernels::@row_sum_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in {{.*}} args(%{{.*}} : memref<1000x70xf32>, %{{.*}} : memref<1000xf32>)
// CHECK-LABEL: func.func @narrow_max
// CHECK:       linalg.reduce
// CHECK-LABEL: func.func @dyn_row_sum
// CHECK:       %[[M:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x?xf32>
// CHECK:       %[[G:.*]] = arith.ceildivui %[[M]], %{{.*}} : index
// CHECK:       gpu.launch_func @dyn_row_sum_kernels::@dyn_row_sum_0 blocks in (%{{.*}}, %[[G]], %{{.*}})
// CHECK-LABEL: func.func @dyn_max
// CHECK:       linalg.reduce
// CHECK-LABEL: func.func @widen
// CHECK:       gpu.launch_func @widen_kernels::@widen_0
// CHECK-LABEL: func.func @narrow_init
// CHECK:       linalg.reduce
// CHECK:       gpu.func @row_sum_0(
// CHECK:         %[[ACC:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (vector<8x16xf32>)
// CHECK:           xetile.init_tile {{.*}} -> !xetile.tile<8x16xf32, #xetile.tile_attr<wg_map = <sg_layout = [1, 1], sg_data = [8, 16]>>>
// CHECK:           %[[V:.*]] = xetile.load_tile
// CHECK-NOT:       xetile.tile_reduce
// CHECK:           arith.addf %[[A]], %[[V]] {wg_map = #xetile.wg_map<sg_layout = [1, 1], sg_data = [8, 16]>} : vector<8x16xf32>
// CHECK:         xetile.tile_reduce <add> %[[ACC]] [1] {wg_map = #xetile.wg_map<sg_layout = [1, 1], sg_data = [8, 1]>} : vector<8x16xf32> -> vector<8x1xf32>
// CHECK:         memref.expand_shape {{.*}} output_shape [1000, 1] : memref<1000xf32> into memref<1000x1xf32>
// CHECK:         xetile.store_tile
// CHECK:       gpu.func @col_max_0(
// CHECK:           arith.minsi
// CHECK:           xetile.tile_reduce <maximumf> %{{.*}} [0] {{.*}} -> vector<1x{{[0-9]+}}xf16>
// CHECK:         memref.expand_shape {{.*}} output_shape [1, 129] : memref<129xf16> into memref<1x129xf16>
// CHECK:       gpu.func @dyn_row_sum_0(
// CHECK:         %[[XM:.*]] = memref.dim %arg0, %{{.*}} : memref<?x?xf32>
// CHECK-NEXT:    %[[XN:.*]] = memref.dim %arg0, %{{.*}} : memref<?x?xf32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[XN]] step
// CHECK:           xetile.init_tile %arg0[%{{.*}}, %{{.*}}], [%[[XM]], %[[XN]]], [%[[XN]], %{{.*}}] : memref<?x?xf32>
// CHECK:         memref.expand_shape {{.*}} : memref<?xf32> into memref<?x1xf32>
// CHECK:       gpu.func @widen_0(
// CHECK:         %[[ACCW:.*]] = scf.for {{.*}} -> (vector<{{[0-9]+}}x32xf32>)
// CHECK:           %[[V:.*]] = xetile.load_tile {{.*}} -> vector<{{[0-9]+}}x32xbf16>
// CHECK:           %[[W:.*]] = arith.extf %[[V]] {{.*}} : vector<{{[0-9]+}}x32xbf16> to vector<{{[0-9]+}}x32xf32>
// CHECK:           arith.addf %{{.*}}, %[[W]]
// CHECK:         xetile.tile_reduce <add> %[[ACCW]] [1]

// PLAN:      memory-bound plan [pvc]: reduce dimension 1 on 1000x70 f32
// PLAN:        reason: reduced-dimension step: full-width 2D block rows of 64 bytes = 16 f32
// PLAN:      memory-bound plan [pvc]: reduce dimension 0 on 37x129 f16

// OK:       PASS

func.func @row_sum(%A: memref<1000x70xf32>, %O: memref<1000xf32>) {
  linalg.reduce ins(%A : memref<1000x70xf32>) outs(%O : memref<1000xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

func.func @col_max(%A: memref<37x129xf16>, %O: memref<129xf16>) {
  linalg.reduce ins(%A : memref<37x129xf16>) outs(%O : memref<129xf16>) dimensions = [0]
    (%x: f16, %acc: f16) {
      %s = arith.maximumf %x, %acc : f16
      linalg.yield %s : f16
    }
  return
}

func.func @narrow_max(%A: memref<40x5xf32>, %O: memref<40xf32>) {
  // expected-remark @+1 {{not lowered to XeTile: 'linalg.reduce' <maximumf> over 5 elements, fewer than one tile (16): the zero padding would change the result}}
  linalg.reduce ins(%A : memref<40x5xf32>) outs(%O : memref<40xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.maximumf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

func.func @dyn_row_sum(%A: memref<?x?xf32>, %O: memref<?xf32>) {
  linalg.reduce ins(%A : memref<?x?xf32>) outs(%O : memref<?xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

func.func @dyn_max(%A: memref<40x?xf32>, %O: memref<40xf32>) {
  // expected-remark @+1 {{not lowered to XeTile: 'linalg.reduce' <maximumf> over a dynamic extent (max/min clamp their last tile inside the array: the reduced extent must be static)}}
  linalg.reduce ins(%A : memref<40x?xf32>) outs(%O : memref<40xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.maximumf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

func.func @widen(%A: memref<100x70xbf16>, %O: memref<100xf32>) {
  linalg.reduce ins(%A : memref<100x70xbf16>) outs(%O : memref<100xf32>) dimensions = [1]
    (%x: bf16, %acc: f32) {
      %w = arith.extf %x : bf16 to f32
      %s = arith.addf %w, %acc : f32
      linalg.yield %s : f32
    }
  return
}

func.func @narrow_init(%A: memref<100x70xf32>, %O: memref<100xf16>) {
  // expected-remark @+1 {{not lowered to XeTile: 'linalg.reduce' from f32 into f16 without an extension of the input in the body}}
  linalg.reduce ins(%A : memref<100x70xf32>) outs(%O : memref<100xf16>) dimensions = [1]
    (%x: f32, %acc: f16) {
      %t = arith.truncf %x : f32 to f16
      %s = arith.addf %t, %acc : f16
      linalg.yield %s : f16
    }
  return
}
