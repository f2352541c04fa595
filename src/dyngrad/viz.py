"""make_dot: the autograd graph as Graphviz DOT (being built)."""
