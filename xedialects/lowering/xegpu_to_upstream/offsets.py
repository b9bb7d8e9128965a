"""The offsets form (upstream's current style): descriptors are created without offsets, every
load_nd/store_nd/prefetch_nd takes its offsets, update_nd_offset disappears.

Each descriptor value gets (base descriptor name, one offset per dimension); an offset is symbolic,
`(root SSA name or None, constant)`. A descriptor carried by an scf.for and advanced by constant
offsets per iteration becomes loop-invariant; its offsets are recomputed at the top of the body as
`init + ((iv - lb) / step) * delta`."""
from __future__ import annotations

from .literal_offsets import LITERAL_OFFSETS
from .ops import DYNAMIC, TABLE, ExportOpError, _ints, _segments, not_exported_message

FUNCS = ("func.func", "gpu.func")


def _is_tdesc(t) -> bool:
    return str(t).startswith("!xegpu.tensor_desc<")


class OffsetPlan:
    def __init__(self, ex, table=TABLE):
        self.ex = ex
        self.table = table         # the exported xegpu ops (subgroup or lane level)
        self.off: dict = {}        # descriptor Value -> (base name, [(root, const)])
        self.alias: dict = {}      # (function #, name of an update_nd_offset result / a dropped
        #                            descriptor carry / a renumbered loop result) -> the name to print
        self.scope = 0             # function # (func.func / gpu.func in printed order): names repeat
        self.rename: dict = {}     # loop offset root -> the init name it equals (zero delta)
        self.before: dict = {}     # scf.for Operation -> lines before its header
        self.after: dict = {}      # scf.for Operation -> lines after its header (top of the body)
        self.replace: dict = {}    # update_nd_offset Operation -> lines replacing it
        self.dropped: dict = {}    # scf.for Operation -> indices of its descriptor carries (left out)
        self.creates: dict = {}    # (function #, base descriptor name) -> its create_nd_tdesc
        self.n = 0

    def fresh(self) -> str:
        self.n += 1
        return f"%xo{self.n}"

    # ---- analysis ------------------------------------------------------------------------------
    def analyze(self, op) -> None:
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    self.visit(inner.operation if hasattr(inner, "operation") else inner)

    def visit(self, op) -> None:
        try:
            self._visit(op)
        except ExportOpError as e:
            if getattr(e, "op", None) is None:
                e.op = op
            raise

    def _visit(self, op) -> None:
        name = op.name
        if name == "xegpu.create_nd_tdesc":
            _, n_off, _, _ = _segments(op)
            dyn = list(op.operands)[1:1 + n_off]
            st = _ints(op.attributes["static_offsets"])
            rank = len(str(op.result.type).split("array<i64:")[1].split(">")[0].split(","))
            syms = self._mixed(dyn, st) if st else [(None, 0)] * rank
            if len(syms) != rank:
                raise ExportOpError(f"a {rank}-D descriptor at {len(syms)} offsets (leading offsets into an N-D "
                                    "memref) is not exported in the offsets form (upstream wants one offset per "
                                    "descriptor dimension); export with form='descriptors'")
            self.off[op.result] = (self.ex.name(op.result), syms)
            self.creates[(self.scope, self.ex.name(op.result))] = op
        elif name == "xegpu.update_nd_offset":
            base, syms = self.get(op.operands[0], op)
            deltas = self._mixed(list(op.operands)[1:], _ints(op.attributes["static_offsets"]))
            lines, new = [], []
            for (r, c), (dr, dc) in zip(syms, deltas):
                if dr is None:
                    new.append((r, c + dc))
                    continue
                a, la = self.materialize((r, c))
                t = self.fresh()
                lines += la + [f"{t} = arith.addi {a}, {dr} : index"]
                new.append((t, dc))
            self.replace[op] = lines
            self.off[op.result] = (base, new)
            self.alias[(self.scope, self.ex.name(op.result))] = base
        elif name == "scf.for":
            self._loop(op)
            return
        else:
            if name.startswith("xegpu.") and name not in self.table:
                raise ExportOpError(not_exported_message(name))
            if name in FUNCS:
                self.scope += 1
            for r in op.results:
                if _is_tdesc(r.type) and name not in ("xegpu.create_tdesc", "xegpu.update_offset"):
                    raise ExportOpError(f"a descriptor produced by '{name}' is not exported in the offsets form")
        self.analyze(op)

    def _mixed(self, dyn, static):
        it = iter(dyn)
        return [(self.ex.name(next(it)), 0) if s == DYNAMIC else (None, s) for s in static]

    def get(self, v, user):
        if v not in self.off:
            raise ExportOpError(f"'{user.name}': descriptor {self.ex.name(v)} has no known offsets (only "
                                "create_nd_tdesc, update_nd_offset and scf.for carries are followed)")
        return self.off[v]

    def _loop(self, op) -> None:
        ops = list(op.operands)
        lb, step, inits = ops[0], ops[2], ops[3:]
        body = op.regions[0].blocks[0]
        iv, args = body.arguments[0], list(body.arguments)[1:]
        carried = []
        for i, (init, arg) in enumerate(zip(inits, args)):
            if not _is_tdesc(arg.type):
                continue
            ibase, isyms = self.get(init, op)
            roots = [self.fresh() for _ in isyms]
            self.off[arg] = (ibase, [(r, 0) for r in roots])
            self.alias[(self.scope, self.ex.name(arg))] = ibase
            carried.append((i, isyms, roots))
        self.analyze(op)
        if not carried:
            return
        yld = list(body.operations)[-1]
        before, after, trip, total = [], [], None, None
        self.dropped[op] = {i for i, _, _ in carried}
        for i, isyms, roots in carried:
            used_after = any(True for _ in op.results[i].uses)
            finals = []
            ybase, ysyms = self.get(yld.operands[i], yld)
            if ybase != self.off[args[i]][0] or any(r != root for (r, _), root in zip(ysyms, roots)):
                raise ExportOpError(f"the descriptor carried by the loop (iter_arg #{i}) is not advanced by "
                                    "constant offsets per iteration; not exported in the offsets form")
            for (_, delta), root, isym in zip(ysyms, roots, isyms):
                init, lines = self.materialize(isym)
                before += lines
                if delta == 0:
                    self.rename[root] = init
                    finals.append(isym)
                    continue
                if used_after:  # the offsets after the loop: init + trip count * delta, before the loop
                    if total is None:
                        total = self._trip_count(op, before)
                    d, m, f = self.fresh(), self.fresh(), self.fresh()
                    before += [f"{d} = arith.constant {delta} : index", f"{m} = arith.muli {total}, {d} : index",
                               f"{f} = arith.addi {init}, {m} : index"]
                    finals.append((f, 0))
                if trip is None:
                    t0, trip = self.fresh(), self.fresh()
                    after += [f"{t0} = arith.subi {self.ex.name(iv)}, {self.ex.name(lb)} : index",
                              f"{trip} = arith.divui {t0}, {self.ex.name(step)} : index"]
                d, m = self.fresh(), self.fresh()
                after += [f"{d} = arith.constant {delta} : index", f"{m} = arith.muli {trip}, {d} : index",
                          f"{root} = arith.addi {init}, {m} : index"]
            if used_after:
                self.off[op.results[i]] = (self.off[args[i]][0], finals)
        self.before[op], self.after[op] = before, after

    def _trip_count(self, op, lines) -> str:
        """Appends to `lines` the trip count (ub - lb + step - 1) / step of the scf.for; its name."""
        lb, ub, step = (self.ex.name(v) for v in list(op.operands)[:3])
        one, a, b, c, n = (self.fresh() for _ in range(5))
        lines += [f"{one} = arith.constant 1 : index", f"{a} = arith.subi {ub}, {lb} : index",
                  f"{b} = arith.addi {a}, {step} : index", f"{c} = arith.subi {b}, {one} : index",
                  f"{n} = arith.divui {c}, {step} : index"]
        return n

    # ---- printing ------------------------------------------------------------------------------
    def materialize(self, sym, literal_ok: bool = False):
        """(SSA name or literal, lines defining it) of a symbolic offset."""
        r, c = sym
        while r in self.rename:
            r = self.rename[r]
        if r is None:
            if literal_ok:
                return str(c), []
            t = self.fresh()
            return t, [f"{t} = arith.constant {c} : index"]
        if c == 0:
            return r, []
        k, t = self.fresh(), self.fresh()
        return t, [f"{k} = arith.constant {c} : index", f"{t} = arith.addi {r}, {k} : index"]

    def access(self, tdesc, user):
        """(base name, '[o0, o1]', lines) for a load/store/prefetch of `tdesc`."""
        base, syms = self.get(tdesc, user)
        parts, lines = [], []
        for s in syms:
            t, ls = self.materialize(s, literal_ok=LITERAL_OFFSETS)
            parts.append(t)
            lines += ls
        return base, "[" + ", ".join(parts) + "]", lines

    def base_create(self, tdesc, user):
        """The create_nd_tdesc of the base of `tdesc` (same function as the printed line)."""
        base, _ = self.get(tdesc, user)
        return self.creates.get((self.ex.scope, base))
