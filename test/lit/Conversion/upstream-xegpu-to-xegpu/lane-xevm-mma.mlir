// Lane-level xevm.mma (the lane export's tf32 DPAS; what convert-xegpu-to-xevm makes of a dpas) as
// our SIMT xegpu.dpas, in the lane orders of the OpenCL builtins it lowers to. tf32
// (intel_sub_group_tf32_tf32_matrix_mad_k8): lane l's float4 A slot j is A[2j + l/8][l % 8], our
// tf32 A fragment (wi_layout [2, 8], wi_data [1, 1]): a shape cast; B and C lane l column l.
// bf16 given as the builtin's short8 / int8: bitcast back, A reordered into our packed A.
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s

gpu.module @k {
  gpu.func @tf32(%a: vector<4xf32>, %b: memref<8x16xf32>, %c: memref<8x16xf32>) kernel {
    %tb = xegpu.create_nd_tdesc %b : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %vb = xegpu.load_nd %tb[0, 0] : !xegpu.tensor_desc<8x16xf32> -> vector<8xf32>
    %tc = xegpu.create_nd_tdesc %c : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %vc = xegpu.load_nd %tc[0, 0] : !xegpu.tensor_desc<8x16xf32> -> vector<8xf32>
    %d = xevm.mma %a, %vb, %vc {shape = <m = 8, n = 16, k = 8>, types = <d = f32, a = tf32, b = tf32, c = f32>} : (vector<4xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
    xegpu.store_nd %d, %tc[0, 0] : vector<8xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
  gpu.func @bf16(%a: vector<8xi16>, %b: vector<8xi32>, %c: memref<8x16xf32>) kernel {
    %d = xevm.mma %a, %b {shape = <m = 8, n = 16, k = 16>, types = <d = f32, a = bf16, b = bf16>} : (vector<8xi16>, vector<8xi32>) -> vector<8xf32>
    %tc = xegpu.create_nd_tdesc %c : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    xegpu.store_nd %d, %tc[0, 0] : vector<8xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}

// CHECK-LABEL: gpu.func @tf32
// CHECK-SAME:  (%[[A:.*]]: vector<4xf32>
// CHECK:       %[[A2:.*]] = vector.shape_cast %[[A]] : vector<4xf32> to vector<4x1xf32>
// CHECK:       %[[B:.*]] = vector.shape_cast %{{.*}} : vector<8xf32> to vector<8x1xf32>
// CHECK:       %[[C:.*]] = vector.shape_cast %{{.*}} : vector<8xf32> to vector<8x1xf32>
// CHECK:       %[[D:.*]] = xegpu.dpas %[[A2]], %[[B]], %[[C]] : vector<4x1xf32>, vector<8x1xf32>, vector<8x1xf32> -> vector<8x1xf32>
// CHECK-LABEL: gpu.func @bf16
// CHECK-SAME:  (%[[A:.*]]: vector<8xi16>, %[[B:.*]]: vector<8xi32>
// CHECK-DAG:   %[[AB:.*]] = vector.bitcast %[[A]] : vector<8xi16> to vector<8xbf16>
// CHECK-DAG:   %[[BB:.*]] = vector.bitcast %[[B]] : vector<8xi32> to vector<16xbf16>
// CHECK:       gpu.shuffle idx
// CHECK:       %[[AP:.*]] = vector.from_elements {{.*}} : vector<4x2xbf16>
// CHECK:       %[[BV:.*]] = vector.shape_cast %[[BB]] : vector<16xbf16> to vector<8x1x2xbf16>
// CHECK:       xegpu.dpas %[[AP]], %[[BV]] : vector<4x2xbf16>, vector<8x1x2xbf16> -> vector<8x1xf32>
