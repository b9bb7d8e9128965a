// A whole XeVM-level GEMM, as upstream LLVM 22's XeVM integration programs are written: raw global
// pointers (!llvm.ptr<1>) made on the host from memrefs' aligned pointers (C 8x32 += A 8x32 x B 32x32,
// f16 -> f32). Two subgroups, each its 8x16 tile of C at column 16 * gpu.subgroup_id; per lane: a K
// loop of two steps with a 2D block prefetch of the next A block, 2D block loads of A (8x16) and of B
// with the VNNI transform (pack_register: 16x16 f16 as 8 x i32), xevm.mma; a memory fence, the 2D
// block load and store of C (accumulated from its initial values). Imported into our SIMT XeGPU,
// simulated, and compared with the host's own loops.
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// CHECK: [ALLCLOSE: TRUE]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @gemm(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %a_w = arith.constant 64 : i32     // A: 8 x 32 f16, 64 bytes a row
      %a_h = arith.constant 8 : i32
      %b_w = arith.constant 64 : i32     // B: 32 x 32 f16, 64 bytes a row
      %b_h = arith.constant 32 : i32
      %c_w = arith.constant 128 : i32    // C: 8 x 32 f32, 128 bytes a row
      %c_h = arith.constant 8 : i32
      %zero = arith.constant 0 : i32
      %c16 = arith.constant 16 : i32
      %sg = gpu.subgroup_id : index
      %sg32 = arith.index_cast %sg : index to i32
      %col = arith.muli %sg32, %c16 : i32
      %acc0 = xevm.blockload2d %c, %c_w, %c_h, %c_w, %col, %zero <{elem_size_in_bits=32 : i32, tile_width=16 : i32, tile_height=8 : i32, v_blocks=1 : i32, transpose=false, pack_register=false}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32) -> vector<8xi32>
      %accf = vector.bitcast %acc0 : vector<8xi32> to vector<8xf32>
      %res = scf.for %kk = %c0 to %c2 step %c1 iter_args(%acc = %accf) -> (vector<8xf32>) {
        %k32 = arith.index_cast %kk : index to i32
        %k = arith.muli %k32, %c16 : i32
        %next = arith.addi %k, %c16 : i32
        xevm.blockprefetch2d %a, %a_w, %a_h, %a_w, %next, %zero <{elem_size_in_bits=16 : i32, tile_width=16 : i32, tile_height=8 : i32, v_blocks=1 : i32, cache_control=#xevm.load_cache_control<L1c_L2c_L3c>}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32)
        %va = xevm.blockload2d %a, %a_w, %a_h, %a_w, %k, %zero <{elem_size_in_bits=16 : i32, tile_width=16 : i32, tile_height=8 : i32, v_blocks=1 : i32, transpose=false, pack_register=false}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32) -> vector<8xi16>
        %vb = xevm.blockload2d %b, %b_w, %b_h, %b_w, %col, %k <{elem_size_in_bits=16 : i32, tile_width=16 : i32, tile_height=16 : i32, v_blocks=1 : i32, transpose=false, pack_register=true}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32) -> vector<8xi32>
        %d = xevm.mma %va, %vb, %acc {shape=<m=8, n=16, k=16>, types=<d=f32, a=f16, b=f16, c=f32>} : (vector<8xi16>, vector<8xi32>, vector<8xf32>) -> vector<8xf32>
        scf.yield %d : vector<8xf32>
      }
      xevm.memfence <{scope = #xevm.mem_scope<workgroup>, addrspace = #xevm.addr_space<global>}>
      %out = vector.bitcast %res : vector<8xf32> to vector<8xi32>
      xevm.blockstore2d %c, %c_w, %c_h, %c_w, %col, %zero, %out <{elem_size_in_bits=32 : i32, tile_width=16 : i32, tile_height=8 : i32, cache_control=#xevm.store_cache_control<L1wb_L2uc_L3wb>}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32, vector<8xi32>)
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %A = memref.alloc() : memref<8x32xf16>
    %B = memref.alloc() : memref<32x32xf16>
    %C = memref.alloc() : memref<8x32xf32>
    %R = memref.alloc() : memref<8x32xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %k = %c0 to %c32 step %c1 {
        %s = arith.addi %i, %k : index
        %m = arith.remui %s, %c7 : index
        %n = arith.index_cast %m : index to i32
        %f = arith.sitofp %n : i32 to f16
        memref.store %f, %A[%i, %k] : memref<8x32xf16>
      }
    }
    scf.for %k = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %s = arith.muli %k, %j : index
        %s2 = arith.addi %s, %k : index
        %m = arith.remui %s2, %c7 : index
        %n = arith.index_cast %m : index to i32
        %f = arith.sitofp %n : i32 to f16
        memref.store %f, %B[%k, %j] : memref<32x32xf16>
      }
    }
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %n = arith.index_cast %j : index to i32
        %f = arith.sitofp %n : i32 to f32
        memref.store %f, %C[%i, %j] : memref<8x32xf32>
        %acc = scf.for %k = %c0 to %c32 step %c1 iter_args(%x = %f) -> (f32) {
          %av = memref.load %A[%i, %k] : memref<8x32xf16>
          %bv = memref.load %B[%k, %j] : memref<32x32xf16>
          %ae = arith.extf %av : f16 to f32
          %be = arith.extf %bv : f16 to f32
          %p = arith.mulf %ae, %be : f32
          %y = arith.addf %x, %p : f32
          scf.yield %y : f32
        }
        memref.store %acc, %R[%i, %j] : memref<8x32xf32>
      }
    }
    %gA = gpu.alloc () : memref<8x32xf16>
    %gB = gpu.alloc () : memref<32x32xf16>
    %gC = gpu.alloc () : memref<8x32xf32>
    gpu.memcpy %gA, %A : memref<8x32xf16>, memref<8x32xf16>
    gpu.memcpy %gB, %B : memref<32x32xf16>, memref<32x32xf16>
    gpu.memcpy %gC, %C : memref<8x32xf32>, memref<8x32xf32>
    %ia = memref.extract_aligned_pointer_as_index %gA : memref<8x32xf16> -> index
    %ja = arith.index_cast %ia : index to i64
    %pa0 = llvm.inttoptr %ja : i64 to !llvm.ptr
    %pa = llvm.addrspacecast %pa0 : !llvm.ptr to !llvm.ptr<1>
    %ib = memref.extract_aligned_pointer_as_index %gB : memref<32x32xf16> -> index
    %jb = arith.index_cast %ib : index to i64
    %pb0 = llvm.inttoptr %jb : i64 to !llvm.ptr
    %pb = llvm.addrspacecast %pb0 : !llvm.ptr to !llvm.ptr<1>
    %ic = memref.extract_aligned_pointer_as_index %gC : memref<8x32xf32> -> index
    %jc = arith.index_cast %ic : index to i64
    %pc0 = llvm.inttoptr %jc : i64 to !llvm.ptr
    %pc = llvm.addrspacecast %pc0 : !llvm.ptr to !llvm.ptr<1>
    gpu.launch_func @kernels::@gemm blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%pa : !llvm.ptr<1>, %pb : !llvm.ptr<1>, %pc : !llvm.ptr<1>)
    gpu.memcpy %C, %gC : memref<8x32xf32>, memref<8x32xf32>
    %uC = memref.cast %C : memref<8x32xf32> to memref<*xf32>
    %uR = memref.cast %R : memref<8x32xf32> to memref<*xf32>
    call @printAllcloseF32(%uC, %uR) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>) attributes {llvm.emit_c_interface}
}
