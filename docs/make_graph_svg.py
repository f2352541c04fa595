"""Regenerate docs/graph.svg: ``make_dot`` of the demo's MLP (64-128-128-10 on the digits
data, with the tutorial's CustomActivation between the layers) and its cross-entropy loss.
Needs graphviz's ``dot`` program.

Run: python docs/make_graph_svg.py
"""

import os

import dyngrad
from dyngrad.demo.functions import CustomActivation
from dyngrad.demo.train import MLP
from dyngrad.nn import functional as F
from dyngrad.viz import make_dot

dyngrad.manual_seed(0)
model = MLP([64, 128, 128, 10], CustomActivation.apply)
x = dyngrad.randn(8, 64)
target = dyngrad.randint(0, 10, (8,))
loss = F.cross_entropy(model(x), target)
dot = make_dot(loss, params=dict(model.named_parameters()), show_saved=True)
here = os.path.dirname(os.path.abspath(__file__))
dot.render(os.path.join(here, "graph"), format="svg", cleanup=True)
print("wrote", os.path.join(here, "graph.svg"))
