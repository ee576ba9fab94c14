#!/usr/bin/env python3
"""Rewrites a quantized ONNX model so that ONNX Runtime runs its convolutions through qwino.

Why: libqwino_onnxruntime.so registers `qwino.QLinearConv`, an NHWC QLinearConv that returns
ORT's bytes. This tool replaces every convolution qwino supports, whether an ONNX `QLinearConv`
(QOperator form) or a QDQ group DequantizeLinear(x) -> Conv(DequantizeLinear(w)[,
DequantizeLinear(bias int32)]) -> QuantizeLinear, by

    Transpose(perm=[0,2,3,1]) -> qwino.QLinearConv -> Transpose(perm=[0,3,1,2])

and leaves everything else to ORT (whose transpose optimizer cancels the transposes between
consecutive convolutions). An 8-bit MaxPool that reads a replaced convolution's output becomes
ORT's own NHWC one, Transpose -> com.microsoft.NhwcMaxPool -> Transpose, as ORT's NHWC
transformer makes it in a model that ORT runs alone: ORT's optimizer does not push the
transposes through an NCHW MaxPool, and its NCHW uint8 MaxPool took 5.0 ms of ResNet-50's 28
against NhwcMaxPool's 0.11 (x86-64, one thread). Graph inputs and outputs keep their names and
NCHW layout.

Usage:
    qwino_rewrite.py IN.onnx OUT.onnx [--report]      (--report prints one line per convolution)
    from qwino_rewrite import rewrite; model, report, stats = rewrite(onnx.load(path))
"""
import argparse
import heapq
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

DOMAIN = "qwino"
MS_DOMAIN = "com.microsoft"
TO_NHWC, TO_NCHW = [0, 2, 3, 1], [0, 3, 1, 2]
U8, S8, I32 = TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32
TYPE_NAMES = {U8: "uint8", S8: "int8", I32: "int32", TensorProto.FLOAT: "float",
              TensorProto.UINT16: "uint16", TensorProto.INT16: "int16"}


class Unsupported(Exception):
    """A convolution qwino does not take; the message is the report's reason."""


class Graph:
    """Index of a graph: constants, producers, consumers, and element types."""

    def __init__(self, model):
        self.model, self.g = model, model.graph
        inputs = {i.name for i in self.g.input}
        # Initializers listed as graph inputs can be overridden at run time: not constant.
        self.inits = {t.name: t for t in self.g.initializer if t.name not in inputs}
        self.const_nodes = {n.output[0]: n for n in self.g.node
                            if n.op_type == "Constant" and n.domain in ("", "ai.onnx")
                            and len(n.attribute) == 1 and n.attribute[0].name == "value"}
        self.producer = {o: n for n in self.g.node for o in n.output}
        self.consumers = {}
        for n in self.g.node:
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)
        self.outputs = {o.name for o in self.g.output}
        self.types = {}
        try:
            inferred = onnx.shape_inference.infer_shapes(model).graph
            infos = list(inferred.value_info) + list(inferred.input) + list(inferred.output)
        except Exception:  # shape inference is only a help for element types
            infos = list(self.g.value_info) + list(self.g.input) + list(self.g.output)
        for vi in infos:
            if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type:
                self.types[vi.name] = vi.type.tensor_type.elem_type
        for name, t in self.inits.items():
            self.types[name] = t.data_type

    def is_const(self, name):
        return name in self.inits or name in self.const_nodes

    def value(self, name):
        if name in self.inits:
            return numpy_helper.to_array(self.inits[name])
        return numpy_helper.to_array(self.const_nodes[name].attribute[0].t)

    def elem_type(self, name):
        if name in self.inits:
            return self.inits[name].data_type
        if name in self.const_nodes:
            return self.const_nodes[name].attribute[0].t.data_type
        return self.types.get(name)

    def make_initializer(self, name):
        """Turns a Constant node's output into an initializer (same name); qwino needs initializers."""
        if name in self.const_nodes:
            node = self.const_nodes.pop(name)
            t = onnx.TensorProto()
            t.CopyFrom(node.attribute[0].t)
            t.name = name
            self.g.initializer.append(t)
            self.inits[name] = t
            self.g.node.remove(node)


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _fmt(x):
    return "%.6g" % x


class Rewriter:
    def __init__(self, model, skip=None):
        self.model = model
        self.skip = skip or {}  # node name -> reason: convolutions to leave whatever they are
        self.G = Graph(model)
        self.names = {o for n in model.graph.node for o in n.output} | \
            {t.name for t in model.graph.initializer} | {i.name for i in model.graph.input}
        self.nhwc = {}           # NCHW tensor -> its NHWC Transpose output
        self.conv_outputs = set()  # the NCHW outputs of the replaced convolutions
        self.pools = 0
        self.new_nodes = {}      # id(anchor node) -> nodes inserted before it
        self.removed = set()     # ids of nodes to delete
        self.transposes = 0
        self.report = []

    def fresh(self, base):
        name, i = base, 1
        while name in self.names:
            name, i = "%s_%d" % (base, i), i + 1
        self.names.add(name)
        return name

    def zero_point(self, name, elem_type, base):
        """An existing constant zero point, or a new zero initializer of elem_type."""
        if name:
            return name
        new = self.fresh(base + "_zero_point")
        dtype = {U8: np.uint8, S8: np.int8}[elem_type]
        self.model.graph.initializer.append(numpy_helper.from_array(np.zeros((), dtype), new))
        self.G.inits[new] = self.model.graph.initializer[-1]
        return new

    # --- support checks ---------------------------------------------------------------------

    def check(self, node, x_type, xs, xzp, w, ws, wzp, ys, yzp, b, y_type, w_axis=0):
        """Raises Unsupported with the reason; returns a short description when qwino takes it.
        w_axis: the weights' quantization axis (QLinearConv: 0; DequantizeLinear: its axis)."""
        G = self.G
        if not G.is_const(w):
            raise Unsupported("non-constant weights")
        for name, what in ((xs, "x_scale"), (xzp, "x_zero_point"), (ws, "w_scale"), (wzp, "w_zero_point"),
                           (ys, "y_scale"), (yzp, "y_zero_point"), (b, "bias")):
            if name and not G.is_const(name):
                raise Unsupported("non-constant " + what)
        wv = G.value(w)
        if wv.ndim != 4:
            raise Unsupported("%d-D" % (wv.ndim - 2))
        w_type = G.elem_type(w)
        if x_type not in (U8, S8):
            raise Unsupported("activations " + TYPE_NAMES.get(x_type, str(x_type)))
        if y_type != x_type:
            raise Unsupported("output %s, input %s" % (TYPE_NAMES.get(y_type, y_type), TYPE_NAMES[x_type]))
        if w_type not in (U8, S8):
            raise Unsupported("weights " + TYPE_NAMES.get(w_type, str(w_type)))
        M = wv.shape[0]
        a = _attrs(node)
        group = a.get("group", 1)
        if group < 1 or M % group:
            raise Unsupported("group %d does not divide %d output channels" % (group, M))
        auto_pad = a.get("auto_pad", b"NOTSET")
        auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
        if auto_pad not in ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"):
            raise Unsupported("auto_pad " + auto_pad)
        if auto_pad.startswith("SAME") and any(d != 1 for d in a.get("dilations", [])):
            raise Unsupported("auto_pad SAME with dilations (ORT's QLinearConv refuses it; left to ORT)")
        for key, n in (("strides", 2), ("dilations", 2), ("pads", 4), ("kernel_shape", 2)):
            if key in a and len(a[key]) != n:
                raise Unsupported("%s %s" % (key, a[key]))
        if list(a.get("kernel_shape", wv.shape[2:])) != list(wv.shape[2:]):
            raise Unsupported("kernel_shape does not match the weights")
        if any(not 1 <= v <= 65535 for v in list(a.get("strides", [])) + list(a.get("dilations", []))):
            raise Unsupported("strides or dilations out of range")
        if any(not 0 <= v <= 65535 for v in a.get("pads", [])):
            raise Unsupported("pads out of range")

        xsv, ysv = G.value(xs), G.value(ys)
        wsv = G.value(ws)
        if xsv.size != 1 or ysv.size != 1:
            raise Unsupported("x_scale or y_scale not per tensor")
        for zp in (xzp, yzp):
            if zp and (G.value(zp).size != 1 or G.elem_type(zp) != x_type):
                raise Unsupported("activation zero points not one value of x's type")
        wzpv = G.value(wzp) if wzp else np.zeros(1, np.int8 if w_type == S8 else np.uint8)
        if wzp and G.elem_type(wzp) != w_type:
            raise Unsupported("w_zero_point type differs from w")
        per_channel = wsv.size > 1 or wzpv.size > 1
        for v in (wsv, wzpv):
            if v.size not in (1, M) or (v.size > 1 and (v.ndim != 1 or w_axis % 4 != 0)):
                raise Unsupported("weights quantized per input channel or along axis %d" % w_axis)
        if any(v.dtype != np.float32 for v in (xsv, ysv, wsv)):
            raise Unsupported("scales not float32")
        if not all(np.isfinite(v).all() and (v > 0).all() for v in (xsv, ysv, wsv)):
            raise Unsupported("scales not finite and positive")
        if w_type == S8:
            if (wzpv != 0).any():
                raise Unsupported("weights int8 with non-zero zero point")
        else:
            if x_type == S8:
                raise Unsupported("int8 activations with uint8 weights")
            if per_channel and ((wsv != wsv.flat[0]).any() or (wzpv != wzpv.flat[0]).any()):
                raise Unsupported("weights uint8 per-channel")
        # Requantization scale as ORT's QLinearConv computes it: float32, x_scale * w_scale / y_scale.
        # Scales of any smallness are taken: such a channel outputs y_zero_point, as ORT's does.
        rq = (np.float32(xsv.flat[0]) * wsv.reshape(-1).astype(np.float32)) / np.float32(ysv.flat[0])
        if rq.max() > 256:
            raise Unsupported("requantization scale %s > 256" % _fmt(rq.max()))
        if b:
            bv = G.value(b)
            if G.elem_type(b) != I32 or bv.size != M:
                raise Unsupported("bias not int32 per output channel")
        kh, kw = wv.shape[2:]
        kind = "depthwise" if group > 1 and wv.shape[1] == 1 else ("grouped" if group > 1 else "")
        return "%s x %s %sw, %dx%d s%s%s%s" % (
            TYPE_NAMES[x_type], TYPE_NAMES[w_type], "per-channel " if per_channel else "", kh, kw,
            "x".join(map(str, a.get("strides", [1, 1]))), " " + kind if kind else "",
            "" if b else ", no bias")

    # --- rewriting --------------------------------------------------------------------------

    def to_nhwc(self, x, base, nodes):
        """The NHWC twin of the NCHW tensor x, appending its Transpose to nodes the first time."""
        if x not in self.nhwc:
            self.nhwc[x] = self.fresh(x + "_nhwc")
            nodes.append(helper.make_node("Transpose", [x], [self.nhwc[x]], name=self.fresh(base + "_to_nhwc"),
                                          perm=TO_NHWC))
            self.transposes += 1
        return self.nhwc[x]

    def to_nchw(self, y_nhwc, y, base, nodes):
        nodes.append(helper.make_node("Transpose", [y_nhwc], [y], name=self.fresh(base + "_to_nchw"),
                                      perm=TO_NCHW))
        self.transposes += 1

    def maxpool(self, node):
        """Transpose -> com.microsoft.NhwcMaxPool -> Transpose for a 2-D MaxPool on a replaced
        convolution's 8-bit output (see the top of the file): on that tensor (QOperator form) or
        between a DequantizeLinear of it and a QuantizeLinear with the same scale and zero point
        (QDQ form; max commutes with that rounding, as ORT's own QDQ fusion of MaxPool assumes).
        Returns None where it does not apply, else the report's words."""
        G = self.G
        x, out, dq, q = node.input[0], node.output[0], None, None
        if x not in self.conv_outputs:
            dq = G.producer.get(x)
            users = G.consumers.get(out, [])
            if dq is None or dq.op_type != "DequantizeLinear" or dq.input[0] not in self.conv_outputs:
                return None
            if len(users) != 1 or users[0].op_type != "QuantizeLinear" or out in G.outputs:
                return "left (its float output is used unquantized)"
            q = users[0]
            pair = [list(n.input[1:3]) + [""] * (3 - len(n.input)) for n in (dq, q)]
            if any(not n or not G.is_const(n) for ins in pair for n in ins):
                return "left (a scale or zero point is not constant)"
            (ds, dz), (qs, qz) = pair
            if G.elem_type(dz) != G.elem_type(qz) or G.value(ds).size != 1 or G.value(qs).size != 1 or \
                    G.value(ds).reshape(-1)[0] != G.value(qs).reshape(-1)[0] or \
                    G.value(dz).reshape(-1)[0] != G.value(qz).reshape(-1)[0]:
                return "left (quantized again with other parameters)"
            x, out = dq.input[0], q.output[0]
        attrs = _attrs(node)
        if len(node.output) > 1 and node.output[1]:
            return "left (its Indices output)"
        if attrs.get("storage_order", 0) != 0 or len(attrs.get("kernel_shape", [])) != 2:
            return "left (storage_order or not 2-D)"
        if G.elem_type(x) not in (U8, S8):
            return "left (not 8-bit)"
        base = node.name or out
        nodes = []
        x_nhwc = self.to_nhwc(x, base, nodes)
        y_nhwc = self.fresh(out + "_nhwc")
        keep = {k: v for k, v in attrs.items()
                if k in ("auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides")}
        nodes.append(helper.make_node("NhwcMaxPool", [x_nhwc], [y_nhwc], name=self.fresh(base + "_nhwc"),
                                      domain=MS_DOMAIN, **keep))
        self.to_nchw(y_nhwc, out, base, nodes)
        self.new_nodes.setdefault(id(node), []).extend(nodes)
        self.removed.add(id(node))
        if q is not None:
            self.removed.add(id(q))
            if len(G.consumers.get(dq.output[0], [])) == 1 and dq.output[0] not in G.outputs:
                self.removed.add(id(dq))
        self.pools += 1
        return "NHWC (com.microsoft.NhwcMaxPool%s)" % (", DequantizeLinear and QuantizeLinear dropped" if q else "")

    def emit(self, node, anchor, x, xs, xzp, w, ws, wzp, ys, yzp, b, y, x_type, w_type):
        """Inserts Transpose -> qwino.QLinearConv -> Transpose before `anchor`, writing y."""
        G = self.G
        base = node.name or y
        xzp = self.zero_point(xzp, x_type, base + "_x")
        wzp = self.zero_point(wzp, w_type, base + "_w")
        yzp = self.zero_point(yzp, x_type, base + "_y")
        for name in (xs, xzp, w, ws, wzp, ys, yzp, b):
            if name:
                G.make_initializer(name)
        nodes = []
        x_nhwc = self.to_nhwc(x, base, nodes)
        y_nhwc = self.fresh(y + "_nhwc")
        keep = {k: v for k, v in _attrs(node).items()
                if k in ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")}
        inputs = [x_nhwc, xs, xzp, w, ws, wzp, ys, yzp] + ([b] if b else [])
        nodes.append(helper.make_node("QLinearConv", inputs, [y_nhwc], name=self.fresh(base + "_qwino"),
                                      domain=DOMAIN, **keep))
        self.to_nchw(y_nhwc, y, base, nodes)
        self.conv_outputs.add(y)
        self.new_nodes.setdefault(id(anchor), []).extend(nodes)

    def qoperator(self, node):
        ins = list(node.input) + [""] * (9 - len(node.input))
        x, xs, xzp, w, ws, wzp, ys, yzp, b = ins[:9]
        G = self.G
        x_type = G.elem_type(xzp) if xzp else (G.elem_type(yzp) if yzp else G.elem_type(x))
        y_type = G.elem_type(yzp) if yzp else x_type
        what = self.check(node, x_type, xs, xzp, w, ws, wzp, ys, yzp, b, y_type)
        self.emit(node, node, x, xs, xzp, w, ws, wzp, ys, yzp, b, node.output[0], x_type, G.elem_type(w))
        self.removed.add(id(node))
        return what

    def qdq(self, conv):
        G = self.G
        ins = list(conv.input) + [""] * (3 - len(conv.input))
        dq_x, dq_w = G.producer.get(ins[0]), G.producer.get(ins[1])
        if dq_w is None or dq_w.op_type != "DequantizeLinear":
            raise Unsupported("non-constant weights" if not G.is_const(ins[1]) else "float weights (not quantized)")
        if dq_x is None or dq_x.op_type != "DequantizeLinear":
            raise Unsupported("float input (no DequantizeLinear)")
        users = G.consumers.get(conv.output[0], [])
        if len(users) != 1 or users[0].op_type != "QuantizeLinear" or conv.output[0] in G.outputs:
            raise Unsupported("output not only quantized (used by %s)" % ", ".join(
                sorted({u.op_type for u in users}) + (["graph output"] if conv.output[0] in G.outputs else [])))
        q = users[0]
        dq_b = None
        if ins[2]:
            dq_b = G.producer.get(ins[2])
            if dq_b is None or dq_b.op_type != "DequantizeLinear":
                raise Unsupported("float bias (not quantized)")
        pad = lambda n: list(n.input) + [""] * (3 - len(n.input))
        x, xs, xzp = pad(dq_x)
        w, ws, wzp = pad(dq_w)
        _, ys, yzp = pad(q)
        x_axis = _attrs(dq_x).get("axis", 1)
        if G.is_const(xs) and G.value(xs).size != 1:
            raise Unsupported("x quantized per channel (axis %d)" % x_axis)
        # Element types: the zero point's when there is one; a DequantizeLinear without one takes
        # its input's type, QuantizeLinear without one writes uint8 (or its output_dtype).
        x_type = G.elem_type(xzp) if xzp else G.elem_type(x)
        if x_type is None:
            raise Unsupported("activation type unknown (no zero point, shape inference failed)")
        y_type = G.elem_type(yzp) if yzp else (_attrs(q).get("output_dtype") or U8)
        if _attrs(q).get("axis", 1) != 1 and G.is_const(ys) and G.value(ys).size != 1:
            raise Unsupported("output quantized per channel")
        b = ""
        if dq_b is not None:
            b, bs, bzp = pad(dq_b)
            if not (G.is_const(b) and G.is_const(bs) and (not bzp or G.is_const(bzp))):
                raise Unsupported("non-constant bias")
            if G.elem_type(b) != I32:
                raise Unsupported("bias " + TYPE_NAMES.get(G.elem_type(b), "?"))
            if bzp and (G.value(bzp) != 0).any():
                raise Unsupported("bias zero point not 0")
            if G.is_const(xs) and G.is_const(ws):
                expect = np.float32(G.value(xs).reshape(-1)[0]) * G.value(ws).astype(np.float32).reshape(-1)
                got = G.value(bs).astype(np.float32).reshape(-1)
                # Allow an ulp or two (x_scale * w_scale computed in double and rounded).
                if got.size not in (1, expect.size) or not np.allclose(got, expect, rtol=3e-7, atol=0):
                    raise Unsupported("bias scale is not x_scale * w_scale")
        what = self.check(conv, x_type, xs, xzp, w, ws, wzp, ys, yzp, b, y_type, _attrs(dq_w).get("axis", 1))
        self.emit(conv, q, x, xs, xzp, w, ws, wzp, ys, yzp, b, q.output[0], x_type, G.elem_type(w))
        self.removed.update({id(conv), id(q)})
        return what

    def run(self):
        g = self.model.graph
        convs = [n for n in g.node if (n.op_type == "QLinearConv" and n.domain in ("", "ai.onnx"))
                 or (n.op_type == "Conv" and n.domain in ("", "ai.onnx"))]
        replaced = 0
        for node in convs:
            label = node.name or node.output[0]
            try:
                if label in self.skip:
                    raise Unsupported(self.skip[label])
                what = self.qoperator(node) if node.op_type == "QLinearConv" else self.qdq(node)
                self.report.append("%s: replaced (%s)" % (label, what))
                replaced += 1
            except Unsupported as e:
                self.report.append("%s: left (%s)" % (label, e))
        for node in [n for n in g.node if n.op_type == "MaxPool" and n.domain in ("", "ai.onnx")]:
            what = self.maxpool(node)
            if what:
                self.report.append("%s: %s" % (node.name or node.output[0], what))
        # A replaced group's DequantizeLinear nodes go when nothing else uses them.
        for n in g.node:
            if n.op_type == "DequantizeLinear" and id(n) not in self.removed:
                users = [u for u in self.G.consumers.get(n.output[0], []) if id(u) not in self.removed]
                if not users and n.output[0] not in self.G.outputs and \
                        any(id(u) in self.removed for u in self.G.consumers.get(n.output[0], [])):
                    self.removed.add(id(n))
        nodes = []
        for n in list(g.node):
            nodes.extend(self.new_nodes.get(id(n), []))
            if id(n) not in self.removed:
                nodes.append(n)
        del g.node[:]
        g.node.extend(topological_sort(nodes, g))
        self.prune_unused(g)
        if replaced and not any(o.domain == DOMAIN for o in self.model.opset_import):
            self.model.opset_import.append(helper.make_opsetid(DOMAIN, 1))
        if self.pools and not any(o.domain == MS_DOMAIN for o in self.model.opset_import):
            self.model.opset_import.append(helper.make_opsetid(MS_DOMAIN, 1))
        self.report.append("total: %d of %d convolutions replaced, %d left; %d max pools in NHWC; "
                           "%d transposes inserted" %
                           (replaced, len(convs), len(convs) - replaced, self.pools, self.transposes))
        return {"replaced": replaced, "convolutions": len(convs), "transposes": self.transposes,
                "pools": self.pools}

    @staticmethod
    def prune_unused(g):
        """Drops the initializers and value_info entries the replaced nodes alone used."""
        used = _all_inputs(g.node) | {o.name for o in g.output}
        graph_inputs = {i.name for i in g.input}
        keep = [t for t in g.initializer if t.name in used or t.name in graph_inputs]
        if len(keep) != len(g.initializer):
            del g.initializer[:]
            g.initializer.extend(keep)
        produced = {o for n in g.node for o in n.output} | graph_inputs | {t.name for t in g.initializer}
        vi = [v for v in g.value_info if v.name in produced]
        del g.value_info[:]
        g.value_info.extend(vi)


def _subgraphs(node):
    for a in node.attribute:
        if a.HasField("g"):
            yield a.g
        yield from a.graphs


def _all_inputs(nodes):
    """Every tensor name the nodes read, their subgraphs included (outer-scope names)."""
    names = set()
    for n in nodes:
        names.update(n.input)
        for s in _subgraphs(n):
            names |= _all_inputs(s.node)
    return names


def topological_sort(nodes, g):
    """Kahn's sort, stable: keeps the given order wherever it is already valid."""
    available = {i.name for i in g.input} | {t.name for t in g.initializer} | {""}
    producer = {o: k for k, n in enumerate(nodes) for o in n.output}
    waiting = [0] * len(nodes)
    users = {}
    for k, n in enumerate(nodes):
        deps = {i for i in _all_inputs([n]) if i not in available and i in producer}
        waiting[k] = len({producer[d] for d in deps if producer[d] != k})
        for p in {producer[d] for d in deps if producer[d] != k}:
            users.setdefault(p, []).append(k)
    ready = [k for k in range(len(nodes)) if waiting[k] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        k = heapq.heappop(ready)
        order.append(nodes[k])
        for u in users.get(k, []):
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, u)
    if len(order) != len(nodes):
        raise ValueError("the graph has a cycle")
    return order


def rewrite(model, skip=None):
    """Returns (rewritten copy of model, report lines, {"replaced", "convolutions", "transposes", "pools"}).
    skip: {node name: reason} of convolutions to leave as they are."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    r = Rewriter(m, skip)
    stats = r.run()
    onnx.checker.check_model(m)
    return m, r.report, stats


# --- Running models through qwino-ort-run (shared by the tools in this folder) -----------------

REPO = Path(__file__).resolve().parents[2]
DEFAULT_RUNNER = REPO / "build/native/integrations/onnxruntime/qwino-ort-run"
DEFAULT_CUSTOM_OPS = REPO / "build/native/integrations/onnxruntime/libqwino_onnxruntime.so"


def output_file_name(name):
    """The runner's file name for a graph output: characters outside [A-Za-z0-9_.-] become '_'."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) + ".npy"


def run_ort(runner, model_path, inputs, output_dir, threads=1, custom_ops=None, extra=()):
    """Runs model_path with inputs {name: .npy path}; returns the runner's stdout.
    Raises RuntimeError with the runner's stderr when it fails."""
    cmd = [str(runner), str(model_path), "--threads", str(threads), "--output-dir", str(output_dir)]
    for name, path in inputs.items():
        cmd += ["--input", "%s=%s" % (name, path)]
    if custom_ops:
        cmd += ["--custom-ops", str(custom_ops)]
    cmd += list(extra)
    os.makedirs(output_dir, exist_ok=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
    return r.stdout


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--report", action="store_true", help="one line per convolution")
    a = p.parse_args(argv)
    model, report, _ = rewrite(onnx.load(a.input))
    onnx.save(model, a.output)
    print("\n".join(report if a.report else report[-1:]))


if __name__ == "__main__":
    sys.exit(main())
