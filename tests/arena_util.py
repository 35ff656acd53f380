"""Networks for the arena tests, built node by node with ``onnx.helper``: a good one of the
exported interface, and hostile ones that each break one rule the arena checks.

They play two-player Blind Auction (the smallest observation and action table), and
their card is the shipped Blind Auction network's, so the card is what ``train``
writes.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from cardrl.agents.learned import shipped_folder

CARD = json.loads((shipped_folder() / "blind_auction-2p.json").read_text())
OBS, ACTIONS = CARD["obs_size"], CARD["num_actions"]
MASKED = -1e8


def _const(name: str, value) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value, dtype=np.float32), name)


def network(*, extra: list | None = None, inits: list | None = None, logits: str = "masked",
            out_size: int = ACTIONS, domains: dict | None = None,
            weight: onnx.TensorProto | None = None) -> bytes:
    """A linear policy with the mask applied (``masked``); ``extra`` nodes may take
    ``masked`` (or ``raw``, before the mask) and must end in the output named ``logits``
    (then pass ``logits`` as the last extra node's input name to skip the identity)."""
    rng = np.random.default_rng(0)
    nodes = [
        helper.make_node("MatMul", ["observation", "W"], ["raw"]),
        helper.make_node("Greater", ["action_mask", "half"], ["legal"]),
        helper.make_node("Where", ["legal", "raw", "masked_value"], ["masked"]),
        *(extra or []),
    ]
    if logits != "logits":
        nodes.append(helper.make_node("Identity", [logits], ["logits"]))
    inits = [weight if weight is not None else
             _const("W", rng.normal(size=(OBS, out_size)) * 0.1),
             _const("half", 0.5), _const("masked_value", MASKED), *(inits or [])]
    graph = helper.make_graph(
        nodes, "policy",
        [helper.make_tensor_value_info("observation", TensorProto.FLOAT, ["batch", OBS]),
         helper.make_tensor_value_info("action_mask", TensorProto.FLOAT, ["batch", ACTIONS])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", out_size])],
        inits)
    opsets = [helper.make_opsetid("", 17)] + [helper.make_opsetid(d, 1)
                                                for d in (domains or {})]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    return model.SerializeToString()


def good() -> bytes:
    return network()


def forbidden_op() -> bytes:
    """Randomness is not on the allow-list (nor is control flow)."""
    return network(extra=[helper.make_node("RandomUniformLike", ["masked"], ["noise"]),
                          helper.make_node("Add", ["masked", "noise"], ["logits"])],
                   logits="logits")


def custom_domain() -> bytes:
    return network(extra=[helper.make_node("Steal", ["masked"], ["logits"],
                                           domain="com.evil")],
                   logits="logits", domains={"com.evil": 1})


def external_data(location: str) -> bytes:
    """The weight's bytes "live" in a file at ``location``: onnxruntime would read it."""
    weight = onnx.TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[OBS, ACTIONS])
    weight.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"),
                       ("length", str(OBS * ACTIONS * 4))):
        entry = weight.external_data.add()
        entry.key, entry.value = key, value
    return network(weight=weight)


def nan_output() -> bytes:
    return network(extra=[helper.make_node("Add", ["masked", "nan"], ["logits"])],
                   inits=[_const("nan", np.full(ACTIONS, np.nan))], logits="logits")


def nan_later() -> bytes:
    """NaN once fewer than all the cards are legal: fine on a deal's first view only."""
    return network(extra=[
        helper.make_node("ReduceSum", ["action_mask"], ["legal_count"], keepdims=1),
        helper.make_node("Less", ["legal_count", "all_but_half"], ["later"]),
        helper.make_node("Where", ["later", "nan", "zero"], ["poison"]),
        helper.make_node("Add", ["masked", "poison"], ["logits"])],
        inits=[_const("all_but_half", ACTIONS - 0.5), _const("nan", np.nan),
               _const("zero", 0.0)], logits="logits")


def unmasked() -> bytes:
    """Ignores the mask and always prefers the last card: illegal once it is bid."""
    bias = np.zeros(ACTIONS)
    bias[-1] = 1000.0
    return network(extra=[helper.make_node("Add", ["raw", "bias"], ["logits"])],
                   inits=[_const("bias", bias)], logits="logits")


def wrong_shape() -> bytes:
    return network(out_size=ACTIONS + 1, extra=[
        helper.make_node("Identity", ["raw"], ["logits"])], logits="logits")


def slow(size: int) -> bytes:
    """A tiny file whose forward pass multiplies two ``size`` x ``size`` matrices built
    from the input (so that nothing is folded away when the session is made)."""
    return network(extra=[
        helper.make_node("ReduceMean", ["observation"], ["m"], keepdims=1),
        helper.make_node("Expand", ["m", "square"], ["big"]),
        helper.make_node("MatMul", ["big", "big"], ["bigger"]),
        helper.make_node("MatMul", ["bigger", "big"], ["biggest"]),
        helper.make_node("ReduceMean", ["biggest"], ["tiny"], keepdims=0),
        helper.make_node("Mul", ["tiny", "zero"], ["nothing"]),
        helper.make_node("Add", ["masked", "nothing"], ["logits"])],
        inits=[numpy_helper.from_array(np.array([size, size], dtype=np.int64), "square"),
               _const("zero", 0.0)], logits="logits")


def memory_bomb(size: int) -> bytes:
    """A tiny file whose forward pass fills a ``size`` x ``size`` matrix."""
    return network(extra=[
        helper.make_node("ReduceMean", ["observation"], ["m"], keepdims=1),
        helper.make_node("Expand", ["m", "square"], ["big"]),
        helper.make_node("ReduceMean", ["big"], ["tiny"], keepdims=0),
        helper.make_node("Add", ["masked", "tiny"], ["logits"])],
        inits=[numpy_helper.from_array(np.array([size, size], dtype=np.int64), "square")],
        logits="logits")


def upload(name: str, model: bytes, card: dict | None = None) -> dict:
    """The upload request's body."""
    return {"name": name, "card": CARD if card is None else card,
            "model": base64.b64encode(model).decode()}
