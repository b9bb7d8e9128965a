"""Simulator handlers for structured control flow (`scf.for/if/while/execute_region/index_switch`)
and `func.call`.

Uniform branches and loops run directly; divergent ones run under the activity mask `st.mask`
(side effects honour it) and their results are merged per batch element with `bselect` (core.py).
"""
from __future__ import annotations

import numpy as np

from ..core import FuncCompiler, OpInfo, SimError, attr_ints, bselect, handler, run_block, run_ops


@handler("scf.for")
def _scf_for(c: FuncCompiler, o: OpInfo):
    lb, ub, step = o.ins[:3]
    inits = o.ins[3:]
    body = c.compile_region(o.op.regions[0])
    iv = body.arg_slots[0]
    iter_slots = body.arg_slots[1:]
    outs = o.outs
    ysl = body.term_slots
    ops = body.ops
    idx_dtype = o.in_types[0].dtype

    def f(env, st):
        lbv, ubv, sv = env[lb], env[ub], env[step]
        vals = [env[s] for s in inits]
        if st.is_uniform(lbv) and st.is_uniform(ubv) and st.is_uniform(sv):
            lo, hi, s = st.uniform(lbv, "lb"), st.uniform(ubv, "ub"), st.uniform(sv, "step")
            if s <= 0:
                raise SimError(f"scf.for step must be positive, got {s}")
            n = max(0, -(-(hi - lo) // s))
            if n > st.loop_cap:
                raise SimError(f"scf.for trip count {n} exceeds the simulator's loop cap {st.loop_cap}")
            for k in range(n):
                env[iv] = np.array([lo + k * s], dtype=idx_dtype)
                for j, sl in enumerate(iter_slots):
                    env[sl] = vals[j]
                run_ops(ops, env, st)
                vals = [env[y] for y in ysl]
        else:
            # divergent trip counts: iterate the maximum, masked per batch element
            B = st.B
            lbv = np.broadcast_to(lbv, (B,)).astype(np.int64)
            ubv = np.broadcast_to(ubv, (B,)).astype(np.int64)
            sv = np.broadcast_to(sv, (B,)).astype(np.int64)
            base = st.mask
            act = base if base is not None else np.ones(B, bool)
            if (sv[act] <= 0).any():
                raise SimError("scf.for step must be positive")
            trips = np.maximum(0, -(-(ubv - lbv) // np.where(sv > 0, sv, 1)))
            n = int(trips[act].max()) if act.any() else 0
            if n > st.loop_cap:
                raise SimError(f"scf.for trip count {n} exceeds the simulator's loop cap {st.loop_cap}")
            try:
                for k in range(n):
                    m = act & (k < trips)
                    st.mask = m
                    env[iv] = (lbv + k * sv).astype(idx_dtype)
                    for j, sl in enumerate(iter_slots):
                        env[sl] = vals[j]
                    run_ops(ops, env, st)
                    vals = [bselect(m, env[y], v) for y, v in zip(ysl, vals)]
            finally:
                st.mask = base
        for s, v in zip(outs, vals):
            env[s] = v

    return f


@handler("scf.if")
def _scf_if(c: FuncCompiler, o: OpInfo):
    cond = o.ins[0]
    then_b = c.compile_region(o.op.regions[0])
    else_b = c.compile_region(o.op.regions[1]) if len(o.op.regions) > 1 and len(o.op.regions[1].blocks) else None
    outs = o.outs

    def f(env, st):
        cv = env[cond]
        if st.is_uniform(cv):
            take = bool(st.uniform(cv, "condition"))
            if take:
                vals = run_block(then_b, env, st)
            elif else_b is not None:
                vals = run_block(else_b, env, st)
            else:
                vals = []
        else:
            base = st.mask
            cvb = np.broadcast_to(np.asarray(cv, bool), (st.B,))
            mt = cvb if base is None else (base & cvb)
            me = ~cvb if base is None else (base & ~cvb)
            try:
                st.mask = mt
                vt = run_block(then_b, env, st)
                if else_b is not None:
                    st.mask = me
                    ve = run_block(else_b, env, st)
                else:
                    ve = []
            finally:
                st.mask = base
            vals = [bselect(cvb, a, b) for a, b in zip(vt, ve)]
        for s, v in zip(outs, vals):
            env[s] = v

    return f


@handler("scf.while")
def _scf_while(c: FuncCompiler, o: OpInfo):
    before = c.compile_region(o.op.regions[0])
    after = c.compile_region(o.op.regions[1])
    inits = o.ins
    outs = o.outs

    def f(env, st):
        vals = [env[s] for s in inits]
        base = st.mask
        results = None
        it = 0
        try:
            while True:
                it += 1
                if it > st.loop_cap:
                    raise SimError(f"scf.while exceeded the simulator's loop cap {st.loop_cap}")
                tv = run_block_args(before, vals, env, st)
                cond, fwd = tv[0], tv[1:]
                if st.is_uniform(cond):
                    if not st.uniform(cond, "condition"):
                        cur = st.mask
                        results = fwd if (results is None or cur is None) else \
                            [bselect(cur, a, b) for a, b in zip(fwd, results)]
                        break
                    vals = run_block_args(after, fwd, env, st)
                    continue
                cb = np.broadcast_to(np.asarray(cond, bool), (st.B,))
                cur = st.mask if st.mask is not None else np.ones(st.B, bool)
                leaving = cur & ~cb
                results = fwd if results is None else [bselect(leaving, a, b) for a, b in zip(fwd, results)]
                st.mask = cur & cb
                vals = run_block_args(after, fwd, env, st)
        finally:
            st.mask = base
        for s, v in zip(outs, results or []):
            env[s] = v

    return f


def run_block_args(blk, args, env, st):
    for sl, v in zip(blk.arg_slots, args):
        env[sl] = v
    return run_block(blk, env, st)


@handler("scf.execute_region")
def _scf_exec(c, o):
    blk = c.compile_region(o.op.regions[0])
    outs = o.outs

    def f(env, st):
        vals = run_block(blk, env, st)
        for s, v in zip(outs, vals):
            env[s] = v

    return f


@handler("scf.index_switch")
def _scf_switch(c, o):
    arg = o.ins[0]
    cases = attr_ints(o.attr("cases"))
    regions = list(o.op.regions)
    default = c.compile_region(regions[0])
    blocks = [c.compile_region(r) for r in regions[1:]]
    outs = o.outs

    def f(env, st):
        v = st.uniform(env[arg], "scf.index_switch argument")
        blk = default
        for cv, b in zip(cases, blocks):
            if cv == v:
                blk = b
        vals = run_block(blk, env, st)
        for s, x in zip(outs, vals):
            env[s] = x

    return f


@handler("func.call")
def _func_call(c: FuncCompiler, o: OpInfo):
    callee = str(o.attr("callee")).lstrip("@")
    ins, outs = o.ins, o.outs
    sim, level = c.sim, c.level
    state = {}

    def f(env, st):
        cf = state.get("cf")
        if cf is None:
            fop = sim.lookup_func(callee)
            if fop is None:
                raise SimError(f"func.call: callee @{callee} not found")
            if len(fop.regions) == 0 or len(fop.regions[0].blocks) == 0:
                raise SimError(f"func.call: callee @{callee} is a declaration (external functions are not simulated)")
            cf = state["cf"] = sim.compile_func(fop, level)
        vals = sim.call(cf, [env[s] for s in ins], st)
        for s, v in zip(outs, vals):
            env[s] = v

    return f
