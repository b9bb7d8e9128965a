// xe-kernel-report: per gpu.func, DPAS and 2D block messages per K-loop iteration, bytes loaded per
// DPAS, a register estimate against the 128 / 256 GRFs of PVC, SLM and named barriers. The report goes
// to stderr (or file=PATH), the IR unchanged to stdout: the JSON file parses, stdout holds only the IR.
// RUN: xe-opt %s --xe-kernel-report 2>&1 | FileCheck %s
// RUN: xe-opt %s --xe-kernel-report=json=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: xe-opt %s --convert-xetile-to-xegpu --xe-kernel-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCKED
// RUN: xe-opt %s '--xe-kernel-report=json=true file=%t.json' 2>%t.err | FileCheck %s --check-prefix=IRONLY
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print(len(r), r[0]['kernel'], r[0]['arch'])" %t.json | FileCheck %s --check-prefix=PARSED
// RUN: FileCheck %s --check-prefix=QUIET --allow-empty < %t.err

// CHECK-LABEL: kernel @gemm (vc mode)
// CHECK-NEXT:    per K-loop iteration (K step 16):
// CHECK-NEXT:      DPAS: 2
// CHECK-NEXT:      2D block loads: 2   stores: 0   prefetches: 1
// CHECK-NEXT:      bytes loaded: 1024   per DPAS: 512.0   prefetched: 512
// CHECK-NEXT:    DPAS in kernel: 2 (bf16 x bf16 -> f32: 2)
// CHECK-NEXT:    totals: block loads 2, stores 2, prefetches 1
// acc 2 x 8 GRFs, A 8 GRFs, B 8 GRFs, + descriptors
// CHECK-NEXT:    registers (estimate): {{[0-9]+}} GRFs x 64 B = {{[0-9]+}} B per subgroup -- fits the 128 GRFs of the default mode
// CHECK-NEXT:    SLM: 4096 B (memref<32x32xf32, 3>)   named barriers: 2   gpu.barrier: 1
// global memory of one work-group of one subgroup: 4 K steps x (A 512 B + B 512 B) read, 2 x 512 B of
// C written, 4 x 512 B prefetched; the offsets come from kernel arguments (%m, %n): whole blocks
// CHECK-NEXT:    global memory, one work-group of 1 subgroup(s) only (no gpu.launch_func):
// CHECK-NEXT:      accessed: 5,120 B (read 4,096, write 1,024; prefetched 2,048) -- {{.*}}; an upper bound: block offsets not known (kernel arguments or untraced ops): whole blocks counted
// CHECK-NEXT:      HBM bytes: 5,120 (read 4,096, write 1,024) -> bandwidth bound 0.003 us at 2000 GB/s sustained
// the performance model: no launch in this module, so one work-group of one subgroup is assumed;
// 4 K steps x 2 DPAS x 4096 ops on one Xe-core with 1 of 8 engines busy: XMX 0.0625 us; 4 x 1000 clk / 2
// (prefetch distance 1) + 1000 clk + 1000 clk for the gpu.barrier's SLM round trip at 1.6 GHz = 2.5 us
// latency; the SLM buffer stored and loaded once: 8192 B / (64 B/clk x 1.6 GHz) = 0.08 us
// CHECK-NEXT:    model: predicted 2.500 us, 0.01 TFLOP/s, bound: latency
// CHECK-NEXT:      terms: compute 0.142 us (XMX 0.062 us + vector 0.000 us + SLM 0.080 us), HBM {{.*}}, L2 {{.*}}, latency 2.500 us
// CHECK-NEXT:      occupancy: 128 Xe-cores, 32 WG/Xe-core (default GRF), 1 wave(s), wave efficiency 0.01, XMX utilization 0.12
// CHECK-NEXT:      constant xe_cores = 128 Xe-cores -- [ARK]
// CHECK:           constant xmx_efficiency = 0.65 x peak -- [MODEL] calibrated
// CHECK:           assumed: no gpu.launch_func and no known_block_size: assumed 1 work-group of 1 subgroup
// before the conversion the blocked kernel has tile_mma, not DPAS
// CHECK-LABEL: kernel @blocked (xetile mode)
// CHECK:           DPAS: 0   tile_mma: 1
// CHECK:         registers: not estimated for XeTile (run convert-xetile-to-xegpu first)
// CHECK:       module
// CHECK:         gpu.func @gemm
// CHECK:           xegpu.dpas

// JSON: "kernel": "gemm",
// JSON: "dpas": 2,
// JSON: "bytes_per_dpas": 512.0
// JSON: "slm_bytes": 4096,
// JSON: "named_barriers": 2,
// JSON: "bound": "latency",

// the stage-3 kernel below: 32x64 f32 accumulator (128 GRFs) + A 32x32 + B 32x64 bf16 needs large-GRF mode
// IRONLY-NOT:   kernel @
// IRONLY:       module
// IRONLY:         gpu.func @gemm
// IRONLY-NOT:   kernel @
// PARSED:       2 gemm pvc
// QUIET-NOT:    {{.}}

// BLOCKED-LABEL: kernel @blocked (vc mode)
// BLOCKED-NEXT:    per K-loop iteration (K step 32):
// BLOCKED-NEXT:      DPAS: 32
// BLOCKED-NEXT:      2D block loads: 6   stores: 0   prefetches: 0
// BLOCKED-NEXT:      bytes loaded: 6144   per DPAS: 192.0   prefetched: 0
// BLOCKED:         registers (estimate): {{2[0-9][0-9]}} GRFs {{.*}} -- needs large-GRF mode (256 GRFs; 128 are not enough); kernel GRF mode: large (256 GRFs)

gpu.module @k {
  gpu.func @gemm(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>, %m: index, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c2 = arith.constant 2 : i8
    xegpu.alloc_nbarrier %c2 : i8
    %slm = memref.alloc() : memref<32x32xf32, 3>
    %a0 = xegpu.create_nd_tdesc %A[%m, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    %b0 = xegpu.create_nd_tdesc %B[0, %n] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    %c0d = xegpu.create_nd_tdesc %C[%m, %n] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %z = arith.constant dense<0.0> : vector<8x16xf32>
    %r:4 = scf.for %k = %c0 to %c64 step %c16 iter_args(%acc0 = %z, %acc1 = %z, %a = %a0, %b = %b0) -> (vector<8x16xf32>, vector<8x16xf32>, !xegpu.tensor_desc<16x16xbf16>, !xegpu.tensor_desc<16x16xbf16>) {
      %la = xegpu.load_nd %a {mode = vc} : !xegpu.tensor_desc<16x16xbf16> -> vector<16x16xbf16>
      %lb = xegpu.load_nd %b {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
      xegpu.prefetch_nd %a {mode = vc, l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<16x16xbf16>
      %a00 = vector.extract_strided_slice %la {offsets = [0, 0], sizes = [8, 16], strides = [1, 1]} : vector<16x16xbf16> to vector<8x16xbf16>
      %a10 = vector.extract_strided_slice %la {offsets = [8, 0], sizes = [8, 16], strides = [1, 1]} : vector<16x16xbf16> to vector<8x16xbf16>
      %d0 = xegpu.dpas %a00, %lb, %acc0 {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16>, vector<8x16xf32> -> vector<8x16xf32>
      %d1 = xegpu.dpas %a10, %lb, %acc1 {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16>, vector<8x16xf32> -> vector<8x16xf32>
      %a2 = xegpu.update_nd_offset %a, [0, 16] {mode = vc} : !xegpu.tensor_desc<16x16xbf16>
      %b2 = xegpu.update_nd_offset %b, [16, 0] {mode = vc} : !xegpu.tensor_desc<16x16xbf16>
      scf.yield %d0, %d1, %a2, %b2 : vector<8x16xf32>, vector<8x16xf32>, !xegpu.tensor_desc<16x16xbf16>, !xegpu.tensor_desc<16x16xbf16>
    }
    gpu.barrier
    xegpu.store_nd %r#0, %c0d {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    xegpu.store_nd %r#1, %c0d {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }

  gpu.func @blocked(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>, %m: index, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %a = xetile.init_tile %A[%m, %c0] : memref<256x256xbf16> -> !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>
    %b = xetile.init_tile %B[%c0, %n] : memref<256x256xbf16> -> !xetile.tile<32x64xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>
    %ct = xetile.init_tile %C[%m, %n] : memref<256x256xf32> -> !xetile.tile<32x64xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
    %c = xetile.load_tile %ct : !xetile.tile<32x64xf32, #xetile.tile_attr<inner_blocks = [8, 16]>> -> vector<4x4x8x16xf32>
    %r:3 = scf.for %k = %c0 to %c256 step %c32 iter_args(%acc = %c, %at = %a, %bt = %b) -> (vector<4x4x8x16xf32>, !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>, !xetile.tile<32x64xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>) {
      %va = xetile.load_tile %at : !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>> -> vector<1x2x32x16xbf16>
      %va2 = xetile.tile_unpack %va {inner_blocks = [32, 16]} : vector<1x2x32x16xbf16> -> vector<32x32xbf16>
      %va3 = xetile.tile_pack %va2 {inner_blocks = [8, 16]} : vector<32x32xbf16> -> vector<4x2x8x16xbf16>
      %vb = xetile.load_tile %bt : !xetile.tile<32x64xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>> -> vector<1x4x32x16xbf16>
      %vb2 = xetile.tile_unpack %vb {inner_blocks = [32, 16]} : vector<1x4x32x16xbf16> -> vector<32x64xbf16>
      %vb3 = xetile.tile_pack %vb2 {inner_blocks = [16, 16]} : vector<32x64xbf16> -> vector<2x4x16x16xbf16>
      %acc2 = xetile.tile_mma %va3, %vb3, %acc : vector<4x2x8x16xbf16>, vector<2x4x16x16xbf16>, vector<4x4x8x16xf32> -> vector<4x4x8x16xf32>
      %at2 = xetile.update_tile_offset %at, [%c0, %c32] : !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>
      %bt2 = xetile.update_tile_offset %bt, [%c32, %c0] : !xetile.tile<32x64xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>
      scf.yield %acc2, %at2, %bt2 : vector<4x4x8x16xf32>, !xetile.tile<32x32xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>, !xetile.tile<32x64xbf16, #xetile.tile_attr<inner_blocks = [32, 16]>>
    }
    xetile.store_tile %r#0, %ct : vector<4x4x8x16xf32>, !xetile.tile<32x64xf32, #xetile.tile_attr<inner_blocks = [8, 16]>>
    gpu.return
  }
}
