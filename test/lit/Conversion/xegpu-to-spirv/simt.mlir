// Lane-level (SIMT-mode) XeGPU -> SPIR-V: a work-item is a lane, so each value is the work-item's own
// fragment. Block loads / stores and dpas of sg_map fragments become the same Intel builtins as the
// VC-mode lowering (pvc): A in the builtins' lane order straight from its load (no shuffle), B with
// the VNNI transform read, C by the block write; portable: per-lane loads and the k loop. Per-lane
// ops (scattered accesses on a raw pointer, gpu.shuffle, gpu.subgroup_reduce, a dynamic extract from
// or insert into the work-item's vector) map one to one. docs/spirv.md "Lane-level kernels".
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s --check-prefix=PVC
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable | FileCheck %s --check-prefix=PORT
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc --emit=spirv-binary -o %t.spv && FileCheck %s --input-file=%t.spv.json --check-prefix=JSON

// PVC-LABEL: spirv.func @gemm
// PVC-NOT:     GroupNonUniformShuffle
// PVC:         spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_16b_8r16x1c
// PVC:         spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_transform_16b_16r16x1c
// PVC-NOT:     GroupNonUniformShuffle
// PVC:         spirv.FunctionCall @__builtin_intel_sub_group_f16_f16_matrix_mad_k16
// PVC-NOT:     GroupNonUniformShuffle
// PVC:         spirv.FunctionCall @__builtin_intel_sub_group_2d_block_write_32b_8r16x1c
// PVC:         spirv.Return

// PORT-LABEL: spirv.func @gemm
// PORT-NOT:     intel_sub_group
// PORT:         spirv.Load "CrossWorkgroup"
// PORT:         spirv.mlir.loop
// PORT:         spirv.Store "CrossWorkgroup"
// PORT:         spirv.Return

// PVC-LABEL: spirv.func @parts(%arg0: !spirv.ptr<i8, CrossWorkgroup>, %arg1: !spirv.ptr<f32, CrossWorkgroup>, %arg2: i64)
// PVC:         %[[LANE:.*]] = spirv.Load "Input" %__builtin__SubgroupLocalInvocationId___addr : i32
// PVC:         %[[L64:.*]] = spirv.UConvert %[[LANE]] : i32 to i64
// PVC:         %[[L32:.*]] = spirv.SConvert %[[L64]] : i64 to i32
// PVC:         %[[PTR:.*]] = spirv.PtrAccessChain %arg0[%arg2] : !spirv.ptr<i8, CrossWorkgroup>, i64
// PVC:         %[[P:.*]] = spirv.ConvertPtrToU %[[PTR]] : !spirv.ptr<i8, CrossWorkgroup> to i64
// PVC:         %[[Q:.*]] = spirv.ConvertUToPtr %[[P]] : i64 to !spirv.ptr<f32, CrossWorkgroup>
// PVC:         %[[A:.*]] = spirv.PtrAccessChain %[[Q]][%[[L64]]]
// PVC:         %[[X:.*]] = spirv.Load "CrossWorkgroup" %[[A]] ["Aligned", 4] : f32
// PVC:         %[[XOR:.*]] = spirv.BitwiseXor %[[L32]], %{{.*}} : i32
// PVC:         %[[OK:.*]] = spirv.ULessThan %[[XOR]], %{{.*}} : i32
// PVC:         %[[SRC:.*]] = spirv.Select %[[OK]], %[[XOR]], %[[L32]] : i1, i32
// PVC:         %[[Y:.*]] = spirv.GroupNonUniformShuffle <Subgroup> %[[X]], %[[SRC]] : f32, i32
// PVC:         %[[S:.*]] = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %[[Y]] : f32 -> f32
// PVC:         %[[I:.*]] = spirv.UMod %[[L64]], %{{.*}} : i64
// PVC:         %[[E1:.*]] = spirv.Select %{{.*}}, %[[Y]], %[[X]] : i1, f32
// PVC:         %[[E2:.*]] = spirv.Select %{{.*}}, %[[S]], %[[E1]] : i1, f32
// PVC:         %[[O:.*]] = spirv.PtrAccessChain %arg1[%[[L64]]]
// PVC:         spirv.Store "CrossWorkgroup" %[[O]], %[[E2]]

// IMEX's kernels take memref<..., 1> arguments cast to the default space (the same buffer); a dynamic
// insert into the work-item's vector selects per register.
// PORT-LABEL: spirv.func @cast_insert(%arg0: !spirv.ptr<f32, CrossWorkgroup>)
// PORT:         %[[L64:.*]] = spirv.UConvert %{{.*}} : i32 to i64
// PORT:         %[[A:.*]] = spirv.PtrAccessChain %arg0[%[[L64]]]
// PORT:         %[[X:.*]] = spirv.Load "CrossWorkgroup" %[[A]]
// PORT:         %[[I:.*]] = spirv.UMod %[[L64]], %{{.*}} : i64
// PORT:         %[[AT1:.*]] = spirv.IEqual %[[I]], %{{.*}} : i64
// PORT:         %[[E:.*]] = spirv.Select %[[AT1]], %[[X]], %{{.*}} : i1, f32
// PORT:         spirv.Store "CrossWorkgroup" %[[A]], %[[E]]

// A raw pointer argument is "pointer" in the launch metadata: the host passes the buffer it points into
// and, appended, the byte offset it points at (the kernel adds it: the PtrAccessChain before the
// ConvertPtrToU above).
// JSON:      "element_type": "i8",
// JSON-NEXT: "kind": "pointer",
// JSON-NEXT: "name": "arg0"
// JSON:      "element_type": "i64",
// JSON-NEXT: "kind": "scalar",
// JSON-NEXT: "name": "arg0_offset",
// JSON-NEXT: "offset_of": [
// JSON-NEXT:   0
// JSON-NEXT: ]
// JSON:      "name": "parts"

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @gemm(%A: memref<8x32xf16>, %B: memref<16x32xf16>, %C: memref<8x16xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %ta = xegpu.create_nd_tdesc %A[0, 0] : memref<8x32xf16> -> !xegpu.tensor_desc<8x16xf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
      %tb = xegpu.create_nd_tdesc %B[0, 0] : memref<16x32xf16> -> !xegpu.tensor_desc<16x16xf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [2, 1]>>>
      %tc = xegpu.create_nd_tdesc %C[0, 0] : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
      %a = xegpu.load_nd %ta : !xegpu.tensor_desc<8x16xf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>> -> vector<8x1xf16>
      %b = xegpu.load_nd %tb {vnni_axis = 0} : !xegpu.tensor_desc<16x16xf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [2, 1]>>> -> vector<8x1x2xf16>
      %d = xegpu.dpas %a, %b : vector<8x1xf16>, vector<8x1x2xf16> -> vector<8x1xf32>
      xegpu.store_nd %d, %tc : vector<8x1xf32>, !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
      gpu.return
    }
  }
  gpu.module @lane {
    gpu.func @parts(%p: !llvm.ptr<1>, %o: memref<16xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %a = llvm.ptrtoint %p : !llvm.ptr<1> to i64
      %lane = gpu.lane_id
      %t = xegpu.create_tdesc %a, %lane : i64, index -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
      %true = arith.constant true
      %x = xegpu.load_gather %t, %true : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>, i1 -> f32
      %c1 = arith.constant 1 : i32
      %c16 = arith.constant 16 : i32
      %y, %ok = gpu.shuffle xor %x, %c1, %c16 : f32
      %s = gpu.subgroup_reduce add %y : (f32) -> f32
      %v = vector.from_elements %x, %y, %s : vector<3xf32>
      %c3 = arith.constant 3 : index
      %i = arith.remui %lane, %c3 : index
      %e = vector.extract %v[%i] : f32 from vector<3xf32>
      %to = xegpu.create_tdesc %o, %lane : memref<16xf32>, index -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
      xegpu.store_scatter %e, %to, %true : f32, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>, i1
      gpu.return
    }
  }
  gpu.module @imex {
    gpu.func @cast_insert(%a: memref<16xf32, 1>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %g = memref.memory_space_cast %a : memref<16xf32, 1> to memref<16xf32>
      %lane = gpu.lane_id
      %true = arith.constant true
      %t = xegpu.create_tdesc %g, %lane : memref<16xf32>, index -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
      %x = xegpu.load_gather %t, %true : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>, i1 -> f32
      %z = arith.constant dense<0.0> : vector<2xf32>
      %c2 = arith.constant 2 : index
      %i = arith.remui %lane, %c2 : index
      %v = vector.insert %x, %z [%i] : f32 into vector<2xf32>
      %e = vector.extract %v[1] : f32 from vector<2xf32>
      xegpu.store_scatter %e, %t, %true : f32, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>, i1
      gpu.return
    }
  }
}
