// xevm.blockload2d's other forms, run: a transposed 32-bit load (tile 8 wide, 16 high: lane l gets
// row l of the block, i.e. column l of its transpose) stored back as an 8x16 block is the transpose;
// a v_blocks = 2 load of 16-bit 8x16 blocks gives each lane block 0's column then block 1's (the two
// halves, stored swapped, rotate the rows by 16).
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s --check-prefix=IMPORT
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// IMPORT: xegpu.load_nd %{{.*}} {transpose = [1, 0]} : !xegpu.tensor_desc<16x8xi32, #xegpu.tdesc_attr<sg_map = <wi_layout = [16, 1], wi_data = [1, 1]>>> -> vector<1x8xi32>
// IMPORT: xegpu.create_nd_tdesc %{{.*}}[%{{.*}}, %[[X1:.*]]], {{.*}} : i64 -> !xegpu.tensor_desc<8x16xi16
// IMPORT: vector.insert %{{.*}}, %{{.*}} [1] : vector<8x1xi16> into vector<2x8x1xi16>
// IMPORT: vector.shape_cast %{{.*}} : vector<2x8x1xi16> to vector<16xi16>
// CHECK:      [0,   8,   16,   24,   32,   40,   48,   56,   64,   72,   80,   88,   96,   104,   112,   120],
// CHECK-NEXT: [1,   9,   17,   25,   33,   41,   49,   57,   65,   73,   81,   89,   97,   105,   113,   121],
// CHECK:      [16,   17,   18,   19,   20,   21,   22,   23,   24,   25,   26,   27,   28,   29,   30,   31,   0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,   11,   12,   13,   14,   15],
// CHECK-NEXT: [48,   49,

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @forms(%s32: !llvm.ptr<1>, %d32: !llvm.ptr<1>, %s16: !llvm.ptr<1>, %d16: !llvm.ptr<1>) kernel {
      %z = arith.constant 0 : i32
      %c8 = arith.constant 8 : i32
      %c16 = arith.constant 16 : i32
      %c32 = arith.constant 32 : i32
      %c64 = arith.constant 64 : i32
      %t = xevm.blockload2d %s32, %c32, %c16, %c32, %z, %z <{elem_size_in_bits=32 : i32, tile_width=8 : i32, tile_height=16 : i32, v_blocks=1 : i32, transpose=true, pack_register=false}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32) -> vector<8xi32>
      xevm.blockstore2d %d32, %c64, %c8, %c64, %z, %z, %t <{elem_size_in_bits=32 : i32, tile_width=16 : i32, tile_height=8 : i32}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32, vector<8xi32>)
      %v = xevm.blockload2d %s16, %c64, %c8, %c64, %z, %z <{elem_size_in_bits=16 : i32, tile_width=16 : i32, tile_height=8 : i32, v_blocks=2 : i32, transpose=false, pack_register=false}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32) -> vector<16xi16>
      %lo = vector.extract_strided_slice %v {offsets = [0], sizes = [8], strides = [1]} : vector<16xi16> to vector<8xi16>
      %hi = vector.extract_strided_slice %v {offsets = [8], sizes = [8], strides = [1]} : vector<16xi16> to vector<8xi16>
      xevm.blockstore2d %d16, %c64, %c8, %c64, %c16, %z, %lo <{elem_size_in_bits=16 : i32, tile_width=16 : i32, tile_height=8 : i32}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32, vector<8xi16>)
      xevm.blockstore2d %d16, %c64, %c8, %c64, %z, %z, %hi <{elem_size_in_bits=16 : i32, tile_width=16 : i32, tile_height=8 : i32}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32, vector<8xi16>)
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %S32 = memref.alloc() : memref<16x8xi32>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %a = arith.muli %i, %c8 : index
        %b = arith.addi %a, %j : index
        %n = arith.index_cast %b : index to i32
        memref.store %n, %S32[%i, %j] : memref<16x8xi32>
      }
    }
    %S16 = memref.alloc() : memref<8x32xi16>
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %a = arith.muli %i, %c32 : index
        %b = arith.addi %a, %j : index
        %n = arith.index_cast %b : index to i16
        memref.store %n, %S16[%i, %j] : memref<8x32xi16>
      }
    }
    %gs32 = gpu.alloc () : memref<16x8xi32>
    %gd32 = gpu.alloc () : memref<8x16xi32>
    %gs16 = gpu.alloc () : memref<8x32xi16>
    %gd16 = gpu.alloc () : memref<8x32xi16>
    gpu.memcpy %gs32, %S32 : memref<16x8xi32>, memref<16x8xi32>
    gpu.memcpy %gs16, %S16 : memref<8x32xi16>, memref<8x32xi16>
    %i0 = memref.extract_aligned_pointer_as_index %gs32 : memref<16x8xi32> -> index
    %i1 = memref.extract_aligned_pointer_as_index %gd32 : memref<8x16xi32> -> index
    %i2 = memref.extract_aligned_pointer_as_index %gs16 : memref<8x32xi16> -> index
    %i3 = memref.extract_aligned_pointer_as_index %gd16 : memref<8x32xi16> -> index
    %j0 = arith.index_cast %i0 : index to i64
    %j1 = arith.index_cast %i1 : index to i64
    %j2 = arith.index_cast %i2 : index to i64
    %j3 = arith.index_cast %i3 : index to i64
    %p0 = llvm.inttoptr %j0 : i64 to !llvm.ptr<1>
    %p1 = llvm.inttoptr %j1 : i64 to !llvm.ptr<1>
    %p2 = llvm.inttoptr %j2 : i64 to !llvm.ptr<1>
    %p3 = llvm.inttoptr %j3 : i64 to !llvm.ptr<1>
    gpu.launch_func @k::@forms blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%p0 : !llvm.ptr<1>, %p1 : !llvm.ptr<1>, %p2 : !llvm.ptr<1>, %p3 : !llvm.ptr<1>)
    %D32 = memref.alloc() : memref<8x16xi32>
    gpu.memcpy %D32, %gd32 : memref<8x16xi32>, memref<8x16xi32>
    %u32 = memref.cast %D32 : memref<8x16xi32> to memref<*xi32>
    call @printMemrefI32(%u32) : (memref<*xi32>) -> ()
    %D16 = memref.alloc() : memref<8x32xi16>
    gpu.memcpy %D16, %gd16 : memref<8x32xi16>, memref<8x32xi16>
    %W = memref.alloc() : memref<8x32xi32>
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %x = memref.load %D16[%i, %j] : memref<8x32xi16>
        %y = arith.extsi %x : i16 to i32
        memref.store %y, %W[%i, %j] : memref<8x32xi32>
      }
    }
    %uw = memref.cast %W : memref<8x32xi32> to memref<*xi32>
    call @printMemrefI32(%uw) : (memref<*xi32>) -> ()
    return
  }
  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}
}
