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
