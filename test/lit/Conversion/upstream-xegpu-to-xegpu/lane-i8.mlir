// Lane-level 8-bit DPAS operands as LLVM 22 defines them: an 8x32xi8 A block gives lane l bytes
// 2l, 2l + 1 of every row (2D block IO of tile_width 32: a 16-bit unit per lane; upstream's layout
// lane_data [1, 2]), imported as our sg_map wi_data [1, 2] and fed to dpas as loaded; the packed
// 32x16xi8 B gives lane l column l, rows in order: our VNNI fragment 8x1x4.
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s

gpu.module @k {
  gpu.func @f(%a: memref<8x32xi8>, %b: memref<32x16xi8>, %c: memref<8x16xi32>) kernel {
    %ta = xegpu.create_nd_tdesc %a : memref<8x32xi8> -> !xegpu.tensor_desc<8x32xi8>
    %va = xegpu.load_nd %ta[0, 0] : !xegpu.tensor_desc<8x32xi8> -> vector<16xi8>
    %tb = xegpu.create_nd_tdesc %b : memref<32x16xi8> -> !xegpu.tensor_desc<32x16xi8>
    %vb = xegpu.load_nd %tb[0, 0] <{packed}> : !xegpu.tensor_desc<32x16xi8> -> vector<32xi8>
    %d = xegpu.dpas %va, %vb : vector<16xi8>, vector<32xi8> -> vector<8xi32>
    %tc = xegpu.create_nd_tdesc %c : memref<8x16xi32> -> !xegpu.tensor_desc<8x16xi32>
    xegpu.store_nd %d, %tc[0, 0] : vector<8xi32>, !xegpu.tensor_desc<8x16xi32>
    gpu.return
  }
}

// CHECK-LABEL: gpu.func @f
// CHECK:       %[[A:.*]] = xegpu.load_nd %{{.*}} : !xegpu.tensor_desc<8x32xi8, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 2]>>> -> vector<8x2xi8>
// CHECK:       %[[B:.*]] = xegpu.load_nd %{{.*}} : !xegpu.tensor_desc<32x16xi8, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>> -> vector<32x1xi8>
// CHECK:       %[[B1:.*]] = vector.shape_cast %[[B]] : vector<32x1xi8> to vector<32xi8>
// CHECK:       %[[BV:.*]] = vector.shape_cast %[[B1]] : vector<32xi8> to vector<8x1x4xi8>
// CHECK:       xegpu.dpas %[[A]], %[[BV]] : vector<8x2xi8>, vector<8x1x4xi8> -> vector<8x1xi32>
