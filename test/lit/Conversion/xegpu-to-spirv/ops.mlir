// convert-xegpu-to-spirv on each XeGPU op family, for both targets: 2D block load (plain, VNNI,
// transposed), store, prefetch, DPAS, scattered load/store/atomic, named barriers and fences.
// pvc: Intel builtins imported by mangled name (2D block IO, DPAS), split barriers; portable: per-lane
// masked loads with zero fill, masked stores, DPAS as a k loop of shuffles + multiply-adds, work-group
// barriers.
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s --check-prefixes=CHECK,PVC
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable | FileCheck %s --check-prefixes=CHECK,PORT

module attributes {gpu.container_module} {
  func.func @host(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @k::@mma blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%A : memref<64x64xbf16>, %B : memref<64x64xbf16>, %C : memref<64x64xf32>)
    return
  }
  // CHECK-LABEL: gpu.module @k
  // CHECK: spirv.module @__spv__k Physical64 OpenCL requires #spirv.vce<v1.{{[0-9]}}, [
  // PVC-SAME: Linkage
  // PORT-SAME: GroupNonUniformShuffle
  // PORT-SAME: SubgroupDispatch, GroupNonUniform], []>
  // PVC-SAME: xe.kernel_abi = {__arch__ = "pvc", __target__ = "pvc"
  // PORT-SAME: xe.kernel_abi = {__target__ = "portable"
  // PVC: spirv.func @__builtin_intel_sub_group_2d_block_write_32b_8r16x1c({{.*}}) "None" attributes {linkage_attributes = #spirv.linkage_attributes<linkage_name = "_Z42intel_sub_group_2d_block_write_32b_8r16x1cPU3AS1viiiDv2_iPj", linkage_type = <Import>>}
  // PVC: linkage_name = "_Z40intel_sub_group_bf16_bf16_matrix_mad_k16Dv8_sDv8_iDv8_f"
  // PVC: linkage_name = "_Z52intel_sub_group_2d_block_read_transform_16b_16r16x1cPU3AS1viiiDv2_iPj"
  // PVC: linkage_name = "_Z41intel_sub_group_2d_block_read_16b_8r16x1cPU3AS1viiiDv2_iPt"
  // PVC: linkage_name = "_Z45intel_sub_group_2d_block_prefetch_16b_8r16x1cPU3AS1viiiDv2_i"
  // CHECK: spirv.func @mma(%{{.*}}: !spirv.ptr<i16, CrossWorkgroup>, %{{.*}}: !spirv.ptr<i16, CrossWorkgroup>, %{{.*}}: !spirv.ptr<f32, CrossWorkgroup>) "None"
  // PVC:  spirv.FunctionCall @__builtin_intel_sub_group_2d_block_prefetch_16b_8r16x1c
  // PVC:  spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_16b_8r16x1c
  // PVC:  spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_transform_16b_16r16x1c
  // PVC:  spirv.FunctionCall @__builtin_intel_sub_group_bf16_bf16_matrix_mad_k16({{.*}}) : (vector<8xi16>, vector<8xi32>, vector<8xf32>) -> vector<8xf32>
  // PVC:  spirv.FunctionCall @__builtin_intel_sub_group_2d_block_write_32b_8r16x1c
  // PORT-NOT: spirv.FunctionCall
  // blocks statically inside the surface: per-lane loads without a bounds test (blocks at dynamic
  // positions get a branch per element, which the OpenCL CPU compiler makes a masked load: gemm.mlir)
  // PORT-NOT: spirv.mlir.selection
  // PORT: spirv.Load "CrossWorkgroup" %{{.*}} ["Aligned", 2] : i16
  // DPAS: lane n's B column in a private array, a loop over k: A[m, k] shuffled from lane k
  // PORT: spirv.Store "Function" %{{.*}} : f32
  // PORT: spirv.mlir.loop
  // PORT: %[[K:.*]] = spirv.SConvert %{{.*}} : i64 to i32
  // PORT: %[[BP:.*]] = spirv.AccessChain %{{.*}}[%[[K]]] : !spirv.ptr<!spirv.array<16 x f32>, Function>, i32
  // PORT: %[[B:.*]] = spirv.Load "Function" %[[BP]] : f32
  // PORT: spirv.GroupNonUniformShuffle <Subgroup> %{{.*}}, %[[K]] : i16, i32
  // PORT: %[[P:.*]] = spirv.FMul %{{.*}}, %[[B]] : f32
  // PORT: spirv.FAdd %{{.*}}, %[[P]] : f32
  // PORT: spirv.mlir.merge
  // PORT: spirv.Store "CrossWorkgroup" %{{.*}} ["Aligned", 4] : f32
  // CHECK: spirv.EntryPoint "Kernel" @mma
  // CHECK: spirv.ExecutionMode @mma "LocalSize", 16, 1, 1
  // CHECK: spirv.ExecutionMode @mma "SubgroupSize", 16
  // the XeGPU kernel stays for the host's gpu.launch_func
  // CHECK: gpu.func @mma
  gpu.module @k {
    gpu.func @mma(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c0 = arith.constant 0 : index
      %a = xegpu.create_nd_tdesc %A[%c0, %c0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16>
      %b = xegpu.create_nd_tdesc %B[%c0, %c0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16>
      %c = xegpu.create_nd_tdesc %C[%c0, %c0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
      xegpu.prefetch_nd %a {mode = vc, l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<8x16xbf16>
      %va = xegpu.load_nd %a {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
      %vb = xegpu.load_nd %b {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
      %r = xegpu.dpas %va, %vb {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16> -> vector<8x16xf32>
      xegpu.store_nd %r, %c {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      gpu.return
    }
  }

  // CHECK-LABEL: gpu.module @s
  // CHECK: spirv.module @__spv__s
  // CHECK-SAME: AtomicFloat32AddEXT
  // CHECK-SAME: SPV_EXT_shader_atomic_float_add
  // CHECK: spirv.func @scatter(%{{.*}}: !spirv.ptr<f32, CrossWorkgroup>, %{{.*}}: i64) "None"
  // scattered load: loaded where the mask is on, 0 elsewhere
  // CHECK: spirv.mlir.selection
  // CHECK: spirv.PtrAccessChain
  // CHECK: spirv.Load "CrossWorkgroup"
  // CHECK: spirv.Store "Function" %{{.*}}, %cst_f32
  // CHECK: spirv.mlir.selection
  // CHECK: spirv.Store "CrossWorkgroup"
  // CHECK: spirv.EXT.AtomicFAdd <Device> <None>
  // PVC: spirv.INTEL.ControlBarrierArrive <Workgroup> <Workgroup> <Release|WorkgroupMemory|CrossWorkgroupMemory>
  // PVC: spirv.INTEL.ControlBarrierWait <Workgroup> <Workgroup> <Acquire|WorkgroupMemory|CrossWorkgroupMemory>
  // PORT: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory|CrossWorkgroupMemory>
  // CHECK: spirv.MemoryBarrier <Device>, <AcquireRelease|CrossWorkgroupMemory>
  gpu.module @s {
    gpu.func @scatter(%C: memref<64x64xf32>, %n: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %idx = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xindex>
      %nv = vector.broadcast %n : index to vector<16xindex>
      %m = arith.cmpi ult, %idx, %nv : vector<16xindex>
      %t = xegpu.create_tdesc %C, %idx {mode = vc} : memref<64x64xf32>, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
      %v = xegpu.load_gather %t, %m {mode = vc} : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xf32>
      %w = arith.addf %v, %v : vector<16xf32>
      xegpu.store_scatter %w, %t, %m {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1>
      %old = xegpu.atomic_rmw addf %w, %t, %m {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xf32>
      %c2 = arith.constant 2 : i8
      %c0 = arith.constant 0 : i8
      xegpu.alloc_nbarrier %c2 : i8
      %nb = xegpu.create_nbarrier %c0, %c0 {num_producers = 2 : i8, num_consumers = 2 : i8} : i8, i8 -> !xegpu.nbarrier
      xegpu.nbarrier_arrive %nb : !xegpu.nbarrier
      xegpu.nbarrier_wait %nb : !xegpu.nbarrier
      xegpu.mfence {memory_kind = "ugm", fence_op = "none", fence_scope = "gpu"}
      xegpu.compile_hint {hint = "schedule_barrier"}
      gpu.return
    }
  }
}
