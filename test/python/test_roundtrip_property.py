"""Property: printing, re-parsing and printing again gives identical IR, for generated types and ops."""
from hypothesis import given, settings, strategies as st

import xedialects

ELTS = ["bf16", "f16", "f32", "i8", "i32"]
pow2 = st.sampled_from([1, 2, 4, 8, 16, 32, 64])


@st.composite
def tile_types(draw):
    shape = [draw(pow2), draw(pow2)]
    elt = draw(st.sampled_from(ELTS))
    fields = []
    if draw(st.booleans()):
        fields.append(f"order = [{draw(st.sampled_from(['0, 1', '1, 0']))}]")
    if draw(st.booleans()):
        fields.append(f"inner_blocks = [{shape[0]}, {shape[1]}]")
    if draw(st.booleans()):
        lay = [draw(st.sampled_from([1, 2, 4])) for _ in range(2)]
        data = [max(1, shape[d] // lay[d]) for d in range(2)]
        fields.append(f"wg_map = <sg_layout = [{lay[0]}, {lay[1]}], sg_data = [{data[0]}, {data[1]}]>")
    if draw(st.booleans()):
        fields.append(f"memory_space = {draw(st.sampled_from([0, 3]))} : i32")
    attr = f", #xetile.tile_attr<{', '.join(fields)}>" if fields else ""
    return f"!xetile.tile<{shape[0]}x{shape[1]}x{elt}{attr}>", shape, elt


@st.composite
def tdesc_types(draw):
    shape = [draw(st.sampled_from([1, 2, 4, 8])), draw(st.sampled_from([16, 32]))]
    elt = draw(st.sampled_from(ELTS))
    fields = []
    if draw(st.booleans()):
        fields.append(f"memory_scope = {draw(st.sampled_from(['global', 'slm']))}")
    if draw(st.booleans()):
        fields.append(f"boundary_check = {draw(st.sampled_from(['true', 'false']))}")
    if draw(st.booleans()):
        fields.append("sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>")
    attr = (f", #xegpu.tdesc_attr<{', '.join(fields)}>" if fields else "")
    return f"!xegpu.tensor_desc<{shape[0]}x{shape[1]}x{elt}{attr}>"


def roundtrip(text):
    ctx = xedialects.make_context()
    first = xedialects.print_ir(xedialects.parse(text, context=ctx))
    second = xedialects.print_ir(xedialects.parse(first, context=ctx))
    generic = xedialects.print_ir(xedialects.parse(first, context=ctx), generic=True)
    third = xedialects.print_ir(xedialects.parse(generic, context=ctx))
    assert first == second == third
    return first


@settings(max_examples=40, deadline=None)
@given(tile_types(), tdesc_types())
def test_types_roundtrip(tile, tdesc):
    t, shape, elt = tile
    out = roundtrip(f"func.func @f(%t: {t}, %d: {tdesc}) {{ return }}")
    assert "!xetile.tile<" in out and "!xegpu.tensor_desc<" in out


@settings(max_examples=30, deadline=None)
@given(tile_types(), st.booleans(), st.sampled_from([None, 0, 3]))
def test_tile_ops_roundtrip(tile, with_padding, locality):
    t, shape, elt = tile
    if "inner_blocks" in t:
        vec = f"vector<1x1x{shape[0]}x{shape[1]}x{elt}>"
    else:
        vec = f"vector<{shape[0]}x{shape[1]}x{elt}>"
    if "order = [0, 1]" in t:
        src_t = f"memref<256x256x{elt}, strided<[1, 256]>>"
    else:
        src_t = f"memref<256x256x{elt}>"
    pad = ""
    if with_padding:
        pad = f" {{padding = 1 : {elt}}}" if elt.startswith("i") else f" {{padding = 1.0 : {elt}}}"
    loc = f" {{locality = {locality} : i32}}" if locality is not None else ""
    src = f"""func.func @f(%A: {src_t}, %i: index) {{
  %t = xetile.init_tile %A[%i, 0] : {src_t} -> {t}
  %v = xetile.load_tile %t{pad} : {t} -> {vec}
  xetile.prefetch_tile %t{loc} : {t}
  %u = xetile.update_tile_offset %t, [%i, 16] : {t}
  xetile.store_tile %v, %u : {vec}, {t}
  return
}}"""
    out = roundtrip(src)
    ops = [l for l in out.splitlines() if l.strip().startswith("xetile.") or "= xetile." in l]
    assert len(ops) == 5
