"""Transposed-convolution and padding_mode cases shared by tests/nn/test_conv_layers.py and
tests/golden/gen_conv_layers.py: (name, module class, constructor args, kwargs, input shape,
forward kwargs)."""

CASES = [
    ("ct2d_stride_pad_outpad_groups", "ConvTranspose2d", (4, 6, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}, (2, 4, 5, 5), {}),
    ("ct2d_output_size", "ConvTranspose2d", (4, 6, 3), {"stride": 2}, (2, 4, 5, 5), {"output_size": (12, 12)}),
    ("ct2d_rect_dilation_unbatched", "ConvTranspose2d", (3, 2, (2, 3)), {"stride": (2, 1), "dilation": (1, 2)}, (3, 4, 5), {}),
    ("ct1d_stride_dilation_nobias", "ConvTranspose1d", (4, 3, 3), {"stride": 3, "dilation": 2, "bias": False}, (2, 4, 7), {}),
    ("conv2d_reflect", "Conv2d", (3, 4, 3), {"padding": 2, "padding_mode": "reflect"}, (2, 3, 6, 7), {}),
    ("conv2d_same_circular_dilated", "Conv2d", (3, 4, 3), {"padding": "same", "padding_mode": "circular", "dilation": 2}, (2, 3, 6, 7), {}),
    ("conv1d_same_replicate_even_kernel", "Conv1d", (3, 4, 4), {"padding": "same", "padding_mode": "replicate"}, (2, 3, 9), {}),
    ("conv2d_replicate_strided", "Conv2d", (3, 4, (3, 2)), {"padding": (1, 2), "padding_mode": "replicate", "stride": 2}, (2, 3, 6, 7), {}),
    ("conv3d_groups_dilation", "Conv3d", (4, 6, (2, 3, 2)), {"stride": (1, 2, 1), "padding": (1, 0, 1), "dilation": (2, 1, 1), "groups": 2}, (2, 4, 5, 6, 4), {}),
    ("conv3d_same_reflect_unbatched", "Conv3d", (2, 3, 3), {"padding": "same", "padding_mode": "reflect"}, (2, 4, 5, 4), {}),
    ("conv3d_circular_nobias", "Conv3d", (2, 3, (3, 1, 2)), {"padding": (1, 0, 1), "padding_mode": "circular", "bias": False}, (1, 2, 4, 3, 5), {}),
    ("conv3d_replicate_strided", "Conv3d", (2, 2, 3), {"padding": 1, "padding_mode": "replicate", "stride": 2}, (1, 2, 5, 4, 6), {}),
    ("ct3d_stride_pad_outpad_groups", "ConvTranspose3d", (4, 6, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}, (1, 4, 3, 2, 3), {}),
    ("ct3d_output_size_dilation", "ConvTranspose3d", (2, 3, (2, 3, 2)), {"stride": (2, 1, 3), "dilation": (1, 2, 1)}, (2, 2, 3, 3, 2), {"output_size": (7, 7, 6)}),
]
