// The kernel of bitcast.mlir (narrowing and widening vector.bitcast, a descriptor on a buffer's raw
// address) as portable SPIR-V on an OpenCL device, compared with the simulator on random inputs.
// REQUIRES: opencl
// RUN: xe-run %S/bitcast.mlir --backend both | FileCheck %s
// CHECK: sim vs opencl Y: max abs diff 0, max rel diff 0  agree
// CHECK: sim vs opencl Z: max abs diff 0, max rel diff 0  agree
// CHECK: backends agree
