"""PyTorch 2.13's in-place checks (issue 12 leftovers): while recording, an in-place change of
an output of ``unbind``/``split``/``chunk`` (or of a view of one) is refused; an in-place op
(or ``copy_``, ``out=``, an assignment ``x[1:] = x[:-1]``) whose input partially overlaps the written-to memory is refused
("unsupported operation: some elements of the input tensor and the written-to tensor refer
to a single memory location"), where a full overlap (``x.add_(x)``) and layouts PyTorch does
not compare (strided, not dense) are fine. Outcomes as printed by PyTorch 2.13
(tests/oracle/test_multi_output_and_overlap_oracle.py compares live)."""

from __future__ import annotations

import pytest

import dyngrad

MULTI = "is the output of a function that returns multiple views"
OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single memory location"


def _b(lib):
    return lib.arange(6.0).reshape(2, 3).requires_grad_() * 1


# name -> (what to run with a library, PyTorch 2.13's outcome: None for no error, else a message part)
CASES = {
    "unbind_add_": (lambda lib: _b(lib).unbind(0)[0].add_(1), "Output 0 of Unbind is a view"),
    "unbind_second_mul_": (lambda lib: _b(lib).unbind(0)[1].mul_(2), "Output 1 of Unbind is a view"),
    "split_mul_": (lambda lib: _b(lib).split(1, 0)[0].mul_(2), "Output 0 of Split is a view"),
    "chunk_zero_": (lambda lib: _b(lib).chunk(2, 1)[0].zero_(), "Output 0 of Split is a view"),
    "split_sizes_mul_": (lambda lib: _b(lib).split([1, 1], 0)[0].mul_(2), "Output 0 of SplitWithSizes is a view"),
    "view_of_unbind_add_": (lambda lib: _b(lib).unbind(0)[0][:2].add_(1), MULTI),
    "unbind_setitem": (lambda lib: _b(lib).unbind(0)[0].__setitem__(0, 5.0), MULTI),
    "unbind_no_grad_base": (lambda lib: lib.arange(6.0).reshape(2, 3).unbind(0)[0].add_(1), None),
    "unbind_detached": (lambda lib: _b(lib).unbind(0)[0].detach().add_(1), None),
    "tensor_split_add_": (lambda lib: _b(lib).tensor_split(2, 0)[0].add_(1), None),
    "unbind_then_clone": (lambda lib: _b(lib).unbind(0)[0].clone().add_(1), None),
    "overlap_add_slices": (lambda lib: (lambda x: x[1:].add_(x[:-1]))(lib.arange(5.0)), OVERLAP),
    "overlap_add_t": (lambda lib: (lambda x: x.add_(x.t()))(lib.arange(4.0).reshape(2, 2)), OVERLAP),
    "overlap_copy_": (lambda lib: (lambda x: x[1:].copy_(x[:-1]))(lib.arange(5.0)), OVERLAP),
    "overlap_copy_forward": (lambda lib: (lambda x: x[:4].copy_(x[1:]))(lib.arange(5.0)), OVERLAP),
    "overlap_0d_inside": (lambda lib: (lambda x: x.mul_(x[0]))(lib.arange(4.0)), OVERLAP),
    "overlap_clamp_": (lambda lib: (lambda x: x[1:].clamp_(max=x[:-1]))(lib.arange(5.0)), OVERLAP),
    "overlap_lerp_": (lambda lib: (lambda x: x[1:].lerp_(x[:-1], 0.5))(lib.arange(4.0)), OVERLAP),
    "overlap_out": (lambda lib: (lambda x: lib.add(x[:3], x[3:], out=x[1:4]))(lib.arange(6.0)), OVERLAP),
    "overlap_recorded": (lambda lib: (lambda x: x[1:].add_(x[:-1]))(lib.arange(5.0, requires_grad=True) * 1), OVERLAP),
    "full_overlap_self": (lambda lib: (lambda x: x.add_(x))(lib.arange(5.0)), None),
    "full_overlap_view": (lambda lib: (lambda x: x.add_(x.view(2, 2).flatten()))(lib.arange(4.0)), None),
    "disjoint_slices": (lambda lib: (lambda x: x[:2].add_(x[3:]))(lib.arange(5.0)), None),
    "disjoint_0d": (lambda lib: (lambda x: x[1:].mul_(x[0]))(lib.arange(4.0)), None),
    "interleaved_not_dense": (lambda lib: (lambda x: x[::2].add_(x[1::2]))(lib.arange(6.0)), None),
    "columns_not_dense": (lambda lib: (lambda x: x[:, 0].add_(x[:, 1]))(lib.arange(6.0).reshape(2, 3)), None),
    "copy_rows": (lambda lib: (lambda x: x[0].copy_(x[1]))(lib.arange(6.0).reshape(2, 3)), None),
    # assignments: a view index compares the written elements, tensor/list indices the whole tensor
    "assign_overlap": (lambda lib: (lambda x: x.__setitem__(slice(1, None), x[:-1]))(lib.arange(5.0)), OVERLAP),
    "assign_overlap_recorded": (lambda lib: (lambda x: x.__setitem__(slice(1, None), x[:-1]))(
        lib.arange(5.0, requires_grad=True) * 1), OVERLAP),
    "assign_rows": (lambda lib: (lambda x: x.__setitem__(0, x[1]))(lib.arange(6.0).reshape(2, 3)), None),
    "assign_rows_recorded": (lambda lib: (lambda x: x.__setitem__(0, x[1]))(
        lib.arange(6.0, requires_grad=True).reshape(2, 3) * 1), None),
    "assign_disjoint": (lambda lib: (lambda x: x.__setitem__(slice(None, 2), x[3:]))(lib.arange(5.0)), None),
    "assign_columns": (lambda lib: (lambda x: x.__setitem__((slice(None), 0), x[:, 1]))(
        lib.arange(6.0).reshape(2, 3)), None),
    "assign_list_index": (lambda lib: (lambda x: x.__setitem__([3, 4], x[:2]))(lib.arange(5.0)), OVERLAP),
    "assign_mask": (lambda lib: (lambda x: x.__setitem__(x > 2, x[:2]))(lib.arange(5.0)), OVERLAP),
    "assign_itself": (lambda lib: (lambda x: x.__setitem__(Ellipsis, x))(lib.arange(5.0)), None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_in_place_checks_as_pytorch(case) -> None:
    run, want = CASES[case]
    if want is None:
        run(dyngrad)
    else:
        with pytest.raises(RuntimeError, match=want):
            run(dyngrad)


def test_unbind_outputs_change_freely_under_no_grad_and_give_right_values() -> None:
    b = _b(dyngrad)
    with dyngrad.no_grad():
        u = b.unbind(0)
        u[0].add_(1)
    assert b.tolist() == [[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]
    x = dyngrad.arange(5.0)
    x[1:].add_(x[:-1].clone())
    assert x.tolist() == [0.0, 1.0, 3.0, 5.0, 7.0]
