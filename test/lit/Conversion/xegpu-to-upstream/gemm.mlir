// REQUIRES: mlir-opt
// Our VC-mode XeGPU of a bf16 GEMM exported to upstream MLIR xegpu (docs/upstream-xegpu.md) in the
// offsets form (descriptors without offsets, offsets on each access, the loop's update_nd_offset
// steps recomputed from the induction variable, descriptors no longer carried by the loop), no mode = vc, cache hints as #xegpu.cache_hint, our VNNI B vector<16x16x2xbf16> as the plain 2D
// vector<32x16xbf16> (sliced into <16x16> dpas operands), a target on the gpu.module; upstream
// mlir-opt verifies it and its xegpu-propagate-layout gives B the packed lane layout lane_data = [2, 1].
// RUN: xe-opt %s --xe-gemm-to-xegpu --emit=upstream-xegpu | FileCheck %s
// RUN: xe-opt %s --xe-gemm-to-xegpu --emit=upstream-xegpu | %mlir-opt --verify-each | FileCheck %s --check-prefix=UP
// RUN: xe-opt %s --xe-gemm-to-xegpu --emit=upstream-xegpu | %mlir-opt --xegpu-propagate-layout=layout-kind=lane | FileCheck %s --check-prefix=LAYOUT
// RUN: xe-opt %s --xe-gemm-to-xegpu --emit=upstream-xegpu | %mlir-opt --xegpu-propagate-layout=layout-kind=lane --xegpu-subgroup-distribute | FileCheck %s --check-prefix=DIST
// RUN: xe-opt %s --xe-gemm-to-xegpu --emit=upstream-xegpu | %mlir-opt --xegpu-propagate-layout=layout-kind=lane --xegpu-subgroup-distribute --convert-xegpu-to-xevm | FileCheck %s --check-prefix=XEVM
// RUN: not xe-opt %s --xe-gemm-to-xegpu --xegpu-simt-distribute --emit=upstream-xegpu 2>&1 | FileCheck %s --check-prefix=SIMT

func.func @gemm(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x256xbf16>) outs(%C : memref<256x256xf32>)
  return
}

// CHECK:      gpu.module @gemm_kernels [#xevm.target<chip = "pvc">] {
// CHECK:        %[[A:.*]] = xegpu.create_nd_tdesc %arg0 : memref<256x256xbf16> -> !xegpu.tensor_desc<8x32xbf16>
// CHECK:        %[[B:.*]] = xegpu.create_nd_tdesc %arg1 : memref<256x256xbf16> -> !xegpu.tensor_desc<32x16xbf16>
// CHECK:        xegpu.load_nd %{{.*}}[%{{.*}}, %{{.*}}] : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
// our 4x32 bf16 prefetch: two 4x16 prefetches (upstream XeVM's 16-bit prefetch tiles are 16 wide)
// CHECK:        %[[P:.*]] = xegpu.create_nd_tdesc %arg0 : memref<256x256xbf16> -> !xegpu.tensor_desc<4x16xbf16>
// CHECK-NEXT:   xegpu.prefetch_nd %[[P]][%{{.*}}, %c0] <{l1_hint = #xegpu.cache_hint<cached>, l2_hint = #xegpu.cache_hint<cached>}> : !xegpu.tensor_desc<4x16xbf16>
// CHECK-NEXT:   %[[K:.*]] = arith.constant 16 : index
// CHECK-NEXT:   %[[O:.*]] = arith.addi %c0, %[[K]] : index
// CHECK-NEXT:   xegpu.prefetch_nd %[[P]][%{{.*}}, %[[O]]] {{.*}} : !xegpu.tensor_desc<4x16xbf16>
// CHECK:        scf.for %[[IV:.*]] = %[[LB:.*]] to %{{.*}} step %[[ST:[^ ]*]] iter_args(%{{[^,]*}}, %{{[^,]*}}) -> (vector<8x16xf32>, vector<8x16xf32>) {
// CHECK-NEXT:     %[[D:.*]] = arith.subi %[[IV]], %[[LB]] : index
// CHECK-NEXT:     %[[T:.*]] = arith.divui %[[D]], %[[ST]] : index
// CHECK:          %[[LB:.*]] = xegpu.load_nd %{{.*}}[%{{.*}}, %{{.*}}] : !xegpu.tensor_desc<32x16xbf16> -> vector<32x16xbf16>
// CHECK:          vector.extract_strided_slice %[[LB]] {offsets = [16, 0], sizes = [16, 16], strides = [1, 1]} : vector<32x16xbf16> to vector<16x16xbf16>
// CHECK:          xegpu.dpas %{{.*}}, %{{.*}}, %{{.*}} : vector<8x16xbf16>, vector<16x16xbf16>, vector<8x16xf32> -> vector<8x16xf32>
// CHECK:          scf.yield %{{[^,]*}}, %{{[^,]*}} : vector<8x16xf32>, vector<8x16xf32>
// CHECK:        xegpu.store_nd %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
// CHECK-NOT:  mode = vc
// CHECK-NOT:  x2xbf16>
// CHECK-NOT:  update_nd_offset

// UP: gpu.module @gemm_kernels [#xevm.target<chip = "pvc">]
// UP: xegpu.dpas {{.*}} : vector<8x16xbf16>, vector<16x16xbf16>, vector<8x16xf32> -> vector<8x16xf32>

// LAYOUT: xegpu.load_nd {{.*}} -> vector<32x16xbf16>
// LAYOUT: xegpu.dpas {{.*}}layout_b = #xegpu.layout<lane_layout = [1, 16], lane_data = [2, 1]>

// upstream's subgroup distribution: B is loaded packed, dpas on per-lane vectors
// DIST: scf.for
// DIST: xegpu.load_nd {{.*}} <{packed}> : !xegpu.tensor_desc<32x16xbf16> -> vector<32xbf16>
// DIST: xegpu.dpas {{.*}} : vector<8xbf16>, vector<16xbf16>, vector<8xf32> -> vector<8xf32>

// and upstream's XeVM lowering takes it all: 2D block prefetch / load (B with pack_register) / store, mma
// XEVM-DAG: xevm.blockprefetch2d
// XEVM-DAG: xevm.blockload2d {{.*}}pack_register = true
// XEVM-DAG: xevm.mma {{.*}}types = <d = f32, a = bf16, b = bf16, c = f32>
// XEVM-DAG: xevm.blockstore2d
// XEVM-NOT: xegpu.dpas

// SIMT: error: convert-xegpu-to-upstream: 'xegpu.create_nd_tdesc' in SIMT mode is not exported
