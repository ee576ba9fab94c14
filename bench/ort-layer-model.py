#!/usr/bin/env python3
"""One convolution layer as an ONNX QLinearConv model, for bench/network-figures.sh's onnxruntime
contender: uint8 activations, int8 per-channel symmetric weights (ONNX Runtime's QLinearConv with
its u8s8 kernels, the arithmetic of qwino's fp32 mode), NCHW as ORT takes it, fixed-seed random
data.

usage: bench/ort-layer-model.py H W CIN COUT K STRIDE PAD(t,r,b,l) GROUPS MODEL.onnx INPUT.npy
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    if len(sys.argv) != 11:
        sys.exit(__doc__)
    h, w, cin, cout, k, stride = (int(v) for v in sys.argv[1:7])
    top, right, bottom, left = (int(v) for v in sys.argv[7].split(","))
    groups = int(sys.argv[8])
    model_path, input_path = sys.argv[9], sys.argv[10]
    rng = np.random.default_rng(20261129)
    weights = rng.integers(-127, 128, size=(cout, cin // groups, k, k), dtype=np.int8)
    bias = rng.integers(-2000, 2000, size=(cout,), dtype=np.int32)
    w_scale = (0.002 + 0.001 * rng.random(cout)).astype(np.float32)
    inits = [
        numpy_helper.from_array(np.array(0.05, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "x_zero_point"),
        numpy_helper.from_array(weights, "w"),
        numpy_helper.from_array(w_scale, "w_scale"),
        numpy_helper.from_array(np.zeros(cout, np.int8), "w_zero_point"),
        numpy_helper.from_array(np.array(0.2, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(120, np.uint8), "y_zero_point"),
        numpy_helper.from_array(bias, "b"),
    ]
    node = helper.make_node(
        "QLinearConv",
        ["x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point", "b"],
        ["y"], kernel_shape=[k, k], strides=[stride, stride], pads=[top, left, bottom, right],
        group=groups)
    oh = (h + top + bottom - k) // stride + 1
    ow = (w + left + right - k) // stride + 1
    graph = helper.make_graph(
        [node], "layer", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, cin, h, w])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, cout, oh, ow])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, model_path)
    np.save(input_path, rng.integers(0, 256, size=(1, cin, h, w), dtype=np.uint8))


if __name__ == "__main__":
    main()
