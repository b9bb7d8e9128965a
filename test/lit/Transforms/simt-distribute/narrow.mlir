// Accesses narrower than a subgroup: fewer elements than the 16 work-items.
// RUN: xe-opt %s --xegpu-simt-distribute | FileCheck %s

gpu.module @k {
  // A one-lane atomic add (a split matvec's partial sum into one row of y): every work-item
  // addresses the element, only work-item 0 keeps its mask bit, so the element is added once.
  // CHECK-LABEL: gpu.func @atomic_one_lane
  gpu.func @atomic_one_lane(%Y: memref<24xf32>, %v: vector<1xf32>) kernel {
    // CHECK: %[[LANE:.*]] = gpu.lane_id
    // CHECK: %[[T:.*]] = xegpu.create_tdesc
    // CHECK: %[[C1:.*]] = arith.constant 1 : index
    // CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[LANE]], %[[C1]] : index
    // CHECK: %[[M:.*]] = arith.andi %{{.*}}, %[[FIRST]] : i1
    // CHECK: xegpu.atomic_rmw addf %{{.*}}, %[[T]], %[[M]] : f32
    %o = arith.constant dense<5> : vector<1xindex>
    %m = arith.constant dense<true> : vector<1xi1>
    %t = xegpu.create_tdesc %Y, %o {mode = vc} : memref<24xf32>, vector<1xindex> -> !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>
    %r = xegpu.atomic_rmw addf %v, %t, %m {mode = vc} : vector<1xf32>, !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>, vector<1xi1> -> vector<1xf32>
    gpu.return
  }
}

// Blocks no sg_map spreads over 16 work-items (8 or 4 elements) are accessed with scattered
// messages, one per fragment element: work-item l addresses block element l mod n at the block
// offset of the create_nd_tdesc (its bounds checked against the source's shape); a store masks off
// the work-items repeating an element.
gpu.module @k2 {
  // CHECK-LABEL: gpu.func @column_8x1
  gpu.func @column_8x1(%Y: memref<?x1xf32>, %i: index, %n: index) kernel {
    // CHECK: %[[LANE:.*]] = gpu.lane_id
    // CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : index
    // CHECK: %[[ADDR:.*]] = arith.muli %[[ROW]], %{{.*}} : index
    // CHECK: arith.cmpi ult, %[[ROW]], %{{.*}} : index
    // CHECK: %[[IN:.*]] = arith.andi
    // CHECK: %[[T:.*]] = xegpu.create_tdesc %{{.*}}, %[[ADDR]] : memref<?x1xf32>, index -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
    // CHECK: %[[V:.*]] = xegpu.load_gather %[[T]], %[[IN]] : {{.*}}, i1 -> f32
    // CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[LANE]], %{{.*}} : index
    // CHECK: %[[M:.*]] = arith.andi %{{.*}}, %[[FIRST]] : i1
    // CHECK: xegpu.store_scatter %{{.*}}, %{{.*}}, %[[M]] : f32
    // CHECK-NOT: load_nd
    // CHECK-NOT: store_nd
    %c1 = arith.constant 1 : index
    %d = xegpu.create_nd_tdesc %Y[%i, 0], [%n, %c1], [%c1, %c1] {mode = vc} : memref<?x1xf32> -> !xegpu.tensor_desc<8x1xf32>
    %v = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<8x1xf32> -> vector<8x1xf32>
    %w = arith.addf %v, %v : vector<8x1xf32>
    xegpu.store_nd %w, %d {mode = vc} : vector<8x1xf32>, !xegpu.tensor_desc<8x1xf32>
    gpu.return
  }

  // A bias column every work-item broadcasts along its rows: each work-item loads all 8 elements.
  // CHECK-LABEL: gpu.func @col_bias_8x1
  gpu.func @col_bias_8x1(%C: memref<64x64xf32>, %bias: memref<64x1xf32>) kernel {
    // CHECK-COUNT-8: xegpu.load_gather
    // CHECK: vector.from_elements {{.*}} : vector<8x1xf32>
    %cd = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %rd = xegpu.create_nd_tdesc %bias[0, 0] {mode = vc} : memref<64x1xf32> -> !xegpu.tensor_desc<8x1xf32>
    %x = xegpu.load_nd %cd {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %r = xegpu.load_nd %rd {mode = vc} : !xegpu.tensor_desc<8x1xf32> -> vector<8x1xf32>
    %rb = vector.broadcast %r : vector<8x1xf32> to vector<8x16xf32>
    %s = arith.addf %x, %rb : vector<8x16xf32>
    xegpu.store_nd %s, %cd {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }

  // A 1x4 row (a full reduction's scalar among others) stored by work-items 0..3.
  // CHECK-LABEL: gpu.func @row_1x4
  gpu.func @row_1x4(%O: memref<1x4xf32>, %v: vector<1x4xf32>) kernel {
    // CHECK: %[[LANE:.*]] = gpu.lane_id
    // CHECK: %[[T:.*]] = xegpu.create_tdesc %{{.*}}, %{{.*}} : memref<1x4xf32>, index
    // CHECK: %[[M:.*]] = arith.cmpi ult, %[[LANE]], %{{.*}} : index
    // CHECK: xegpu.store_scatter %{{.*}}, %[[T]], %[[M]] : f32
    %d = xegpu.create_nd_tdesc %O[0, 0] {mode = vc} : memref<1x4xf32> -> !xegpu.tensor_desc<1x4xf32>
    xegpu.store_nd %v, %d {mode = vc} : vector<1x4xf32>, !xegpu.tensor_desc<1x4xf32>
    gpu.return
  }
}

// Row sums (held whole by every work-item after the subgroup reduction) stored into an 8x1 column:
// work-item l picks row l mod 8, work-items 0..7 store.
gpu.module @k3 {
  // CHECK-LABEL: gpu.func @row_sums_8x1
  gpu.func @row_sums_8x1(%A: memref<16x16xf32>, %Y: memref<16x1xf32>) kernel {
    // CHECK: %[[LANE:.*]] = gpu.lane_id
    // CHECK: gpu.subgroup_reduce add
    // CHECK: %[[ROW:.*]] = vector.extract %{{.*}}[%[[LANE]]] : index from vector<16xindex>
    // CHECK: %[[V:.*]] = vector.extract %{{.*}}[%[[ROW]]] : f32 from vector<8xf32>
    // CHECK: %[[T:.*]] = xegpu.create_tdesc %{{.*}}, %[[ROW]] : memref<16x1xf32>, index
    // CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[LANE]], %{{.*}} : index
    // CHECK: xegpu.store_scatter %{{.*}}, %[[T]], %[[FIRST]] : f32
    %z = arith.constant dense<0.0> : vector<16xf32>
    %d = xegpu.create_nd_tdesc %A[0, 0] {mode = vc} : memref<16x16xf32> -> !xegpu.tensor_desc<16x16xf32>
    %a = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<16x16xf32> -> vector<16x16xf32>
    %r = vector.multi_reduction <add>, %a, %z [1] : vector<16x16xf32> to vector<16xf32>
    %c = vector.shape_cast %r : vector<16xf32> to vector<16x1xf32>
    %s0 = vector.extract_strided_slice %c {offsets = [0, 0], sizes = [8, 1], strides = [1, 1]} : vector<16x1xf32> to vector<8x1xf32>
    %y0 = xegpu.create_nd_tdesc %Y[0, 0] {mode = vc} : memref<16x1xf32> -> !xegpu.tensor_desc<8x1xf32>
    xegpu.store_nd %s0, %y0 {mode = vc} : vector<8x1xf32>, !xegpu.tensor_desc<8x1xf32>
    gpu.return
  }
}

// A 1x5 block gathered from a 4- and a 1-element piece (a softmax row remainder): no sg_map
// spreads 5 elements over 16 work-items, so every work-item gathers and holds the whole block (two
// elements per message) and the computation on it is repeated in each; the scatter picks each
// work-item's element.
gpu.module @k4 {
  // CHECK-LABEL: gpu.func @gathered_1x5
  gpu.func @gathered_1x5(%A: memref<64xf32>, %O: memref<64xf32>) kernel {
    // CHECK: %[[LANE:.*]] = gpu.lane_id
    // CHECK-COUNT-2: xegpu.load_gather {{.*}} -> vector<2xf32>
    // CHECK: %[[ROW:.*]] = vector.shuffle {{.*}} [0, 1, 2, 3] : vector<2xf32>, vector<2xf32>
    // CHECK: vector.insert_strided_slice %[[ROW]], {{.*}} : vector<4xf32> into vector<1x5xf32>
    // CHECK: xegpu.load_gather {{.*}} -> f32
    // CHECK: math.exp %{{.*}} : vector<1x5xf32>
    // CHECK: %[[I:.*]] = vector.extract %{{.*}}[%[[LANE]]] : index from vector<16xindex>
    // CHECK: %[[V:.*]] = vector.extract %{{.*}}[%[[I]]] : f32 from vector<4xf32>
    // CHECK: xegpu.store_scatter %[[V]]
    %o = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
    %m = arith.constant dense<true> : vector<4xi1>
    %o1 = arith.constant dense<4> : vector<1xindex>
    %m1 = arith.constant dense<true> : vector<1xi1>
    %z = arith.constant dense<0.0> : vector<1x5xf32>
    %t = xegpu.create_tdesc %A, %o {mode = vc} : memref<64xf32>, vector<4xindex> -> !xegpu.tensor_desc<4xf32, #xegpu.tdesc_attr<scattered = true>>
    %v = xegpu.load_gather %t, %m {mode = vc} : !xegpu.tensor_desc<4xf32, #xegpu.tdesc_attr<scattered = true>>, vector<4xi1> -> vector<4xf32>
    %b0 = vector.insert_strided_slice %v, %z {offsets = [0, 0], strides = [1]} : vector<4xf32> into vector<1x5xf32>
    %t1 = xegpu.create_tdesc %A, %o1 {mode = vc} : memref<64xf32>, vector<1xindex> -> !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>
    %v1 = xegpu.load_gather %t1, %m1 {mode = vc} : !xegpu.tensor_desc<1xf32, #xegpu.tdesc_attr<scattered = true>>, vector<1xi1> -> vector<1xf32>
    %b = vector.insert_strided_slice %v1, %b0 {offsets = [0, 4], strides = [1]} : vector<1xf32> into vector<1x5xf32>
    %e = math.exp %b : vector<1x5xf32>
    %s = vector.extract_strided_slice %e {offsets = [0, 0], sizes = [1, 4], strides = [1, 1]} : vector<1x5xf32> to vector<1x4xf32>
    %s1 = vector.shape_cast %s : vector<1x4xf32> to vector<4xf32>
    %u = xegpu.create_tdesc %O, %o {mode = vc} : memref<64xf32>, vector<4xindex> -> !xegpu.tensor_desc<4xf32, #xegpu.tdesc_attr<scattered = true>>
    xegpu.store_scatter %s1, %u, %m {mode = vc} : vector<4xf32>, !xegpu.tensor_desc<4xf32, #xegpu.tdesc_attr<scattered = true>>, vector<4xi1>
    gpu.return
  }
}

// A prefetch of a narrow block: a scattered prefetch per fragment element (no bounds: a hint). The
// 1x4 row at a static offset needs no bounds check either.
gpu.module @k5 {
  // CHECK-LABEL: gpu.func @prefetch_1x4
  gpu.func @prefetch_1x4(%O: memref<1x4xf32>) kernel {
    // CHECK: %[[T:.*]] = xegpu.create_tdesc
    // CHECK: xegpu.prefetch %[[T]] {l1_hint = cached}
    // CHECK-NOT: arith.cmpi ult, %{{.*}}, %c4
    // CHECK: xegpu.load_gather %{{.*}}, %true
    %d = xegpu.create_nd_tdesc %O[0, 0] {mode = vc} : memref<1x4xf32> -> !xegpu.tensor_desc<1x4xf32>
    xegpu.prefetch_nd %d {mode = vc, l1_hint = cached} : !xegpu.tensor_desc<1x4xf32>
    %v = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<1x4xf32> -> vector<1x4xf32>
    %w = arith.addf %v, %v : vector<1x4xf32>
    xegpu.store_nd %w, %d {mode = vc} : vector<1x4xf32>, !xegpu.tensor_desc<1x4xf32>
    gpu.return
  }
}
