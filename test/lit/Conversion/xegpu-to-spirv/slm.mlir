// convert-xegpu-to-spirv on kernels with shared local memory and control flow, as xetile-wg-to-sg
// generates them for exchanges between subgroups (transpose, broadcast, reduce, tile_conv_layout):
// * memref.alloc in memory space 3 and workgroup attributions become Workgroup-storage
//   spirv.GlobalVariables (`__local T x[n]`) with their size in the kernel ABI (slm_bytes);
//   scattered / nd accesses and atomics on them use Workgroup pointers (atomics at work-group
//   scope; never the pvc 2D block builtins, which take global memory);
// * gpu.barrier is a work-group control barrier;
// * scf.if (a subgroup-uniform condition) becomes a selection; yielded vectors are carried as
//   their per-lane registers (the else branch moved to the then branch's layout).
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable | FileCheck %s
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s --check-prefixes=CHECK,PVC
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable --emit=spirv-binary -o %t.spv && FileCheck %s --input-file=%t.spv.json --check-prefix=JSON

// CHECK-LABEL: spirv.module @__spv__k
// CHECK-DAG: spirv.GlobalVariable @__xe_slm_exchange_0 : !spirv.ptr<!spirv.array<32 x i32>, Workgroup>
// CHECK-DAG: spirv.GlobalVariable @__xe_slm_exchange_1 : !spirv.ptr<!spirv.array<512 x f32>, Workgroup>
// CHECK-LABEL: spirv.func @exchange(
// CHECK-DAG: %[[S1:.*]] = spirv.mlir.addressof @__xe_slm_exchange_0
// CHECK-DAG: %[[S0:.*]] = spirv.mlir.addressof @__xe_slm_exchange_1
// CHECK-DAG: %[[P0:.*]] = spirv.AccessChain %[[S0]][%cst0_i32] : !spirv.ptr<!spirv.array<512 x f32>, Workgroup>, i32 -> !spirv.ptr<f32, Workgroup>
// CHECK-DAG: %[[P1:.*]] = spirv.AccessChain %[[S1]][%cst0_i32] : !spirv.ptr<!spirv.array<32 x i32>, Workgroup>, i32 -> !spirv.ptr<i32, Workgroup>
// the subgroup's 16x16 block goes to SLM row by row (scattered stores)
// CHECK: spirv.PtrAccessChain %[[P0]][%{{.*}}] : !spirv.ptr<f32, Workgroup>, i64
// CHECK: spirv.Store "Workgroup" %{{.*}} ["Aligned", 4] : f32
// CHECK: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory|CrossWorkgroupMemory>
// the other subgroup's block comes back with gathers
// CHECK: spirv.Load "Workgroup" %{{.*}} ["Aligned", 4] : f32
// scf.if with a vector result: one Function variable per register, a selection
// CHECK: %[[C:.*]] = spirv.IEqual %{{.*}}, %cst0_i64 : i64
// CHECK: spirv.mlir.selection {
// CHECK:   spirv.BranchConditional %[[C]], ^bb1, ^bb2
// CHECK:   spirv.FAdd
// CHECK:   spirv.Store "Function"
// CHECK:   spirv.FMul
// CHECK:   spirv.Store "Function"
// CHECK: spirv.mlir.merge
// CHECK: spirv.Load "Function"
// the work-group counter: an atomic add at work-group scope under an scf.if without results
// CHECK: %[[C1:.*]] = spirv.IEqual %{{.*}}, %cst1_i64 : i64
// CHECK: spirv.mlir.selection {
// CHECK:   spirv.BranchConditional %[[C1]], ^bb1, ^bb2
// CHECK:   spirv.AtomicIAdd <Workgroup> <None> %{{.*}}, %{{.*}} : !spirv.ptr<i32, Workgroup>
// CHECK: spirv.MemoryBarrier <Workgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: spirv.Store "CrossWorkgroup"
// CHECK: spirv.Return
// CHECK: spirv.EntryPoint "Kernel" @exchange

// JSON: "name": "exchange"
// JSON: "slm_bytes": 2176

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @exchange(%A: memref<32x16xf32>, %B: memref<32x16xf32>) workgroup(%cnt : memref<32xi32, 3>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c256 = arith.constant 256 : index
      %sg = gpu.subgroup_id : index
      %row = arith.muli %sg, %c16 : index
      %slm = memref.alloc() : memref<512xf32, 3>
      %ta = xegpu.create_nd_tdesc %A[%row, %c0] {mode = vc} : memref<32x16xf32> -> !xegpu.tensor_desc<16x16xf32>
      %v = xegpu.load_nd %ta {mode = vc} : !xegpu.tensor_desc<16x16xf32> -> vector<16x16xf32>
      // store this subgroup's block (16 rows of 16) at SLM[row * 16 ...]
      %lane = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xindex>
      %chunk = arith.constant dense<16> : vector<16xindex>
      %base = arith.muli %lane, %chunk : vector<16xindex>
      %off = arith.muli %row, %c16 : index
      %offv = vector.broadcast %off : index to vector<16xindex>
      %addr = arith.addi %base, %offv : vector<16xindex>
      %all = arith.constant dense<true> : vector<16xi1>
      %ts = xegpu.create_tdesc %slm, %addr {mode = vc, chunk_size_per_lane = 16} : memref<512xf32, 3>, vector<16xindex> -> !xegpu.tensor_desc<16x16xf32, #xegpu.tdesc_attr<memory_scope = slm, scattered = true>>
      xegpu.store_scatter %v, %ts, %all {mode = vc} : vector<16x16xf32>, !xegpu.tensor_desc<16x16xf32, #xegpu.tdesc_attr<memory_scope = slm, scattered = true>>, vector<16xi1>
      gpu.barrier
      // read the other subgroup's block
      %other = arith.subi %c256, %off : index
      %otherv = vector.broadcast %other : index to vector<16xindex>
      %oaddr = arith.addi %base, %otherv : vector<16xindex>
      %to = xegpu.create_tdesc %slm, %oaddr {mode = vc, chunk_size_per_lane = 16} : memref<512xf32, 3>, vector<16xindex> -> !xegpu.tensor_desc<16x16xf32, #xegpu.tdesc_attr<memory_scope = slm, scattered = true>>
      %w = xegpu.load_gather %to, %all {mode = vc} : !xegpu.tensor_desc<16x16xf32, #xegpu.tdesc_attr<memory_scope = slm, scattered = true>>, vector<16xi1> -> vector<16x16xf32>
      %first = arith.cmpi eq, %sg, %c0 : index
      %r = scf.if %first -> (vector<16x16xf32>) {
        %s = arith.addf %v, %w : vector<16x16xf32>
        scf.yield %s : vector<16x16xf32>
      } else {
        %p = arith.mulf %v, %w : vector<16x16xf32>
        scf.yield %p : vector<16x16xf32>
      }
      %ones = arith.constant dense<1> : vector<16xi32>
      %tc = xegpu.create_tdesc %cnt, %lane {mode = vc} : memref<32xi32, 3>, vector<16xindex> -> !xegpu.tensor_desc<16xi32, #xegpu.tdesc_attr<memory_scope = slm, scattered = true>>
      %c1 = arith.constant 1 : index
      %second = arith.cmpi eq, %sg, %c1 : index
      scf.if %second {
        %old = xegpu.atomic_rmw addi %ones, %tc, %all {mode = vc} : vector<16xi32>, !xegpu.tensor_desc<16xi32, #xegpu.tdesc_attr<memory_scope = slm, scattered = true>>, vector<16xi1> -> vector<16xi32>
        scf.yield
      }
      xegpu.mfence {memory_kind = "slm", fence_op = "none", fence_scope = "group"}
      %tb = xegpu.create_nd_tdesc %B[%row, %c0] {mode = vc} : memref<32x16xf32> -> !xegpu.tensor_desc<16x16xf32>
      xegpu.store_nd %r, %tb {mode = vc} : vector<16x16xf32>, !xegpu.tensor_desc<16x16xf32>
      memref.dealloc %slm : memref<512xf32, 3>
      gpu.return
    }
  }

  // nd descriptors on shared local memory: per-lane accesses to the Workgroup variable on both
  // targets (the 2D block builtins take global memory)
  // CHECK-LABEL: spirv.module @__spv__n
  // CHECK: spirv.GlobalVariable @__xe_slm_slm_nd_0 : !spirv.ptr<!spirv.array<256 x f32>, Workgroup>
  // CHECK-LABEL: spirv.func @slm_nd(
  // CHECK-NOT: spirv.FunctionCall
  // CHECK: spirv.Store "Workgroup"
  // CHECK-NOT: spirv.FunctionCall
  // CHECK: spirv.ControlBarrier
  // CHECK-NOT: spirv.FunctionCall
  // CHECK: spirv.Load "Workgroup"
  // CHECK-NOT: spirv.FunctionCall
  // CHECK: spirv.Return
  gpu.module @n {
    gpu.func @slm_nd(%A: memref<16xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %c0 = arith.constant 0 : index
      %slm = memref.alloc() : memref<16x16xf32, 3>
      %t = xegpu.create_nd_tdesc %slm[%c0, %c0] {mode = vc} : memref<16x16xf32, 3> -> !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<memory_scope = slm>>
      %v = arith.constant dense<2.0> : vector<8x16xf32>
      xegpu.prefetch_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<memory_scope = slm>>
      xegpu.store_nd %v, %t {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<memory_scope = slm>>
      gpu.barrier
      %w = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<memory_scope = slm>> -> vector<8x16xf32>
      %r = vector.extract %w[0] : vector<16xf32> from vector<8x16xf32>
      %lane = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xindex>
      %all = arith.constant dense<true> : vector<16xi1>
      %ta = xegpu.create_tdesc %A, %lane {mode = vc} : memref<16xf32>, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
      xegpu.store_scatter %r, %ta, %all {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1>
      gpu.return
    }
  }
}
