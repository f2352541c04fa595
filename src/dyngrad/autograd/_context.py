"""The one thread-local context: every per-thread mode of the engine lives here.

PyTorch keeps grad mode, the functorch interpreter stack, saved-tensor hooks and anomaly
mode in thread-local state; dyngrad keeps all of them in one object, ``context``, so that
what a thread is doing can be read in one place (``print(vars(context))``) and no module
hides a mode of its own. The public modules are thin views on it:

========================  ==============================  =================================
field                     meaning                         public face
========================  ==============================  =================================
``enabled``               grad mode: ops record a graph   ``no_grad``, ``set_grad_enabled``
``inference``             inside ``inference_mode()``     ``inference_mode``
``interpreters``          active transforms, innermost    ``func.vmap``, ``forward_ad``
                          last (``transforms.Interpreter``)
``resume_stack``          the stack before the running    ``custom_gradient``
                          interpreter lowered its call
``saved_hooks``           open ``saved_tensors_hooks``    ``autograd.graph``
                          (pack, unpack) pairs
``saved_hooks_disabled``  why saved-tensor hooks are      ``disable_saved_tensors_hooks``
                          refused (None: allowed)
``anomaly``               anomaly mode on                 ``detect_anomaly``
``anomaly_check_nan``     anomaly mode checks for NaN     ``detect_anomaly(check_nan=)``
``passes``                backward passes running         ``engine.current_pass``
                          (innermost last)
``profiler_stack``        events being timed (nested)     ``autograd.profiler``
``atomic_accumulation``   backward writes ``.grad`` only  ``autograd.atomic_accumulation``
                          after the whole pass succeeded
``strict_shapes``         custom Functions' gradients     ``autograd.set_strict_shapes``
                          must have the input's shape
========================  ==============================  =================================

Two process-wide values sit beside it on purpose, both read before the thread-local one
so the common case costs one plain attribute read: ``anomaly_mode.any_on`` (how many
threads have anomaly mode on) and ``graph._hooks_in_use`` (how many saved-tensor-hook
blocks are open); and the profiler's collected results are process-wide by nature.

Reading an attribute of a ``threading.local`` costs about 40 ns; ``Function.apply`` reads
``enabled`` and ``interpreters`` once per call.
"""

from __future__ import annotations

import threading

__all__ = ["Context", "context"]


class Context(threading.local):
    """The modes of this thread (see the module docstring for each field)."""

    enabled: bool
    inference: bool
    interpreters: tuple
    resume_stack: tuple | None
    saved_hooks: list
    saved_hooks_disabled: str | None
    anomaly: bool
    anomaly_check_nan: bool
    passes: list
    profiler_stack: list
    atomic_accumulation: bool
    strict_shapes: bool

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False
        self.interpreters = ()
        self.resume_stack = None
        self.saved_hooks = []
        self.saved_hooks_disabled = None
        self.anomaly = False
        self.anomaly_check_nan = True
        self.passes = []
        self.profiler_stack = []
        self.atomic_accumulation = False
        self.strict_shapes = False

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"Context({fields})"


context = Context()
