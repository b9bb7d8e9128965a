// Every XeGPU op and type parses, verifies and prints back in the readable syntax of syntax.md.
// RUN: xe-opt %s | FileCheck %s
// RUN: xe-opt %s | xe-opt | FileCheck %s
// RUN: xe-opt %s --mlir-print-op-generic | xe-opt | FileCheck %s

// CHECK-LABEL: func.func @f
func.func @f(%A: memref<1024x1024xbf16>, %addr: i64, %i: index, %j: index, %H: index, %W: index, %off: vector<16xindex>, %mask: vector<16xi1>, %v: vector<16xf32>, %n: i8) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  // CHECK: xegpu.create_nd_tdesc %{{.*}}[%{{.*}}, %{{.*}}] {mode = vc} : memref<1024x1024xbf16> -> !xegpu.tensor_desc<8x16xbf16>
  %d = xegpu.create_nd_tdesc %A[%i, %j] {mode = vc} : memref<1024x1024xbf16> -> !xegpu.tensor_desc<8x16xbf16>
  // CHECK: xegpu.create_nd_tdesc %{{.*}}[%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] {mode = vc} : i64 -> !xegpu.tensor_desc<8x16xbf16>
  %d1 = xegpu.create_nd_tdesc %addr[%i, %j], [%H, %W], [%W, %c1] {mode = vc} : i64 -> !xegpu.tensor_desc<8x16xbf16>
  // CHECK: xegpu.create_nd_tdesc %{{.*}}[%{{.*}}] {mode = vc} : i64 -> !xegpu.tensor_desc<16xbf16, #xegpu.tdesc_attr<memory_scope = slm, boundary_check = false>>
  %d2 = xegpu.create_nd_tdesc %addr[%i] {mode = vc} : i64 -> !xegpu.tensor_desc<16xbf16, #xegpu.tdesc_attr<memory_scope = slm, boundary_check = false>>
  // CHECK: xegpu.create_nd_tdesc %{{.*}}[%{{.*}}, %{{.*}}] {mode = vc} : memref<1024x1024xbf16> -> !xegpu.tensor_desc<16x16xbf16>
  %db = xegpu.create_nd_tdesc %A[%i, %j] {mode = vc} : memref<1024x1024xbf16> -> !xegpu.tensor_desc<16x16xbf16>
  // CHECK: xegpu.load_nd %{{.*}} {mode = vc, vnni_axis = 0, l1_hint = cached} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
  %x = xegpu.load_nd %db {mode = vc, vnni_axis = 0, l1_hint = cached} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
  // CHECK: xegpu.load_nd %{{.*}} {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
  %y = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
  // CHECK: xegpu.store_nd %{{.*}}, %{{.*}} {mode = vc, l1_hint = write_back} : vector<8x16xbf16>, !xegpu.tensor_desc<8x16xbf16>
  xegpu.store_nd %y, %d {mode = vc, l1_hint = write_back} : vector<8x16xbf16>, !xegpu.tensor_desc<8x16xbf16>
  // CHECK: xegpu.prefetch_nd %{{.*}} {mode = vc, l1_hint = cached} : !xegpu.tensor_desc<8x16xbf16>
  xegpu.prefetch_nd %d {mode = vc, l1_hint = cached} : !xegpu.tensor_desc<8x16xbf16>
  // CHECK: xegpu.update_nd_offset %{{.*}}, [%{{.*}}, %{{.*}}] {mode = vc} : !xegpu.tensor_desc<8x16xbf16>
  %d3 = xegpu.update_nd_offset %d, [%c0, %c16] {mode = vc} : !xegpu.tensor_desc<8x16xbf16>
  // CHECK: xegpu.create_tdesc %{{.*}}, %{{.*}} {mode = vc} : i64, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
  %s = xegpu.create_tdesc %addr, %off {mode = vc} : i64, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
  // CHECK: xegpu.load_gather %{{.*}}, %{{.*}} {mode = vc} : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xf32>
  %g = xegpu.load_gather %s, %mask {mode = vc} : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xf32>
  // CHECK: xegpu.store_scatter %{{.*}}, %{{.*}}, %{{.*}} {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1>
  xegpu.store_scatter %g, %s, %mask {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1>
  // CHECK: xegpu.update_offset %{{.*}}, %{{.*}} {mode = vc} : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xindex>
  %s2 = xegpu.update_offset %s, %off {mode = vc} : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xindex>
  // CHECK: xegpu.prefetch %{{.*}} {mode = vc} : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
  xegpu.prefetch %s {mode = vc} : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
  // CHECK: xegpu.atomic_rmw addf %{{.*}}, %{{.*}}, %{{.*}} {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xf32>
  %r = xegpu.atomic_rmw addf %v, %s, %mask {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xf32>
  // CHECK: xegpu.alloc_nbarrier %{{.*}} : i8
  xegpu.alloc_nbarrier %n : i8
  // CHECK: xegpu.create_nbarrier %{{.*}}, %{{.*}} {num_producers = 2 : i8, num_consumers = 2 : i8} : i8, i8 -> !xegpu.nbarrier
  %nb = xegpu.create_nbarrier %n, %n {num_producers = 2 : i8, num_consumers = 2 : i8} : i8, i8 -> !xegpu.nbarrier
  // CHECK: xegpu.nbarrier_arrive %{{.*}} : !xegpu.nbarrier
  xegpu.nbarrier_arrive %nb : !xegpu.nbarrier
  // CHECK: xegpu.nbarrier_wait %{{.*}} : !xegpu.nbarrier
  xegpu.nbarrier_wait %nb : !xegpu.nbarrier
  // CHECK: xegpu.mfence {memory_kind = "ugm", fence_op = "none", fence_scope = "local"}
  xegpu.mfence {memory_kind = "ugm", fence_op = "none", fence_scope = "local"}
  // CHECK: xegpu.compile_hint {hint = "schedule_barrier"}
  xegpu.compile_hint {hint = "schedule_barrier"}
  // CHECK: xegpu.create_nd_tdesc %{{.*}}[%{{.*}}, %{{.*}}] : memref<1024x1024xbf16> -> !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
  %ds = xegpu.create_nd_tdesc %A[%i, %j] : memref<1024x1024xbf16> -> !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
  // CHECK: xegpu.load_nd %{{.*}} : !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>> -> vector<8x1xbf16>
  %ys = xegpu.load_nd %ds : !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>> -> vector<8x1xbf16>
  return
}
