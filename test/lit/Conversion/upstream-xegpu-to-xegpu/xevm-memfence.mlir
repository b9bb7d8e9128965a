// xevm.memfence as our mfence: addrspace global -> memory_kind "ugm", shared -> "slm", generic (the
// default) -> both; scope lane / subgroup / workgroup -> fence_scope "group" (the narrowest we have),
// cluster / device -> "gpu", system -> "system". The simulator runs a work-group's lanes in order
// (sequentially consistent): a fence changes nothing there (docs/upstream-xegpu-reference.md, "XeVM").
// The kernel has no xevm 2D block op or mma: its level is the rest's (here subgroup, VC mode).
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s

gpu.module @k {
  gpu.func @fences() kernel {
    xevm.memfence <{scope = #xevm.mem_scope<workgroup>, addrspace = #xevm.addr_space<global>}>
    xevm.memfence <{scope = #xevm.mem_scope<device>, addrspace = #xevm.addr_space<shared>}>
    xevm.memfence <{scope = #xevm.mem_scope<subgroup>}>
    xevm.memfence <{scope = #xevm.mem_scope<system>, addrspace = #xevm.addr_space<global>}>
    gpu.return
  }
}

// CHECK-LABEL: gpu.func @fences
// CHECK-NEXT:  xegpu.mfence {memory_kind = "ugm", fence_op = "none", fence_scope = "group"}
// CHECK-NEXT:  xegpu.mfence {memory_kind = "slm", fence_op = "none", fence_scope = "gpu"}
// CHECK-NEXT:  xegpu.mfence {memory_kind = "ugm", fence_op = "none", fence_scope = "group"}
// CHECK-NEXT:  xegpu.mfence {memory_kind = "slm", fence_op = "none", fence_scope = "group"}
// CHECK-NEXT:  xegpu.mfence {memory_kind = "ugm", fence_op = "none", fence_scope = "system"}
// CHECK-NEXT:  gpu.return
