"""Resampling and ceil-mode pooling cases shared by tests/nn/test_resample.py and
tests/golden/gen_resample.py: (name, function name in nn.functional, input shape, kwargs)."""

CASES = [
    ("linear_up_align", "interpolate", (2, 3, 5), {"scale_factor": 2.5, "mode": "linear", "align_corners": True}),
    ("linear_down", "interpolate", (2, 3, 7), {"size": 3, "mode": "linear"}),
    ("nearest_1d_odd_scale", "interpolate", (2, 3, 5), {"scale_factor": 1.7, "mode": "nearest"}),
    ("nearest_exact_2d", "interpolate", (2, 3, 4, 5), {"size": (7, 3), "mode": "nearest-exact"}),
    ("bilinear_size", "interpolate", (2, 3, 4, 5), {"size": (7, 9), "mode": "bilinear"}),
    ("bilinear_down_align", "interpolate", (2, 3, 6, 7), {"scale_factor": 0.6, "mode": "bilinear", "align_corners": True}),
    ("bicubic_up", "interpolate", (2, 3, 4, 5), {"scale_factor": 2, "mode": "bicubic"}),
    ("bicubic_recompute", "interpolate", (2, 3, 4, 5), {"scale_factor": 1.7, "mode": "bicubic", "recompute_scale_factor": True}),
    ("trilinear", "interpolate", (1, 2, 3, 4, 5), {"size": (4, 3, 7), "mode": "trilinear"}),
    ("nearest_3d", "interpolate", (1, 2, 3, 4, 5), {"scale_factor": (2, 1, 0.5), "mode": "nearest"}),
    ("area", "interpolate", (2, 3, 6, 6), {"size": (4, 3), "mode": "area"}),
    ("pixel_shuffle", "pixel_shuffle", (2, 8, 3, 4), {"upscale_factor": 2}),
    ("pixel_unshuffle", "pixel_unshuffle", (2, 3, 4, 6), {"downscale_factor": 2}),
    ("max_pool2d_ceil", "max_pool2d", (2, 3, 7, 6), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ("max_pool2d_ceil_dilated", "max_pool2d", (2, 3, 7, 7), {"kernel_size": 2, "stride": 3, "dilation": 2, "ceil_mode": True}),
    ("avg_pool2d_ceil", "avg_pool2d", (2, 3, 7, 6), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool2d_ceil_no_pad_count", "avg_pool2d", (2, 3, 6, 5), {"kernel_size": 3, "stride": 2, "padding": 1,
                                                                  "ceil_mode": True, "count_include_pad": False}),
    ("avg_pool1d_ceil", "avg_pool1d", (2, 3, 7), {"kernel_size": 2, "stride": 2, "ceil_mode": True}),
]
