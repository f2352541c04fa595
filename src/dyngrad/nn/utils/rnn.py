"""Variable-length sequences for the recurrent layers (PyTorch's ``torch.nn.utils.rnn``):
``PackedSequence``, ``pack_padded_sequence``, ``pad_packed_sequence``, ``pad_sequence``,
``pack_sequence``, ``unpad_sequence``, ``unpack_sequence``.

A packed sequence stores the steps of a batch of sequences sorted by decreasing length,
time-major: ``data[offset_t : offset_t + batch_sizes[t]]`` is step ``t`` of the
``batch_sizes[t]`` sequences still running at ``t``. Packing and unpacking are gathers
(``index_select``) so gradients flow through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ... import creation, ops
from ...tensor import Tensor

__all__ = [
    "PackedSequence",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "pack_sequence",
    "unpad_sequence",
    "unpack_sequence",
]


def _long(a: Any) -> Tensor:
    return Tensor._make(np.asarray(a, dtype=np.int64))


class PackedSequence(NamedTuple):
    """A batch of variable-length sequences, packed (see the module docstring).

    Attributes:
        data (Tensor): ``(sum(lengths), *)``, the steps, time-major.
        batch_sizes (Tensor): int64 ``(max_length,)``, how many sequences run at each step.
        sorted_indices (Tensor | None): the batch order by decreasing length (None when the
            input was already sorted).
        unsorted_indices (Tensor | None): its inverse permutation.

    Example:
        >>> import dyngrad
        >>> from dyngrad.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([dyngrad.tensor([1., 2., 3.]), dyngrad.tensor([4., 5.])])
        >>> p.data, p.batch_sizes
        (tensor([1., 4., 2., 5., 3.]), tensor([2, 2, 1]))
    """

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The same packed sequence with ``data`` converted (``Tensor.to``'s arguments)."""
        return self._replace(data=self.data.to(*args, **kwargs))

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def _lengths_list(lengths: Any) -> list[int]:
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(f"pack_padded_sequence: lengths must be a 1D tensor, got {lengths.dim()}D")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(
    input: Tensor, lengths: Any, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Pack a padded batch of variable-length sequences.

    Args:
        input (Tensor): ``(T, B, *)``, or ``(B, T, *)`` with ``batch_first``.
        lengths (Tensor or list of int): ``(B,)`` the length of each sequence (on the CPU).
        batch_first (bool): the layout of ``input``.
        enforce_sorted (bool): True requires lengths in decreasing order; False sorts them
            (the permutation is kept in ``sorted_indices``).

    Returns:
        PackedSequence: gradients flow back to ``input``'s unpadded entries.

    Raises:
        RuntimeError: lengths not sorted while ``enforce_sorted``; a length of 0 or above
            the padded length; lengths and batch size that differ.

    Example:
        >>> import dyngrad
        >>> from dyngrad.nn.utils.rnn import pack_padded_sequence
        >>> x = dyngrad.arange(6.).reshape(3, 2)   # T=3, B=2
        >>> pack_padded_sequence(x, [3, 1]).batch_sizes
        tensor([2, 1, 1])
    """
    lens = _lengths_list(lengths)
    if batch_first:
        input = input.transpose(0, 1)
    T, B = input.shape[0], input.shape[1]
    if len(lens) != B:
        raise RuntimeError(
            f"pack_padded_sequence: expected {B} lengths (the batch size of input), got {len(lens)}"
        )
    if enforce_sorted:
        if any(lens[i] < lens[i + 1] for i in range(B - 1)):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX exportability."
            )
        order = np.arange(B)
        sorted_idx = unsorted_idx = None
    else:
        order = np.argsort(-np.asarray(lens, dtype=np.int64), kind="stable")
        sorted_idx = _long(order)
        unsorted_idx = _long(np.argsort(order, kind="stable"))
    slens = [lens[i] for i in order]
    if slens and slens[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    if slens and slens[0] > T:
        raise RuntimeError(
            f"pack_padded_sequence: a length ({slens[0]}) is larger than the padded length of "
            f"input ({T})"
        )
    batch_sizes = [sum(1 for n in slens if n > t) for t in range(slens[0] if slens else 0)]
    # flat index into input viewed as (T * B, *): step t of sorted sequence j
    flat = [t * B + int(order[j]) for t, bs in enumerate(batch_sizes) for j in range(bs)]
    data = ops.index_select(input.reshape(T * B, *input.shape[2:]), 0, _long(flat))
    return PackedSequence(data, _long(batch_sizes), sorted_idx, unsorted_idx)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Unpack a ``PackedSequence`` into a padded batch (the inverse of
    :func:`pack_padded_sequence`).

    Args:
        sequence (PackedSequence): the batch to unpack.
        batch_first (bool): return ``(B, T, *)`` instead of ``(T, B, *)``.
        padding_value (float): the value of the padded entries.
        total_length (int, optional): pad to this length (at least the longest sequence).

    Returns:
        (Tensor, Tensor): the padded batch in the original order, and the int64 lengths.

    Raises:
        ValueError: ``total_length`` shorter than the longest sequence.

    Example:
        >>> import dyngrad
        >>> from dyngrad.nn.utils.rnn import pack_sequence, pad_packed_sequence
        >>> p = pack_sequence([dyngrad.tensor([1., 2.]), dyngrad.tensor([3.])])
        >>> pad_packed_sequence(p, batch_first=True)
        (tensor([[1., 2.],
                [3., 0.]]), tensor([2, 1]))
    """
    data, bsz = sequence.data, [int(v) for v in sequence.batch_sizes.tolist()]
    T = len(bsz)
    B = bsz[0] if bsz else 0
    if total_length is not None:
        if total_length < T:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being {T}"
            )
        T_out = total_length
    else:
        T_out = T
    feat = tuple(data.shape[1:])
    # gather from [data; padding row]: output (t, j) takes packed row off_t + j, else padding
    pad_row = creation.full((1, *feat), padding_value, dtype=data.dtype)
    src = ops.cat([data, pad_row], 0)
    n = data.shape[0]
    idx = np.full((T_out, B), n, dtype=np.int64)
    off = 0
    for t, bs in enumerate(bsz):
        idx[t, :bs] = np.arange(off, off + bs)
        off += bs
    lengths = np.array([sum(1 for b in bsz if b > j) for j in range(B)], dtype=np.int64)
    if sequence.unsorted_indices is not None:
        perm = sequence.unsorted_indices.numpy()
        idx = idx[:, perm]
        lengths = lengths[perm]
    out = ops.index_select(src, 0, _long(idx.reshape(-1))).reshape(T_out, B, *feat)
    if batch_first:
        out = out.transpose(0, 1)
    return out, _long(lengths)


def pad_sequence(
    sequences: Sequence[Tensor] | Tensor,
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack tensors of shapes ``(L_i, *)`` into ``(max L, B, *)`` (or ``(B, max L, *)``),
    padding with ``padding_value`` on the ``padding_side`` ('right' or 'left').

    Raises:
        ValueError: an unknown padding_side.
        RuntimeError: trailing dimensions that differ.

    Example:
        >>> import dyngrad
        >>> from dyngrad.nn.utils.rnn import pad_sequence
        >>> pad_sequence([dyngrad.ones(2), dyngrad.ones(1)], batch_first=True)
        tensor([[1., 1.],
                [1., 0.]])
    """
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    seqs = list(sequences.unbind(0)) if isinstance(sequences, Tensor) else list(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    trail = tuple(seqs[0].shape[1:])
    for s in seqs:
        if tuple(s.shape[1:]) != trail:
            raise RuntimeError(
                f"pad_sequence: all sequences must have the same trailing dimensions {list(trail)}, "
                f"got {list(s.shape[1:])}"
            )
    L = max(s.shape[0] for s in seqs)
    rows = []
    for s in seqs:
        n = L - s.shape[0]
        if n:
            pad = creation.full((n, *trail), padding_value, dtype=s.dtype)
            s = ops.cat([s, pad] if padding_side == "right" else [pad, s], 0)
        rows.append(s)
    return ops.stack(rows, 0 if batch_first else 1)


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack tensors of shapes ``(L_i, *)``: ``pack_padded_sequence(pad_sequence(...))``.

    Raises:
        RuntimeError: lengths not decreasing while ``enforce_sorted``.
    """
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths: Any, batch_first: bool = False) -> list[Tensor]:
    """The list of unpadded sequences ``(L_i, *)`` of a padded batch."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :n] for i, n in enumerate(_lengths_list(lengths))]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences ``(L_i, *)`` of a packed batch (original order)."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
