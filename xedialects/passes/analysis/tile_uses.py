"""How subgroup-level tiles and vectors are used: the analysis shared by `xetile-blocking` and
`xetile-check-hw`.

* `TileGroups`: tiles that must share one type (an init_tile, the update_tile_offset chain from it
  and the scf.for iter_args / results / yields carrying it) form a group (union-find); each group
  records how its tiles are accessed: `load` (with the tile_mma operand the loaded value feeds:
  "A", "B", "C"), `store`, `prefetch`, `atomic`, `padded` (a load with a non-zero padding
  value) and `transposed` (a load feeding tile_transpose).
* `mma_uses(value)`: which tile_mma operands a vector reaches, through scf.for iter_args and
  yields.
"""
from __future__ import annotations

from mlir import ir

from ...xetile.attributes import TileType
from ...xetile.ops import LoadTileOp
from ..utils.ir_walk import owner_op, walk

_MMA_ROLES = ("A", "B", "C")


def is_tile(t) -> bool:
    return str(t).startswith("!xetile.tile")


def is_vector(t) -> bool:
    return isinstance(t, ir.VectorType) or str(t).startswith("vector<")


def _users(v):
    for use in v.uses:
        user = use.owner
        yield (user.operation if hasattr(user, "operation") else user), use.operand_number


def loop_successors(user, operand_number):
    """Values a use of `v` by `user` forwards `v` to: scf.for init -> (iter_arg, result),
    scf.yield in an scf.for -> (iter_arg, result); else ()."""
    if user.name == "scf.for" and operand_number >= 3:
        i = operand_number - 3
        return (user.regions[0].blocks[0].arguments[i + 1], user.results[i])
    if user.name == "scf.yield":
        parent = user.parent
        parent = parent.operation if parent is not None and hasattr(parent, "operation") else parent
        if parent is not None and parent.name == "scf.for":
            i = operand_number
            return (parent.regions[0].blocks[0].arguments[i + 1], parent.results[i])
    return ()


def reached_uses(value, *, through_reblocking=False):
    """(user op, operand number) of every use `value` reaches: its own uses and those of the
    scf.for iter_args / results it is carried to (and of tile_pack / tile_unpack results when
    `through_reblocking`)."""
    seen, work = set(), [value]
    while work:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        for user, k in _users(v):
            yield user, k
            if through_reblocking and user.name in ("xetile.tile_pack", "xetile.tile_unpack"):
                work.append(user.results[0])   # re-blocking keeps the data
            else:
                work.extend(loop_successors(user, k))


def mma_uses(value) -> list:
    """[(operand, tile_mma op)] for the tile_mma operands ("A", "B", "C") `value` reaches directly,
    through scf.for carries or through re-blocking."""
    return [(_MMA_ROLES[k], user) for user, k in reached_uses(value, through_reblocking=True)
            if user.name == "xetile.tile_mma" and k < 3]


def feeds(value, op_name) -> bool:
    """Does `value` reach an op named `op_name` directly or through scf.for carries?"""
    return any(user.name == op_name for user, _k in reached_uses(value))


def _padded(op) -> bool:
    pad = LoadTileOp(op).padding
    if pad is None:
        return False
    num = str(pad).split(":")[0].strip()
    try:
        return float(num) != 0.0
    except ValueError:
        return True


class TileGroup:
    """Tiles sharing one type, with how they are accessed."""

    def __init__(self, root):
        self.values: list = []
        self.origins: list = []      # init_tile ops
        self.loads: list = []        # (load_tile op, [(mma operand, tile_mma op)])
        self.stores: list = []
        self.prefetches: list = []
        self.atomics: list = []
        self.padded = False
        self.transposed = False      # a load feeds tile_transpose
        self.root = root

    @property
    def tile(self) -> TileType:
        return TileType(self.values[0].type)

    @property
    def roles(self) -> set:
        out = set()
        for _op, uses in self.loads:
            out |= {role for role, _mma in uses}
        return out

    @property
    def first_op(self):
        return self.origins[0] if self.origins else owner_op(self.values[0])


class TileGroups:
    """Union-find of the tile values of one function into `TileGroup`s."""

    def __init__(self, func):
        self.parent: dict = {}
        self.func = func
        tile_values = []
        for op in walk(func):
            for r in op.results:
                if is_tile(r.type):
                    tile_values.append(r)
            for region in op.regions:
                for block in region.blocks:
                    tile_values += [a for a in block.arguments if is_tile(a.type)]
            if op.name == "xetile.update_tile_offset":
                self._union(op.results[0], op.operands[0])
            for k, v in enumerate(op.operands):
                if is_tile(v.type):
                    for succ in loop_successors(op, k):
                        self._union(v, succ)
        self.groups: dict = {}
        for v in tile_values:
            root = self._find(v)
            g = self.groups.setdefault(root, TileGroup(root))
            g.values.append(v)
        for op in walk(func):
            n = op.name
            if n == "xetile.init_tile":
                self.of(op.results[0]).origins.append(op)
            elif n == "xetile.load_tile":
                g = self.of(op.operands[0])
                g.loads.append((op, mma_uses(op.results[0])))
                g.padded |= _padded(op)
                g.transposed |= (LoadTileOp(op).transpose is not None
                                 or feeds(op.results[0], "xetile.tile_transpose"))
            elif n == "xetile.store_tile":
                self.of(op.operands[1]).stores.append(op)
            elif n == "xetile.prefetch_tile":
                self.of(op.operands[0]).prefetches.append(op)
            elif n == "xetile.atomic_rmw_tile":
                self.of(op.operands[1]).atomics.append(op)

    def _find(self, v):
        self.parent.setdefault(v, v)
        while self.parent[v] != v:
            self.parent[v] = self.parent[self.parent[v]]
            v = self.parent[v]
        return v

    def _union(self, a, b):
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self.parent[ra] = rb

    def of(self, v) -> TileGroup:
        return self.groups[self._find(v)]

    def __iter__(self):
        return iter(self.groups.values())


def is_elementwise(op) -> bool:
    """An arith/math op (not a constant) whose vector operands and results all have one shape."""
    name = op.name
    if not name.startswith(("arith.", "math.")) or name == "arith.constant" or not op.results:
        return False
    shapes = {tuple(ir.VectorType(v.type).shape) for v in list(op.operands) + list(op.results) if is_vector(v.type)}
    return len(shapes) == 1
