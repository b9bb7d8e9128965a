// Target pvc on surfaces the lowering cannot prove valid for 2D block messages (docs/spirv.md,
// "Surfaces the lowering cannot prove valid"): the surface rules of arch/pvc.py (base 64-byte
// aligned; width >= 64 B, multiple of 4, <= 2^24; pitch >= 64 B, multiple of 16, <= 2^24, >= width;
// height 1..2^24), only the parts not known at compile time, are tested at run time. Surfaces
// computed from values available at the function entry (here: kernel arguments and their sizes)
// version the kernel: their tests, once, at the entry, select between the body with unguarded
// builtins (fast copy) and the body with a test at each block access (slow copy). There, loads:
// per-lane loads only, one row of the block per iteration of a loop, into a staging array copied
// into the builtin's private array (a builtin there made IGC spill: docs/igc.md "Dynamic shapes");
// stores: the builtin or per-lane stores; prefetches: the builtin or nothing. A surface that statically breaks a rule gets the
// per-lane path only; a statically valid one the unguarded builtin, without versioning (gemm.mlir).
// test_pvc_on_cpu.py::test_dynamic_surface_guard_takes_builtin_or_fallback and
// ::test_surface_versions_each_path_runs run both paths.
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s

// @slm: shared local memory allocated in a versioned body is one buffer for both copies
// CHECK: slm = "{{.*}}slm_bytes\22: 64,
// CHECK: spirv.GlobalVariable @__xe_slm_slm_0 : !spirv.ptr<!spirv.array<16 x f32>, Workgroup>
// CHECK-NOT: @__xe_slm_slm_1

module attributes {gpu.container_module} {
  gpu.module @k {
    // dynamic width and height (pitch = width): the test of width, pitch and height, at the entry
    // CHECK-LABEL: spirv.func @dyn(
    // CHECK-SAME: %[[A:[a-z0-9]+]]: !spirv.ptr<f16, CrossWorkgroup>, %[[B:[a-z0-9]+]]: !spirv.ptr<f16, CrossWorkgroup>, %[[M:[a-z0-9]+]]: i64, %[[N:[a-z0-9]+]]: i64,
    // CHECK: %[[STAGE:.*]] = spirv.Variable : !spirv.ptr<!spirv.array<8 x i16>, Function>
    // CHECK-NEXT: %[[ARR:.*]] = spirv.Variable : !spirv.ptr<!spirv.array<8 x i16>, Function>
    // CHECK: %[[WB:.*]] = spirv.IMul %[[N]], %cst2_i64 : i64
    // CHECK: spirv.UGreaterThanEqual %[[WB]], %cst64_i64 : i64
    // CHECK: spirv.ULessThanEqual %[[WB]], %cst16777216_i64 : i64
    // CHECK: spirv.UMod %[[WB]], %cst4_i64 : i64
    // CHECK: spirv.UMod %[[WB]], %cst16_i64 : i64
    // CHECK: spirv.UGreaterThanEqual %[[M]], %cst1_i64 : i64
    // CHECK: spirv.ULessThanEqual %[[M]], %cst16777216_i64 : i64
    // CHECK: spirv.LogicalAnd
    // CHECK: spirv.mlir.selection {
    // CHECK-NEXT: spirv.BranchConditional %{{[0-9]+}}, ^bb1, ^bb2
    // the fast copy: the builtins, no test at the accesses
    // CHECK-NEXT: ^bb1:
    // CHECK-NOT: spirv.mlir.selection
    // CHECK: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_prefetch_16b_8r16x1c(
    // CHECK-NOT: spirv.mlir.selection
    // CHECK: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_16b_8r16x1c(
    // CHECK-NOT: spirv.mlir.selection
    // CHECK: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_write_16b_8r16x1c(
    // CHECK-NOT: spirv.mlir.selection
    // CHECK: spirv.Branch ^bb3
    // the slow copy: each access tests its surface
    // CHECK-NEXT: ^bb2:
    // the prefetch: the builtin or nothing
    // CHECK-NEXT: spirv.mlir.selection {
    // CHECK-NEXT: spirv.BranchConditional %[[OK:[0-9]+]], ^bb1, ^bb2
    // CHECK: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_prefetch_16b_8r16x1c(
    // CHECK-NEXT: spirv.Branch ^bb2
    // CHECK-NEXT: ^bb2:
    // CHECK-NEXT: spirv.mlir.merge
    // the load: no builtin; a loop over the block's 8 rows, per-lane loads (zero outside) into the
    // staging array at the row, then the staging array copied into the builtin's
    // CHECK-NOT: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read
    // CHECK: spirv.mlir.loop {
    // CHECK-NEXT: spirv.Branch ^bb1(%cst0_i32 : i32)
    // CHECK-NEXT: ^bb1(%[[ROW:.*]]: i32):
    // CHECK-NEXT: spirv.SLessThan %[[ROW]], %cst8_i32 : i32
    // CHECK: spirv.PtrAccessChain %[[A]][%{{.*}}]
    // CHECK: spirv.Load "CrossWorkgroup" %{{.*}} ["Aligned", 2] : f16
    // CHECK: spirv.Store "Function" %{{.*}}, %cst_f16 : f16
    // CHECK: %[[E:.*]] = spirv.Bitcast %{{.*}} : f16 to i16
    // CHECK-NEXT: %[[S:.*]] = spirv.AccessChain %[[STAGE]][%[[ROW]]]
    // CHECK-NEXT: spirv.Store "Function" %[[S]], %[[E]] : i16
    // CHECK: spirv.mlir.merge
    // CHECK-NOT: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read
    // CHECK: %[[S0:.*]] = spirv.AccessChain %[[STAGE]][%cst0_i32]
    // CHECK-NEXT: %[[W0:.*]] = spirv.Load "Function" %[[S0]] : i16
    // CHECK-NEXT: %[[Q0:.*]] = spirv.AccessChain %[[ARR]][%cst0_i32]
    // CHECK-NEXT: spirv.Store "Function" %[[Q0]], %[[W0]] : i16
    // after it, the array is read as after an unguarded builtin
    // CHECK: spirv.Load "Function" %[[Q0]] : i16
    // the store: the builtin, else per-lane stores (dropped outside)
    // CHECK: spirv.mlir.selection {
    // CHECK-NEXT: spirv.BranchConditional %[[OK]], ^bb1, ^bb2
    // CHECK: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_write_16b_8r16x1c(
    // CHECK: ^bb2:
    // CHECK: spirv.PtrAccessChain %[[B]][%{{.*}}]
    // CHECK: spirv.Store "CrossWorkgroup" %{{.*}} ["Aligned", 2] : f16
    // CHECK: spirv.mlir.merge
    // CHECK: spirv.Return
    gpu.func @dyn(%A: memref<?x?xf16>, %B: memref<?x?xf16>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %m = memref.dim %A, %c0 : memref<?x?xf16>
      %n = memref.dim %A, %c1 : memref<?x?xf16>
      %t = xegpu.create_nd_tdesc %A[%c0, %c0], [%m, %n], [%n, %c1] {mode = vc} : memref<?x?xf16> -> !xegpu.tensor_desc<8x16xf16>
      xegpu.prefetch_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf16>
      %v = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
      %u = xegpu.create_nd_tdesc %B[%c0, %c0], [%m, %n], [%n, %c1] {mode = vc} : memref<?x?xf16> -> !xegpu.tensor_desc<8x16xf16>
      xegpu.store_nd %v, %u {mode = vc} : vector<8x16xf16>, !xegpu.tensor_desc<8x16xf16>
      gpu.return
    }

    // a static surface at a dynamic offset (leading index %b, an argument) whose batch stride, 9 x 40
    // f16 = 720 B, is not a multiple of 64 B: only the base alignment is tested, at the entry (the base
    // address computed there); batch-base.mlir has a stride the lowering proves aligned
    // CHECK-LABEL: spirv.func @lead(
    // CHECK: %[[BASE:.*]] = spirv.Bitcast %{{.*}} : !spirv.ptr<f16, CrossWorkgroup> to !spirv.ptr<i8, CrossWorkgroup>
    // CHECK: %[[ADDR:.*]] = spirv.ConvertPtrToU %[[BASE]] : !spirv.ptr<i8, CrossWorkgroup> to i64
    // CHECK: %[[MOD:.*]] = spirv.UMod %[[ADDR]], %cst64_i64 : i64
    // CHECK: %[[AL:.*]] = spirv.IEqual %[[MOD]], %cst0_i64 : i64
    // CHECK-NEXT: spirv.mlir.selection {
    // CHECK-NEXT: spirv.BranchConditional %[[AL]], ^bb1, ^bb2
    // CHECK-NEXT: ^bb1:
    // CHECK-NOT: spirv.mlir.selection
    // CHECK: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_16b_8r16x1c(%[[BASE]], %cst80_i32, %cst9_i32, %cst80_i32,
    // the store's surface (offset 0) is static and valid: the unguarded builtin in both copies
    // CHECK-NOT: spirv.mlir.selection
    // CHECK: %[[WBASE:.*]] = spirv.Bitcast %{{.*}} : !spirv.ptr<f16, CrossWorkgroup> to !spirv.ptr<i8, CrossWorkgroup>
    // CHECK-NEXT: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_write_16b_8r16x1c(%[[WBASE]], %cst80_i32, %cst9_i32, %cst80_i32,
    // CHECK-NEXT: spirv.Branch ^bb3
    // the slow copy: the load is per-lane only (a loop over its rows: no test of the base left
    // there), the store the builtin
    // CHECK-NEXT: ^bb2:
    // CHECK-NOT: spirv.ConvertPtrToU
    // CHECK-NOT: spirv.FunctionCall
    // CHECK: spirv.mlir.loop {
    // CHECK-NOT: spirv.FunctionCall
    // CHECK: spirv.Load "CrossWorkgroup" %{{.*}} ["Aligned", 2] : f16
    // CHECK-NOT: spirv.FunctionCall
    // CHECK: spirv.mlir.merge
    // CHECK-NEXT: }
    // CHECK-NOT: spirv.FunctionCall
    // CHECK: %[[WBASE2:.*]] = spirv.Bitcast %{{.*}} : !spirv.ptr<f16, CrossWorkgroup> to !spirv.ptr<i8, CrossWorkgroup>
    // CHECK-NEXT: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_write_16b_8r16x1c(%[[WBASE2]], %cst80_i32, %cst9_i32, %cst80_i32,
    // CHECK-NEXT: spirv.Branch ^bb3
    // CHECK: spirv.mlir.merge
    // CHECK-NEXT: }
    // CHECK-NEXT: spirv.Return
    gpu.func @lead(%A: memref<4x9x40xf16>, %b: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %c0 = arith.constant 0 : index
      %t = xegpu.create_nd_tdesc %A[%b, %c0, %c0] {mode = vc} : memref<4x9x40xf16> -> !xegpu.tensor_desc<8x16xf16>
      %v = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
      %u = xegpu.create_nd_tdesc %A[%c0, %c0, %c0] {mode = vc} : memref<4x9x40xf16> -> !xegpu.tensor_desc<8x16xf16>
      xegpu.store_nd %v, %u {mode = vc} : vector<8x16xf16>, !xegpu.tensor_desc<8x16xf16>
      gpu.return
    }
    // a static surface 48 bytes wide breaks the minimum width: per-lane accesses, no builtin
    // CHECK-LABEL: spirv.func @narrow(
    // CHECK-NOT: spirv.FunctionCall
    // CHECK-NOT: spirv.mlir.selection
    // CHECK: spirv.Load "CrossWorkgroup"
    // CHECK-NOT: spirv.FunctionCall
    // CHECK: spirv.Return
    gpu.func @narrow(%A: memref<16x24xf16>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %c0 = arith.constant 0 : index
      %t = xegpu.create_nd_tdesc %A[%c0, %c0] {mode = vc} : memref<16x24xf16> -> !xegpu.tensor_desc<8x16xf16>
      xegpu.prefetch_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf16>
      %v = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
      gpu.return
    }
    // CHECK-LABEL: spirv.func @slm(
    // CHECK: spirv.mlir.selection {
    // CHECK-NOT: @__xe_slm_slm_1
    // CHECK: spirv.Return
    gpu.func @slm(%A: memref<?x?xf16>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1.0 : f32
      %m = memref.dim %A, %c0 : memref<?x?xf16>
      %n = memref.dim %A, %c1 : memref<?x?xf16>
      %s = memref.alloc() : memref<16xf32, 3>
      memref.store %one, %s[%c0] : memref<16xf32, 3>
      %t = xegpu.create_nd_tdesc %A[%c0, %c0], [%m, %n], [%n, %c1] {mode = vc} : memref<?x?xf16> -> !xegpu.tensor_desc<8x16xf16>
      xegpu.prefetch_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf16>
      gpu.return
    }
  }
}
