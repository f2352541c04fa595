"""Regenerate docs/graph.svg: make_dot of a small MLP's loss (needs graphviz's `dot`).

Run: python docs/make_graph_svg.py
"""

import os

import dyngrad
from dyngrad import nn
from dyngrad.viz import make_dot

dyngrad.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
x = dyngrad.randn(5, 4)
target = dyngrad.randn(5, 3)
loss = ((model(x) - target) ** 2).mean()
dot = make_dot(loss, params=dict(model.named_parameters()), show_saved=True)
here = os.path.dirname(os.path.abspath(__file__))
dot.render(os.path.join(here, "graph"), format="svg", cleanup=True)
print("wrote", os.path.join(here, "graph.svg"))
