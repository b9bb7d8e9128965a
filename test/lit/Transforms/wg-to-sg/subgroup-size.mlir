// xetile-wg-to-sg counts a kernel's subgroups with its xe.subgroup_size, else with the subgroup size
// of the architecture (16 on pvc and bmg); another size, or one that is not an integer, is an error
// at the kernel; an unknown arch is a clean error.
// RUN: xe-opt %s --xetile-wg-to-sg --verify-diagnostics --split-input-file
// RUN: xe-opt %s --xetile-wg-to-sg=arch=bmg --verify-diagnostics --split-input-file
// RUN: not xe-opt %s --xetile-wg-to-sg=arch=bmg2 --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: unknown architecture 'bmg2' (known: bmg, pvc)

// 64 work-items = 4 subgroups of the architecture's 16: as the maps say
gpu.module @m {
  gpu.func @arch_size(%A: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    gpu.return
  }
}

// -----
gpu.module @m {
  // expected-error @+1 {{xe.subgroup_size = 32 is not supported: the subgroup tiles lower to DPAS and 2D block messages of 16 work-items on}}
  gpu.func @size_32(%A: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, xe.subgroup_size = 32 : i32} {
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    gpu.return
  }
}

// -----
gpu.module @m {
  // expected-error @+1 {{xe.subgroup_size must be an integer attribute, got "16"}}
  gpu.func @size_text(%A: memref<64x64xf32>) kernel attributes {xe.subgroup_size = "16"} {
    %t = xetile.init_tile %A[0, 0] : memref<64x64xf32> -> !xetile.tile<64x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [2, 2], sg_data = [32, 32]>>>
    gpu.return
  }
}
