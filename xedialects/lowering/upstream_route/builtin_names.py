"""OpenCL builtin names that upstream MLIR (LLVM 22) gets wrong, corrected in the route's LLVM IR
before llvm-spirv.

The route's SPIR-V imports the OpenCL / Intel builtins by mangled name, and the driver's compiler
(IGC) links them from its builtin library by that exact name; an unknown name stays an unresolved
import and the binary cannot be loaded. Two of LLVM 22's lowerings spell some names in a way no
library defines:

- `convert-gpu-to-llvm-spv` (GPUToLLVMSPV.cpp, `GPUSubgroupOpConversion`) calls `gpu.subgroup_id`,
  `gpu.lane_id`, `gpu.num_subgroups`, `gpu.subgroup_size` as `_Z16get_sub_group_id` etc.: the
  Itanium mangling of a C++/OpenCL C function without parameters ends in `v` (`f(void)`), so the
  builtin `uint get_sub_group_id(void)` is `_Z16get_sub_group_idv`;
- `convert-xevm-to-llvm` (XeVMToLLVM.cpp, `MMAToOCLPattern`) names the 8-bit `xevm.mma` after its
  element types, `intel_sub_group_s8_s8_matrix_mad_k32`, and mangles every operand as signed; the
  builtins of cl_intel_subgroup_matrix_multiply_accumulate are `intel_sub_group_i8_i8_...`,
  `i8_u8`, `u8_i8`, `u8_u8`, whose unsigned operands are `ushort` / `uint` vectors (`Dv8_t`,
  `Dv8_j`; the accumulator stays `int`). LLVM IR types carry no sign, so a new name is the whole fix.

Both are renames of the same function type, done on the LLVM IR text (declarations and calls) in
`correct_builtin_names`. The DPAS entries are the M = 2, 4, 8 (repeat count) forms, whose A is a
`short` / `ushort` vector; M = 1 (a scalar `short` A, a `<1 x i16>` upstream) is not a rename and is
not here. docs/upstream-xegpu-reference.md, "Builtin names".
"""
from __future__ import annotations

import re


def _k32(types: str, args: str) -> str:
    """The mangled name of the 8-bit DPAS builtin intel_sub_group_<types>_matrix_mad_k32(<args>)."""
    return f"_Z36intel_sub_group_{types}_matrix_mad_k32{args}"


# upstream LLVM 22's name -> the OpenCL builtin's (as IGC's builtin library defines it)
WRONG_TO_RIGHT: dict[str, str] = {
    # convert-gpu-to-llvm-spv: functions of no parameters mangled without the `v`
    "_Z16get_sub_group_id": "_Z16get_sub_group_idv",
    "_Z22get_sub_group_local_id": "_Z22get_sub_group_local_idv",
    "_Z18get_num_sub_groups": "_Z18get_num_sub_groupsv",
    "_Z18get_sub_group_size": "_Z18get_sub_group_sizev",
    # convert-xevm-to-llvm: 8-bit DPAS, M = 8 (int8 acc; a short8 / ushort8, b int8 / uint8)
    _k32("s8_s8", "Dv8_sDv8_iS0_"): _k32("i8_i8", "Dv8_sDv8_iS0_"),
    _k32("s8_u8", "Dv8_sDv8_iS0_"): _k32("i8_u8", "Dv8_sDv8_jDv8_i"),
    _k32("u8_s8", "Dv8_sDv8_iS0_"): _k32("u8_i8", "Dv8_tDv8_iS0_"),
    _k32("u8_u8", "Dv8_sDv8_iS0_"): _k32("u8_u8", "Dv8_tDv8_jDv8_i"),
    # M = 4 (int4 acc, short4 / ushort4 a)
    _k32("s8_s8", "Dv4_sDv8_iDv4_i"): _k32("i8_i8", "Dv4_sDv8_iDv4_i"),
    _k32("s8_u8", "Dv4_sDv8_iDv4_i"): _k32("i8_u8", "Dv4_sDv8_jDv4_i"),
    _k32("u8_s8", "Dv4_sDv8_iDv4_i"): _k32("u8_i8", "Dv4_tDv8_iDv4_i"),
    _k32("u8_u8", "Dv4_sDv8_iDv4_i"): _k32("u8_u8", "Dv4_tDv8_jDv4_i"),
    # M = 2 (int2 acc, short2 / ushort2 a)
    _k32("s8_s8", "Dv2_sDv8_iDv2_i"): _k32("i8_i8", "Dv2_sDv8_iDv2_i"),
    _k32("s8_u8", "Dv2_sDv8_iDv2_i"): _k32("i8_u8", "Dv2_sDv8_jDv2_i"),
    _k32("u8_s8", "Dv2_sDv8_iDv2_i"): _k32("u8_i8", "Dv2_tDv8_iDv2_i"),
    _k32("u8_u8", "Dv2_sDv8_iDv2_i"): _k32("u8_u8", "Dv2_tDv8_jDv2_i"),
}

# a global name in LLVM IR text: `@name` not followed by more name characters
_GLOBAL = re.compile(r"@([\w$.]+)(?![\w$.])")
_DECLARE = re.compile(r"^declare [^\n@]*@([\w$.]+)\(", re.M)


def correct_builtin_names(ll: str) -> str:
    """`ll` (LLVM IR text) with every builtin of WRONG_TO_RIGHT called by its right name. A wrong
    declaration whose right name is declared too is dropped (its calls then use that one)."""
    declared = set(_DECLARE.findall(ll))
    twice = {w for w in declared if WRONG_TO_RIGHT.get(w) in declared}
    if twice:
        ll = "\n".join(line for line in ll.split("\n")
                       if not ((m := _DECLARE.match(line)) and m.group(1) in twice))
    return _GLOBAL.sub(lambda m: "@" + WRONG_TO_RIGHT.get(m.group(1), m.group(1)), ll)
