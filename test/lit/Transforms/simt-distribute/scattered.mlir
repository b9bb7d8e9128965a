// Scattered accesses distribute lane by lane: each work-item takes its own offset and mask
// element and creates, loads and stores one element (RFC: `create_tdesc %addr, %offset : ..., index`).
// RUN: xe-opt %s --xegpu-simt-distribute | FileCheck %s

gpu.module @k {
  // CHECK-LABEL: gpu.func @scattered
  gpu.func @scattered(%A: memref<64xf32>, %o: vector<16xindex>, %m: vector<16xi1>) kernel {
    // CHECK: %[[LANE:.*]] = gpu.lane_id
    // CHECK: %[[OFF:.*]] = vector.extract %{{.*}}[%[[LANE]]] : index from vector<16xindex>
    // CHECK: %[[T:.*]] = xegpu.create_tdesc %{{.*}}, %[[OFF]] : memref<64xf32>, index -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
    // CHECK: %[[MASK:.*]] = vector.extract %{{.*}}[%[[LANE]]] : i1 from vector<16xi1>
    // CHECK: %[[V:.*]] = xegpu.load_gather %[[T]], %[[MASK]] : {{.*}}, i1 -> f32
    // CHECK: xegpu.store_scatter %{{.*}}, %[[T]], %[[MASK]] : f32, {{.*}}, i1
    // CHECK-NOT: mode = vc
    %t = xegpu.create_tdesc %A, %o {mode = vc} : memref<64xf32>, vector<16xindex> -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>
    %v = xegpu.load_gather %t, %m {mode = vc} : !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1> -> vector<16xf32>
    xegpu.store_scatter %v, %t, %m {mode = vc} : vector<16xf32>, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<scattered = true>>, vector<16xi1>
    gpu.return
  }
}
