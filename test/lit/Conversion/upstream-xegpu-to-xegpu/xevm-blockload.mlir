// xevm.blockload / xevm.blockstore (subgroup block read / write on a raw pointer, lane level): value
// i of lane l is element l + 16 i; imported as one SIMT create_tdesc on the pointer's address at
// offset lane + 16 i and a load_gather / store_scatter of one element per value (a scalar value: one).
// xevm.prefetch (each lane's pointer): a SIMT scattered prefetch of the byte at the lane's address.
// Run: lane l reads elements l and l + 16 of row 0 (i32) and writes them swapped.
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s --check-prefix=IMPORT
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// IMPORT:      %[[PA:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// IMPORT-NEXT: %[[Z:.*]] = arith.constant 0 : index
// IMPORT-NEXT: %[[PT:.*]] = xegpu.create_tdesc %[[PA]], %[[Z]] : i64, index -> !xegpu.tensor_desc<16xi8, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// IMPORT-NEXT: xegpu.prefetch %[[PT]] {l1_hint = cached, l2_hint = cached, l3_hint = cached}
// IMPORT-NEXT: %[[ADDR:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// IMPORT-NEXT: %[[LANE:.*]] = gpu.lane_id
// IMPORT-NEXT: %[[T0:.*]] = xegpu.create_tdesc %[[ADDR]], %[[LANE]] : i64, index -> !xegpu.tensor_desc<16xi32, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// IMPORT-NEXT: %[[C16:.*]] = arith.constant 16 : index
// IMPORT-NEXT: %[[O1:.*]] = arith.addi %[[LANE]], %[[C16]] : index
// IMPORT-NEXT: %[[T1:.*]] = xegpu.create_tdesc %[[ADDR]], %[[O1]]
// IMPORT-NEXT: %[[TRUE:.*]] = arith.constant true
// IMPORT-NEXT: %[[X0:.*]] = xegpu.load_gather %[[T0]], %[[TRUE]] {l1_hint = cached, l2_hint = cached, l3_hint = uncached} : {{.*}}, i1 -> i32
// IMPORT-NEXT: %[[X1:.*]] = xegpu.load_gather %[[T1]], %[[TRUE]]
// IMPORT-NEXT: vector.from_elements %[[X0]], %[[X1]] : vector<2xi32>
// IMPORT:      xegpu.store_scatter %{{.*}}, %{{.*}}, %{{.*}} : i32, !xegpu.tensor_desc<16xi32
// CHECK: [16,  17,  18,  19,  20,  21,  22,  23,  24,  25,  26,  27,  28,  29,  30,  31,  0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,  11,  12,  13,  14,  15]

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @swap(%s: !llvm.ptr<1>, %d: !llvm.ptr<1>) kernel {
      xevm.prefetch %s <{cache_control = #xevm.load_cache_control<L1c_L2c_L3c>}> : (!llvm.ptr<1>)
      %v = xevm.blockload %s <{cache_control = #xevm.load_cache_control<L1c_L2c_L3uc>}> : (!llvm.ptr<1>) -> vector<2xi32>
      %a = vector.extract %v[0] : i32 from vector<2xi32>
      %b = vector.extract %v[1] : i32 from vector<2xi32>
      %w = vector.from_elements %b, %a : vector<2xi32>
      xevm.blockstore %d, %w : (!llvm.ptr<1>, vector<2xi32>)
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %S = memref.alloc() : memref<32xi32>
    scf.for %i = %c0 to %c32 step %c1 {
      %n = arith.index_cast %i : index to i32
      memref.store %n, %S[%i] : memref<32xi32>
    }
    %gs = gpu.alloc () : memref<32xi32>
    %gd = gpu.alloc () : memref<32xi32>
    gpu.memcpy %gs, %S : memref<32xi32>, memref<32xi32>
    %is = memref.extract_aligned_pointer_as_index %gs : memref<32xi32> -> index
    %id = memref.extract_aligned_pointer_as_index %gd : memref<32xi32> -> index
    %js = arith.index_cast %is : index to i64
    %jd = arith.index_cast %id : index to i64
    %ps = llvm.inttoptr %js : i64 to !llvm.ptr<1>
    %pd = llvm.inttoptr %jd : i64 to !llvm.ptr<1>
    gpu.launch_func @k::@swap blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%ps : !llvm.ptr<1>, %pd : !llvm.ptr<1>)
    %D = memref.alloc() : memref<32xi32>
    gpu.memcpy %D, %gd : memref<32xi32>, memref<32xi32>
    %u = memref.cast %D : memref<32xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    return
  }
  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}
}
