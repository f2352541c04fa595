"""dyngrad.func: function transforms (grad, jacrev, jacfwd, vmap, ...) (being built)."""
