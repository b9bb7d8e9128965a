"""Plan pictures (`xedialects.draw`, `xe-opt --xe-draw`, `xe-run --draw`): the SVGs parse as XML
and hold the expected numbers of cells for the 4096^3 bf16 plan and a small one; errors are
located diagnostics / `xe-opt: error:` lines with exit 1."""
import xml.etree.ElementTree as ET

import pytest

import xedialects
from xedialects.draw import DrawError, draw_kernels, plan_recording, write_drawings
from xedialects.passes import Pipeline
from xedialects.tools import xe_opt, xe_run

NS = "{http://www.w3.org/2000/svg}"


def gemm_src(m, n, k, t="bf16", acc="f32"):
    return (f"func.func @gemm(%A: memref<{m}x{k}x{t}>, %B: memref<{k}x{n}x{t}>, %C: memref<{m}x{n}x{acc}>) {{\n"
            f"  linalg.matmul ins(%A, %B : memref<{m}x{k}x{t}>, memref<{k}x{n}x{t}>) outs(%C : memref<{m}x{n}x{acc}>)\n"
            f"  return\n}}\n")


def drawings(src, *passes):
    module = xedialects.parse(src, "gemm.mlir")
    with plan_recording() as plans:
        p = Pipeline()
        for name in passes or ("xe-gemm-to-xegpu",):
            p.add(name)
        p.run(module)
    return plans, draw_kernels(module, plans)


def cells(svg_text, group_cls, cell_cls):
    root = ET.fromstring(svg_text.encode())
    groups = [g for g in root.iter(NS + "g") if g.get("class") == group_cls]
    assert groups, group_cls
    return [r for g in groups for r in g.iter(NS + "rect") if r.get("class") == cell_cls]


@pytest.fixture(scope="module")
def big():
    return drawings(gemm_src(4096, 4096, 4096))


def test_files_per_kernel_and_xml(big):
    plans, d = big
    assert set(d) == {"gemm_0-workgroup.svg", "gemm_0-subgroup.svg", "gemm_0-workitem.svg"}
    for text in d.values():
        root = ET.fromstring(text.encode())
        assert root.tag == NS + "svg" and int(root.get("width")) > 400


def test_workgroup_view_4096(big):
    plans, d = big
    plan = plans["gemm_0"]
    svg = d["gemm_0-workgroup.svg"]
    assert plan.sg_layout == (8, 4)
    c = cells(svg, "c-tile", "cell")
    assert len(c) == 32                                        # one cell per subgroup
    assert len({r.get("fill") for r in c}) == 32
    assert len(cells(svg, "a-tile", "cell")) == 8              # 256x32 by sg_data 32x32
    assert len(cells(svg, "b-tile", "cell")) == 4              # 32x256 by sg_data 32x64
    assert len(cells(svg, "grid", "wg")) == 16 * 16
    for label in ("sg 31", "sg_layout 8x4", "sg_data 32x64", "first wave: 128 work-groups", "row_major",
                  "plan reasons", "wg_map A: sg_layout [8, 4], sg_data [32, 32]"):
        assert label in svg, label


def test_subgroup_view_4096(big):
    _, d = big
    svg = d["gemm_0-subgroup.svg"]
    assert len(cells(svg, "sg-c", "dpas-c")) == 16             # 32x64 of 8x16 DPAS C blocks
    assert len(cells(svg, "sg-a", "dpas-a")) == 8              # 32x32 of 8x16
    assert len(cells(svg, "sg-b", "dpas-b")) == 8              # 32x64 of 16x16
    assert len(cells(svg, "sg-a", "load-a")) == 1              # one 32x32 load
    assert len(cells(svg, "sg-b", "load-b")) == 4              # four 32x16 VNNI loads
    assert len(cells(svg, "prefetch-a", "prefetch")) == 32
    assert "4 x load 32x16 bf16 (VNNI)" in svg and "32 DPAS 8x16x16" in svg


def test_workitem_view_4096(big):
    _, d = big
    svg = d["gemm_0-workitem.svg"]
    a, b, c = (cells(svg, g, "wi") for g in ("wi-a", "wi-b", "wi-c"))
    assert (len(a), len(b), len(c)) == (128, 256, 128)
    assert len({r.get("fill") for r in a + b + c}) == 16       # one colour per work-item
    text = " ".join(ET.fromstring(svg.encode()).itertext())
    assert "wi_layout [1, 16], wi_data [2, 1]" in text and "vector<8x1x2xbf16>" in text


def test_simt_ir_maps_and_small_plan():
    plans, d = drawings(gemm_src(128, 128, 64), "xe-gemm-to-xegpu", "xegpu-simt-distribute")
    plan = plans["gemm_0"]
    svg = d["gemm_0-workgroup.svg"]
    assert len(cells(svg, "c-tile", "cell")) == plan.sg_layout[0] * plan.sg_layout[1]
    wi = d["gemm_0-workitem.svg"]
    assert "(from the SIMT descriptors)" in wi


def test_no_kernel_and_no_plan():
    module = xedialects.parse(gemm_src(64, 64, 64), "gemm.mlir")
    with pytest.raises(DrawError, match="no gpu.func"):
        draw_kernels(module, {})
    Pipeline().add("xe-gemm-to-xegpu").run(module)
    with pytest.raises(DrawError, match="no GEMM plan for kernel"):
        draw_kernels(module, {})


def test_write_drawings(tmp_path, big):
    paths = write_drawings(big[1], str(tmp_path / "out"))
    assert sorted(p.rsplit("/", 1)[1] for p in paths) == sorted(big[1])


def test_xe_opt_draw(tmp_path, capsys):
    src = tmp_path / "g.mlir"
    src.write_text(gemm_src(256, 256, 256))
    out = tmp_path / "pics"
    assert xe_opt.main([str(src), "--xe-gemm-to-xegpu", f"--xe-draw={out}", "-o", str(tmp_path / "o.mlir")]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["gemm_0-subgroup.svg", "gemm_0-workgroup.svg",
                                                      "gemm_0-workitem.svg"]
    # no kernel: a located error, nothing written
    assert xe_opt.main([str(src), f"--xe-draw={tmp_path / 'none'}"]) == 1
    err = capsys.readouterr().err
    assert f"{src}:1:1: error: --xe-draw: nothing to draw" in err and "Traceback" not in err
    assert not (tmp_path / "none").exists()
    # unwritable directory
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert xe_opt.main([str(src), "--xe-gemm-to-xegpu", f"--xe-draw={blocker / 'sub'}", "-o", "/dev/null"]) == 1
    assert "xe-opt: error: cannot write the --xe-draw pictures" in capsys.readouterr().err


def test_xe_run_draw(tmp_path, capsys):
    src = tmp_path / "g.mlir"
    src.write_text(gemm_src(64, 64, 64))
    out = tmp_path / "pics"
    assert xe_run.main([str(src), "--pipeline=xe-gemm-to-xegpu", f"--draw={out}"]) == 0
    assert len(list(out.iterdir())) == 3
    assert xe_run.main([str(src), f"--draw={tmp_path / 'x'}"]) == 1
    assert "xe-run: error: --draw: nothing to draw" in capsys.readouterr().err


def test_workgroup_view_to_scale_and_caption_clear_of_the_grid():
    # issue 31: in the 256^3 picture (32x64 work-group tiles, K step 32) the A and B tiles were drawn
    # 104 px along K whatever the scale, and C's centred caption ran under the grid's legend
    import re

    plans, d = drawings(gemm_src(256, 256, 256))
    plan, svg = plans["gemm_0"], d["gemm_0-workgroup.svg"]
    (wm, wn), ks = plan.wg_tile, plan.k_step
    c, a, b = (cells(svg, g, "cell") for g in ("c-tile", "a-tile", "b-tile"))
    px = float(c[0].get("width")) / plan.c_wg_map[1][1]               # pixels per element of C
    assert sum(float(r.get("width")) for r in a if r.get("y") == a[0].get("y")) == pytest.approx(ks * px)
    assert sum(float(r.get("height")) for r in b if r.get("x") == b[0].get("x")) == pytest.approx(ks * px)
    cap = re.search(r'<text x="([\d.]+)"[^>]*class="c-caption"[^>]*>([^<]*)<', svg)
    grid_x = min(float(r.get("x")) for r in cells(svg, "grid", "wg"))
    assert float(cap.group(1)) + len(cap.group(2)) * 12 * 0.66 < grid_x
