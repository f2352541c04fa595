"""make_dot / to_dot: node names, shapes, dtypes, saved tensors, parameter labels; deep
graphs without recursion; a clear error without the graphviz package."""

import re
import sys

import pytest

import dyngrad as torch
from dyngrad import nn
from dyngrad.autograd.graph import Node
from dyngrad.viz import make_dot, to_dot


def _mlp_loss():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    loss = ((model(torch.randn(5, 4)) - torch.randn(5, 3)) ** 2).mean()
    return model, loss


def _labels(src):
    return re.findall(r'label="([^"]*)"', src)


def test_make_dot_shows_node_names_shapes_dtypes_and_parameter_names():
    pytest.importorskip("graphviz")
    model, loss = _mlp_loss()
    dot = make_dot(loss, params=dict(model.named_parameters()))
    src = dot.source
    labels = _labels(src)
    assert "MeanBackward0\\n() f32" in labels
    assert "ReluBackward0\\n(5, 8) f32" in labels
    assert "0.weight\\n(8, 4) f32" in labels and "2.bias\\n(3) f32" in labels
    assert src.count("AddmmBackward0") == 2
    assert "saved[" not in src


def test_show_saved_lists_saved_tensors_with_bytes_and_versions():
    x = torch.randn(5, 4, requires_grad=True)
    y = x.exp()
    src = to_dot(y.sum(), show_saved=True)
    assert f"saved[0]: (5, 4) f32 {x._data.nbytes} B v0" in src
    x2 = torch.randn(3, dtype=torch.float64, requires_grad=True)
    z = x2.exp()
    z.sum().backward()
    assert "(saved tensors freed)" in to_dot(z, show_saved=True)


def test_edges_go_from_inputs_to_consumers_and_leaves_are_filled():
    x = torch.randn(3, requires_grad=True)
    y = x.exp()
    src = to_dot(y, params={"x": x})
    acc = y.grad_fn.next_functions[0][0]
    assert f"{id(acc)} -> {id(y.grad_fn)}" in src
    assert f"{id(y.grad_fn)} -> out0" in src
    assert re.search(rf'{id(acc)} \[label="x\\n\(3\) f32" fillcolor=lightblue\]', src)


def test_to_dot_and_make_dot_agree_and_shared_nodes_appear_once():
    x = torch.randn(3, requires_grad=True)
    y = x.exp()
    z = y * y + y
    src = to_dot(z)
    assert src.count(f'{id(y.grad_fn)} [label=') == 1
    if "graphviz" in sys.modules or pytest.importorskip("graphviz"):
        assert sorted(_labels(make_dot(z).source)) == sorted(_labels(src))


def test_leaf_output_and_several_outputs():
    x = torch.randn(2, requires_grad=True)
    src = to_dot([x, x * 2], params={"x": x})
    assert "out0" in src and "out1" in src
    with pytest.raises(TypeError, match="expected Tensors"):
        to_dot([x, 3])


class _ChainNode(Node):
    _name = "ChainBackward"


@pytest.mark.slow  # over 2 s: runs in .ci/run's slow step, not by default
def test_a_100000_node_chain_renders_without_recursion():
    # nodes built directly (100,000 real ops would take seconds); the walk is the same
    x = torch.randn(1, requires_grad=True)
    prev = x._accumulator()
    for _ in range(100_000):
        n = _ChainNode()
        n.next_functions = ((prev, 0),)
        prev = n
    y = torch.randn(1)
    y.grad_fn, y._requires_grad = prev, True
    src = make_dot(y).source if _has_graphviz() else to_dot(y)
    assert src.count("ChainBackward") == 100_000
    assert src.count("->") == 100_001


def test_a_chain_of_real_ops_renders():
    x = torch.randn(1, requires_grad=True)
    y = x
    for _ in range(2000):
        y = y * 1.0
    src = to_dot(y)
    assert src.count("MulBackward0") == 2000 and src.count("->") == 2001


def _has_graphviz():
    try:
        import graphviz  # noqa: F401
    except ImportError:
        return False
    return True


def test_make_dot_without_graphviz_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match=r"pip install dyngrad\[viz\]"):
        make_dot(torch.randn(2, requires_grad=True) * 2)
    assert to_dot(torch.randn(2, requires_grad=True) * 2).startswith("digraph {")


def test_draw_renders_the_graph_as_a_png_without_graphviz(tmp_path):
    pytest.importorskip("matplotlib")
    from dyngrad.viz import _layers, _walk, draw

    w = torch.randn(3, requires_grad=True)
    y = ((w * 2).exp() + w).sum()  # w feeds two nodes on different rows
    path = draw(y, str(tmp_path / "g.png"), params={"w": w})
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.endswith("g.png")
    nodes, edges = _walk(y, {"w": w}, False)
    layer = _layers(nodes, edges)
    assert all(layer[a] > layer[b] for a, b in edges)  # every edge points towards the output
    labels = {n: lab for n, lab, _ in nodes}
    assert max(layer.values()) == 5 and labels[max(layer, key=layer.get)].startswith("w\n")
