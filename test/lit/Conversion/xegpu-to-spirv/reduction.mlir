// vector.multi_reduction / vector.reduction (what convert-xetile-to-xegpu makes of xetile.tile_reduce),
// on both targets. Per output element each lane first combines the registers holding its elements;
// elements spread over lanes are then combined by a subgroup reduction (GroupNonUniform<Op> Reduce,
// lanes without elements contributing the identity), which leaves the value in every lane. The
// result takes the accumulator's layout and is combined with it last (reduce, then acc).
// bf16/f16 reduce in f32, i8/i16 in i32 (zero-extended for the unsigned kinds).
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable | FileCheck %s
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s

// CHECK: spirv.module @__spv__k Physical64 OpenCL requires #spirv.vce<v1.{{[0-9]}}, [{{.*}}GroupNonUniformArithmetic
gpu.module @k {
  // rows of an 8x16 block (column l in lane l), as convert-xetile-to-xegpu chains them: the first
  // column (lane 0) is the accumulator, so the other 15 lanes reduce (lane 0 masked to 0.0); then
  // the whole block row onto that result: no mask
  // CHECK-LABEL: spirv.func @rows(
  // CHECK: %[[M:.*]] = spirv.Select %{{.*}}, %[[R0:[0-9]+]], %cst_f32 : i1, f32
  // CHECK: %[[G:.*]] = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %[[M]] : f32 -> f32
  // CHECK: %[[A:.*]] = spirv.FAdd %[[G]], %[[R0]] : f32
  // CHECK-COUNT-7: spirv.GroupNonUniformFAdd <Subgroup> <Reduce>
  // CHECK-NOT: spirv.Select
  // CHECK: %[[G2:.*]] = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %[[R0]] : f32 -> f32
  // CHECK: spirv.FAdd %[[G2]], %[[A]] : f32
  // CHECK-COUNT-7: spirv.GroupNonUniformFAdd <Subgroup> <Reduce>
  // CHECK: spirv.Return
  gpu.func @rows(%A: memref<64x64xf32>, %O: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
    %t = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %c0 = vector.extract_strided_slice %v {offsets = [0, 0], sizes = [8, 1], strides = [1, 1]} : vector<8x16xf32> to vector<8x1xf32>
    %a0 = vector.shape_cast %c0 : vector<8x1xf32> to vector<8xf32>
    %rest = vector.extract_strided_slice %v {offsets = [0, 1], sizes = [8, 15], strides = [1, 1]} : vector<8x16xf32> to vector<8x15xf32>
    %r1 = vector.multi_reduction <add>, %rest, %a0 [1] : vector<8x15xf32> to vector<8xf32>
    %r2 = vector.multi_reduction <add>, %v, %r1 [1] : vector<8x16xf32> to vector<8xf32>
    %r = vector.shape_cast %r2 : vector<8xf32> to vector<1x8xf32>
    %o = xegpu.create_nd_tdesc %O[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<1x8xf32>
    xegpu.store_nd %r, %o {mode = vc} : vector<1x8xf32>, !xegpu.tensor_desc<1x8xf32>
    gpu.return
  }

  // columns: every lane reduces its own column, register by register; no subgroup operation
  // CHECK-LABEL: spirv.func @columns(
  // CHECK-NOT: spirv.GroupNonUniform
  // CHECK-COUNT-7: spirv.CL.fmax %{{.*}}, %{{.*}} : f32
  // CHECK-NEXT: spirv.CL.fmax %{{.*}}, %cst_f32 : f32
  // CHECK-NOT: spirv.GroupNonUniform
  // CHECK: spirv.Return
  gpu.func @columns(%A: memref<64x64xf32>, %O: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
    %t = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %z = arith.constant dense<0xFF800000> : vector<16xf32>
    %r = vector.multi_reduction <maxnumf>, %v, %z [0] : vector<8x16xf32> to vector<16xf32>
    %r2 = vector.shape_cast %r : vector<16xf32> to vector<1x16xf32>
    %o = xegpu.create_nd_tdesc %O[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<1x16xf32>
    xegpu.store_nd %r2, %o {mode = vc} : vector<1x16xf32>, !xegpu.tensor_desc<1x16xf32>
    gpu.return
  }

  // a full bf16 reduction: per lane 8 products in f32, then one subgroup product, rounded to bf16 once
  // CHECK-LABEL: spirv.func @full(
  // CHECK: spirv.ShiftLeftLogical %{{.*}}, %cst16_i32 : i32, i32
  // CHECK-COUNT-7: spirv.FMul %{{.*}}, %{{.*}} : f32
  // CHECK: spirv.GroupNonUniformFMul <Subgroup> <Reduce> %{{.*}} : f32 -> f32
  // CHECK: spirv.Return
  gpu.func @full(%A: memref<64x64xbf16>, %O: memref<64x64xbf16>) kernel attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
    %t = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16>
    %v = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
    %s = vector.shape_cast %v : vector<8x16xbf16> to vector<128xbf16>
    %r = vector.reduction <mul>, %s : vector<128xbf16> into bf16
    %b = vector.broadcast %r : bf16 to vector<1x16xbf16>
    %o = xegpu.create_nd_tdesc %O[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<1x16xbf16>
    xegpu.store_nd %b, %o {mode = vc} : vector<1x16xbf16>, !xegpu.tensor_desc<1x16xbf16>
    gpu.return
  }

  // i8 rows with a splat accumulator (row i in lane i): one unsigned subgroup minimum per row, in
  // i32, the results selected into their lanes; then a xor over the 8 lanes holding the rows
  // CHECK-LABEL: spirv.func @ints(
  // CHECK: %[[X:.*]] = spirv.UConvert %{{.*}} : i8 to i32
  // CHECK: spirv.GroupNonUniformUMin <Subgroup> <Reduce> %[[X]] : i32 -> i32
  // CHECK-COUNT-7: spirv.GroupNonUniformUMin <Subgroup> <Reduce>
  // CHECK: spirv.SConvert %{{.*}} : i32 to i8
  // CHECK: %[[S:.*]] = spirv.SConvert %{{.*}} : i8 to i32
  // CHECK: %[[M:.*]] = spirv.Select %{{.*}}, %[[S]], %cst0_i32 : i1, i32
  // CHECK: spirv.GroupNonUniformBitwiseXor <Subgroup> <Reduce> %[[M]] : i32 -> i32
  // CHECK: spirv.Return
  gpu.func @ints(%A: memref<64x64xi8>, %O: memref<64x64xi8>) kernel attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
    %t = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xi8> -> !xegpu.tensor_desc<8x16xi8>
    %v = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xi8> -> vector<8x16xi8>
    %z = arith.constant dense<-1> : vector<8xi8>
    %r = vector.multi_reduction <minui>, %v, %z [1] : vector<8x16xi8> to vector<8xi8>
    %x = arith.constant 0 : i8
    %a = vector.reduction <xor>, %r, %x : vector<8xi8> into i8
    %b = vector.broadcast %a : i8 to vector<1x16xi8>
    %o = xegpu.create_nd_tdesc %O[0, 0] {mode = vc} : memref<64x64xi8> -> !xegpu.tensor_desc<1x16xi8>
    xegpu.store_nd %b, %o {mode = vc} : vector<1x16xi8>, !xegpu.tensor_desc<1x16xi8>
    gpu.return
  }

  // maximumf across lanes: GroupNonUniformFMax skips NaNs, so a subgroup "any NaN" (UMax of a flag)
  // selects NaN; the per-lane maximumf propagate NaNs themselves (upstream arith-expand: an unordered
  // greater-than select, then the right operand if it is NaN)
  // CHECK-LABEL: spirv.func @max_nan(
  // CHECK-COUNT-7: spirv.FUnordGreaterThan
  // CHECK: %[[G:.*]] = spirv.GroupNonUniformFMax <Subgroup> <Reduce> %[[P:[0-9]+]] : f32 -> f32
  // CHECK-NEXT: %[[U:.*]] = spirv.Unordered %[[P]], %[[P]] : f32
  // CHECK: %[[F:.*]] = spirv.Select %[[U]], %cst1_i32, %cst0_i32 : i1, i32
  // CHECK-NEXT: %[[ANY:.*]] = spirv.GroupNonUniformUMax <Subgroup> <Reduce> %[[F]] : i32 -> i32
  // CHECK: %[[NE:.*]] = spirv.INotEqual %[[ANY]], %cst0_i32 : i32
  // CHECK-NEXT: spirv.Select %[[NE]], %cst_f32, %[[G]] : i1, f32
  // CHECK: spirv.Return
  gpu.func @max_nan(%A: memref<64x64xf32>, %O: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
    %t = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %s = vector.shape_cast %v : vector<8x16xf32> to vector<128xf32>
    %r = vector.reduction <maximumf>, %s : vector<128xf32> into f32
    %b = vector.broadcast %r : f32 to vector<1x16xf32>
    %o = xegpu.create_nd_tdesc %O[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<1x16xf32>
    xegpu.store_nd %b, %o {mode = vc} : vector<1x16xf32>, !xegpu.tensor_desc<1x16xf32>
    gpu.return
  }

  // everything in one lane (a column slice): the lane combines its registers and a shuffle from
  // that lane gives the scalar to every lane
  // CHECK-LABEL: spirv.func @one_lane(
  // CHECK-NOT: spirv.GroupNonUniformIAdd
  // CHECK-COUNT-7: spirv.IAdd %{{.*}}, %{{.*}} : i32
  // CHECK: spirv.GroupNonUniformShuffle <Subgroup> %{{.*}}, %cst3_i32 : i32, i32
  // CHECK: spirv.Return
  gpu.func @one_lane(%A: memref<64x64xi32>, %O: memref<64x64xi32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
    %t = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xi32> -> !xegpu.tensor_desc<8x16xi32>
    %v = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xi32> -> vector<8x16xi32>
    %c = vector.extract_strided_slice %v {offsets = [0, 3], sizes = [8, 1], strides = [1, 1]} : vector<8x16xi32> to vector<8x1xi32>
    %z = arith.constant 0 : i32
    %r = vector.multi_reduction <add>, %c, %z [0, 1] : vector<8x1xi32> to i32
    %b = vector.broadcast %r : i32 to vector<1x16xi32>
    %o = xegpu.create_nd_tdesc %O[0, 0] {mode = vc} : memref<64x64xi32> -> !xegpu.tensor_desc<1x16xi32>
    xegpu.store_nd %b, %o {mode = vc} : vector<1x16xi32>, !xegpu.tensor_desc<1x16xi32>
    gpu.return
  }
}
