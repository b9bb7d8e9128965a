// Every XeGPU verifier rule, each with its message at the op.
// RUN: xe-opt %s --split-input-file --verify-diagnostics

func.func @vc_with_sg_map(%A: memref<64x64xbf16>) {
  // expected-error @+1 {{in VC mode the tensor_desc must not carry an sg_map}}
  %d = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
  return
}

// -----
func.func @simt_without_sg_map(%A: memref<64x64xbf16>) {
  // expected-error @+1 {{SIMT mode (no mode = vc) needs an sg_map on the tensor_desc}}
  %d = xegpu.create_nd_tdesc %A[0, 0] : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16>
  return
}

// -----
func.func @one_d_boundary(%a: i64) {
  // expected-error @+1 {{a 1D tensor_desc requires boundary_check = false}}
  %d = xegpu.create_nd_tdesc %a[0] {mode = vc} : i64 -> !xegpu.tensor_desc<16xbf16>
  return
}

// -----
func.func @one_d_wi_layout(%a: i64) {
  // expected-error @+1 {{a 1D tensor_desc needs wi_layout[0] == 1}}
  %d = xegpu.create_nd_tdesc %a[0] : i64 -> !xegpu.tensor_desc<16xbf16, #xegpu.tdesc_attr<boundary_check = false, sg_map = <wi_layout = [2, 8], wi_data = [1, 1]>>>
  return
}

// -----
func.func @sg_map_cover(%A: memref<64x64xbf16>) {
  // expected-error @+1 {{sg_map wi_layout [1, 8] must cover the 16 work-items of a subgroup}}
  %d = xegpu.create_nd_tdesc %A[0, 0] : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 8], wi_data = [1, 1]>>>
  return
}

// -----
func.func @element(%A: memref<64x64xf16>) {
  // expected-error @+1 {{tensor_desc element type bf16 does not match the memref element type f16}}
  %d = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xf16> -> !xegpu.tensor_desc<8x16xbf16>
  return
}

// -----
func.func @nd_scattered(%A: memref<64x64xf32>) {
  // expected-error @+1 {{create_nd_tdesc cannot create a scattered tensor_desc; use create_tdesc}}
  %d = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
  return
}

// -----
func.func @load_vc_shape(%d: !xegpu.tensor_desc<8x16xbf16>) {
  // expected-error @+1 {{result must be vector<8x16xbf16> in VC mode, got vector<16x8xbf16>}}
  %v = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<16x8xbf16>
  return
}

// -----
func.func @load_vnni_32bit(%d: !xegpu.tensor_desc<8x16xf32>) {
  // expected-error @+1 {{vnni_axis packs sub-32-bit data into 32 bits; f32 is already 32-bit}}
  %v = xegpu.load_nd %d {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
  return
}

// -----
func.func @load_vnni_shape(%d: !xegpu.tensor_desc<16x16xbf16>) {
  // expected-error @+1 {{result must be vector<8x16x2xbf16> in VC mode, got vector<16x16xbf16>}}
  %v = xegpu.load_nd %d {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xbf16> -> vector<16x16xbf16>
  return
}

// -----
func.func @load_transposed_vnni(%d: !xegpu.tensor_desc<8x16xbf16>) {
  // RFC: bf16 [8, 16] transposed to [16, 8] then VNNI on axis 0 gives [8, 8, 2].
  %v = xegpu.load_nd %d {mode = vc, vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x8x2xbf16>
  // expected-error @+1 {{result must be vector<8x8x2xbf16> in VC mode, got vector<4x16x2xbf16>}}
  %w = xegpu.load_nd %d {mode = vc, vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<8x16xbf16> -> vector<4x16x2xbf16>
  return
}

// -----
func.func @load_simt_shape(%d: !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>) {
  // expected-error @+1 {{in SIMT mode each work-item loads vector<8x1xbf16>}}
  %v = xegpu.load_nd %d : !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>> -> vector<8x16xbf16>
  return
}

// -----
func.func @load_simt_vnni_wi_data(%d: !xegpu.tensor_desc<16x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>) {
  // expected-error @+1 {{sg_map wi_data [1, 1] must hold 2 elements along the vnni_axis 0}}
  %v = xegpu.load_nd %d {vnni_axis = 0} : !xegpu.tensor_desc<16x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>> -> vector<8x1x2xbf16>
  return
}

// -----
func.func @load_hint(%d: !xegpu.tensor_desc<8x16xbf16>) {
  // expected-error @+1 {{l1_hint = write_back is not valid here; expected one of cached, uncached, streaming, read_invalidate}}
  %v = xegpu.load_nd %d {mode = vc, l1_hint = write_back} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
  return
}

// -----
func.func @store_hint(%d: !xegpu.tensor_desc<8x16xbf16>, %v: vector<8x16xbf16>) {
  // expected-error @+1 {{l1_hint = cached is not valid here; expected one of uncached, write_through, write_back, streaming}}
  xegpu.store_nd %v, %d {mode = vc, l1_hint = cached} : vector<8x16xbf16>, !xegpu.tensor_desc<8x16xbf16>
  return
}

// -----
func.func @bad_hint_name(%d: !xegpu.tensor_desc<8x16xbf16>) {
  // expected-error @+1 {{invalid cache hint 'sometimes'}}
  xegpu.prefetch_nd %d {mode = vc, l1_hint = sometimes} : !xegpu.tensor_desc<8x16xbf16>
  return
}

// -----
func.func @store_shape(%d: !xegpu.tensor_desc<8x16xf32>, %v: vector<8x8xf32>) {
  // expected-error @+1 {{stored vector must be vector<8x16xf32> in VC mode, got vector<8x8xf32>}}
  xegpu.store_nd %v, %d {mode = vc} : vector<8x8xf32>, !xegpu.tensor_desc<8x16xf32>
  return
}

// -----
func.func @update_count(%d: !xegpu.tensor_desc<8x16xf32>) {
  // expected-error @+1 {{expected 2 offsets, got 1}}
  %e = xegpu.update_nd_offset %d, [16] {mode = vc} : !xegpu.tensor_desc<8x16xf32>
  return
}

// -----
func.func @chunk_size(%a: i64, %o: vector<16xindex>) {
  // expected-error @+1 {{chunk_size_per_lane must be 1, 2, 3, 4 or 8, got 5}}
  %d = xegpu.create_tdesc %a, %o {mode = vc} : i64, vector<16xindex> -> !xegpu.tensor_desc<16x5xf32, #xegpu.tdesc_attr<scattered = true, chunk_size_per_lane = 5>>
  return
}

// -----
func.func @chunk_simt(%a: i64, %o: vector<16xindex>) {
  // expected-error @+1 {{chunk_size_per_lane is VC mode only (RFC)}}
  %d = xegpu.create_tdesc %a, %o : i64, vector<16xindex> -> !xegpu.tensor_desc<16x8xf32, #xegpu.tdesc_attr<scattered = true, chunk_size_per_lane = 8, sg_map = <wi_layout = [16, 1], wi_data = [1, 1]>>>
  return
}

// -----
func.func @create_tdesc_scattered(%a: i64, %o: vector<16xindex>) {
  // expected-error @+1 {{create_tdesc produces a scattered tensor_desc}}
  %d = xegpu.create_tdesc %a, %o {mode = vc} : i64, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<boundary_check = false>>
  return
}

// -----
func.func @create_tdesc_lanes(%a: i64, %o: vector<12xindex>) {
  // expected-error @+1 {{the number of lanes must be 1, 2, 4, 8, 16 or 32 on PVC, got 12}}
  %d = xegpu.create_tdesc %a, %o {mode = vc} : i64, vector<12xindex> -> !xegpu.tensor_desc<12xf32, #xegpu.tdesc_attr<scattered = true>>
  return
}

// -----
func.func @gather_nd(%d: !xegpu.tensor_desc<8x16xf32>, %m: vector<8xi1>) {
  // expected-error @+1 {{the tensor_desc must be scattered (created by create_tdesc)}}
  %v = xegpu.load_gather %d, %m {mode = vc} : !xegpu.tensor_desc<8x16xf32>, vector<8xi1> -> vector<8x16xf32>
  return
}

// -----
func.func @gather_mask(%d: !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, %m: vector<8xi1>) {
  // expected-error @+1 {{mask must be vector<16xi1> (one bit per lane)}}
  %v = xegpu.load_gather %d, %m {mode = vc} : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<8xi1> -> vector<16xf32>
  return
}

// -----
func.func @gather_chunk_transpose(%d: !xegpu.tensor_desc<16x8xbf16, #xegpu.tdesc_attr<scattered = true, chunk_size_per_lane = 8>>, %m: vector<16xi1>) {
  %v = xegpu.load_gather %d, %m {mode = vc, transpose = [1, 0]} : !xegpu.tensor_desc<16x8xbf16, #xegpu.tdesc_attr<scattered = true, chunk_size_per_lane = 8>>, vector<16xi1> -> vector<8x16xbf16>
  // expected-error @+1 {{vector must be vector<16x8xbf16>, got vector<8x16xbf16>}}
  %w = xegpu.load_gather %d, %m {mode = vc} : !xegpu.tensor_desc<16x8xbf16, #xegpu.tdesc_attr<scattered = true, chunk_size_per_lane = 8>>, vector<16xi1> -> vector<8x16xbf16>
  return
}

// -----
func.func @update_offset_nd(%d: !xegpu.tensor_desc<8x16xf32>, %o: vector<16xindex>) {
  // expected-error @+1 {{update_offset needs a scattered tensor_desc; use update_nd_offset}}
  %e = xegpu.update_offset %d, %o {mode = vc} : !xegpu.tensor_desc<8x16xf32>, vector<16xindex>
  return
}

// -----
func.func @prefetch_nd_scattered(%d: !xegpu.tensor_desc<8x16xf32>) {
  // expected-error @+1 {{prefetch needs a scattered tensor_desc; use prefetch_nd}}
  xegpu.prefetch %d {mode = vc} : !xegpu.tensor_desc<8x16xf32>
  return
}

// -----
func.func @atomic_bf16(%d: !xegpu.tensor_desc<16xbf16, #xegpu.tdesc_attr<scattered = true>>, %v: vector<16xbf16>, %m: vector<16xi1>) {
  // expected-warning @+1 {{PVC has no bf16 atomic addf; it must be performed in f32}}
  %r = xegpu.atomic_rmw addf %v, %d, %m {mode = vc} : vector<16xbf16>, !xegpu.tensor_desc<16xbf16, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xbf16>
  return
}

// -----
func.func @atomic_int(%d: !xegpu.tensor_desc<16xi32, #xegpu.tdesc_attr<scattered = true>>, %v: vector<16xi32>, %m: vector<16xi1>) {
  // expected-error @+1 {{atomic kind addf needs float elements, got i32}}
  %r = xegpu.atomic_rmw addf %v, %d, %m {mode = vc} : vector<16xi32>, !xegpu.tensor_desc<16xi32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xi32>
  return
}

// -----
func.func @nbarrier_count(%n: i8) {
  // expected-error @+1 {{num_producers must be between 1 and 32 (subgroups of a work-group), got 0}}
  %nb = xegpu.create_nbarrier %n, %n {num_producers = 0 : i8, num_consumers = 2 : i8} : i8, i8 -> !xegpu.nbarrier
  return
}

// -----
func.func @mfence_values() {
  // expected-error @+1 {{invalid fence_scope 'everywhere'; expected one of: group, local, tile, gpu, gpus, system, sysacq}}
  xegpu.mfence {memory_kind = "ugm", fence_op = "none", fence_scope = "everywhere"}
  return
}

// -----
func.func @compile_hint_value() {
  // expected-error @+1 {{invalid hint 'unroll'; expected one of: schedule_barrier}}
  xegpu.compile_hint {hint = "unroll"}
  return
}

// -----
func.func @mode_value(%d: !xegpu.tensor_desc<8x16xf32>) {
  // expected-error @+1 {{invalid mode 'simd'; expected one of: vc}}
  xegpu.prefetch_nd %d {mode = simd} : !xegpu.tensor_desc<8x16xf32>
  return
}

// -----
func.func @alloc_nbarrier_count(%n: i8) {
  // expected-error @+1 {{nbarrier_num must be between 0 and 32, got 40}}
  xegpu.alloc_nbarrier 40
  return
}

// -----
// xegpu.dpas checks the DPAS rules all architectures share (arch.shared_dpas_shape: pvc and bmg
// have the same DPAS): supported types, M <= 8, N = 16, K by element size
func.func @dpas_types(%a: vector<8x16xbf16>, %b: vector<8x16x2xbf16>) {
  // expected-error @+1 {{pvc: DPAS does not support bf16 x bf16 -> f16}}
  %c = xegpu.dpas %a, %b {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16> -> vector<8x16xf16>
  return
}

// -----
func.func @dpas_m(%a: vector<16x16xbf16>, %b: vector<8x16x2xbf16>) {
  // expected-error @+1 {{DPAS M (repeat count) must be between 1 and 8, got 16}}
  %c = xegpu.dpas %a, %b {mode = vc} : vector<16x16xbf16>, vector<8x16x2xbf16> -> vector<16x16xf32>
  return
}

// -----
func.func @dpas_n(%a: vector<8x16xbf16>, %b: vector<8x32x2xbf16>) {
  // expected-error @+1 {{DPAS N must be 16 (the execution size), got 32}}
  %c = xegpu.dpas %a, %b {mode = vc} : vector<8x16xbf16>, vector<8x32x2xbf16> -> vector<8x32xf32>
  return
}

// -----
func.func @dpas_tf32_k(%a: vector<8x16xf32>, %b: vector<8x16xf32>) {
  // expected-error @+1 {{A must be <8x8> (or VNNI <8x8x1>) for f32, got 8x16}}
  %c = xegpu.dpas %a, %b {mode = vc} : vector<8x16xf32>, vector<8x16xf32> -> vector<8x16xf32>
  return
}
