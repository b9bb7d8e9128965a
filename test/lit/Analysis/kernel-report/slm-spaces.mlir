// xe-kernel-report counts shared local memory by the memref's memory space (3 with any integer type,
// or #gpu.address_space<workgroup>), not by its printed text: allocations and workgroup attributions
// in SLM are counted, a private alloca is not; an SLM kernel argument is not global memory.
// RUN: xe-opt %s --xe-kernel-report -o /dev/null 2>&1 | FileCheck %s
// RUN: xe-opt %s --xe-kernel-report=json=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// 32 x 4 B + 4 x 16 x 2 B + 64 x 1 B + 8 x 4 B = 352 B
// CHECK-LABEL: kernel @spaces
// CHECK: SLM: 352 B (memref<32xf32, 3>, memref<4x16xf16, #gpu.address_space<workgroup>>, memref<64xi8, 3 : i32>, memref<8xf32, #gpu.address_space<workgroup>>)
// only %A (64 x 4 B) is global memory
// JSON: "memref_arg_bytes": 256,
// JSON: "slm_bytes": 352,

gpu.module @m {
  gpu.func @spaces(%A: memref<64xf32>, %B: memref<16xf32, 3 : i32>) workgroup(%w: memref<8xf32, #gpu.address_space<workgroup>>) kernel {
    %a = memref.alloc() : memref<32xf32, 3>
    %b = memref.alloc() : memref<4x16xf16, #gpu.address_space<workgroup>>
    %c = memref.alloca() : memref<2xf32, #gpu.address_space<private>>
    %d = memref.alloc() : memref<64xi8, 3 : i32>
    gpu.return
  }
}
