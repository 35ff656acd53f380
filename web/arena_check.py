"""The checks an uploaded bot passes before it plays: card first, then the network, in a
limited child process.

``check_card`` reads the card alone (no code runs): its format, game, preset, player
count, env version, observation kind and version, and sizes against the installed
games. ``check_model`` then hands the ONNX bytes to ``python -m cardrl.web.arena_check`` on its
stdin. That child first limits itself (address space, CPU seconds, no file writes),
then parses the bytes with ``onnx`` and refuses what is not a plain network: custom
domains or functions, operators off ``ALLOWED_OPS``, sub-graphs, external data of any
kind, inputs or outputs of the wrong names, types or shapes. Only then does
onnxruntime build a session, from the bytes (never from a path), and run it on the
observations of sample deals: every output must have the right shape, be finite, put its
largest logit on a legal action, and come within the per-move time. The server process
never parses or runs an upload; the child has no file to read and may write none. The
server deals and encodes the samples (``sample_inputs``) and hands the child arrays, so
the child imports no game: a game's compiled kernels, which may need to write their
cache on first use, never load where no file may be written.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import resource
import signal
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

CARD_FORMAT = "cardrl-bot-card/1"  # what train.export writes (agents.learned reads it)
INPUTS = ("observation", "action_mask")
OUTPUT = "logits"
MAX_CARD = 64 * 1024  # bytes of a card's JSON
MAX_NODES = 5000
ALLOWED_OPS = frozenset({
    # what train.export writes (MLP, action-feature skip, card network, plug-in switches)
    "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Neg", "Abs", "Tanh", "Relu", "Sigmoid",
    "LeakyRelu", "Elu", "Selu", "Softplus", "Softmax", "LogSoftmax", "Exp", "Log", "Sqrt",
    "Pow", "Max", "Min", "Clip", "Where", "Greater", "GreaterOrEqual", "Less", "LessOrEqual",
    "Equal", "And", "Or", "Not", "Cast", "Constant", "ConstantOfShape", "Shape", "Reshape",
    "Flatten", "Squeeze", "Unsqueeze", "Concat", "Slice", "Gather", "GatherElements",
    "Transpose", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceMean", "Identity", "Expand",
    "Split", "Erf", "LayerNormalization", "Einsum",
})  # no control flow (Loop, If, Scan), no randomness, no custom or contrib operators


class RefusedUploadError(ValueError):
    """An upload that may not play; the message names the reason."""


@dataclass(frozen=True)
class Limits:
    """What an upload and the child that checks it may use."""

    max_bytes: int = 8 * 1024 * 1024  # of the ONNX file
    move_seconds: float = 0.25  # a forward pass on one view, at the check
    memory: int = 1024 * 1024 * 1024  # bytes of address space of the child
    cpu_seconds: int = 30  # CPU time of the whole check
    wall_seconds: float = 60.0  # the whole check, start to answer
    views: int = 48  # sample views the network is run on


# --------------------------------------------------------------- the card
def check_card(card: Any) -> dict:
    """The division an uploaded card plays in: ``{"game", "preset", "players", "obs_size",
    "num_actions"}``; ``RefusedUploadError`` naming what does not fit the installed games."""
    from cardrl.agents.learned import BotLoadError, observation_encoder
    from cardrl.envs.games import game_names, get_game

    if not isinstance(card, dict):
        raise RefusedUploadError("the card is not a JSON object")
    if card.get("format") != CARD_FORMAT:
        raise RefusedUploadError(f"the card's format is {_short(card.get('format'))}, not "
                            f"{CARD_FORMAT!r} (export the bot with train)")
    for key in ("game", "preset", "env_name", "observation", "obs_size", "num_actions"):
        if key not in card:
            raise RefusedUploadError(f"the card has no {key!r}")
    name = card["game"]
    if not isinstance(name, str) or name not in game_names():
        raise RefusedUploadError(f"the card's game {_short(name)} is not one of "
                            f"{', '.join(game_names())}")
    game = get_game(name)
    if not isinstance(card["env_name"], str) or not game.plays(card["env_name"]):
        raise RefusedUploadError(f"the card's env {_short(card['env_name'])} is not the installed "
                            f"{game.env_name!r}: retrain on this version")
    preset = card["preset"]
    if not isinstance(preset, str) or preset not in game.presets:
        raise RefusedUploadError(f"the card's preset {_short(preset)} is not a {name} preset "
                            f"({', '.join(game.presets)})")
    changes = card.get("rule_changes") or {}
    if not isinstance(changes, dict) or set(changes) - {"num_players"}:
        raise RefusedUploadError(f"the arena plays the presets' rules; the card has rule changes "
                            f"{_short(changes)} (only num_players may differ)")
    try:
        rules = game.get_rules(preset, **changes)
    except (TypeError, ValueError) as err:
        raise RefusedUploadError(f"the card's rules do not make a {name} game: {err}") from None
    players = game.num_players(rules)
    if card.get("num_players", players) != players:
        raise RefusedUploadError(f"the card says {_short(card.get('num_players'))} players but its "
                            f"rules have {players}")
    for key, want in (("obs_size", None), ("num_actions", game.num_actions)):
        value = card[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise RefusedUploadError(f"the card's {key} is {_short(value)}, not a positive integer")
        if want is not None and value != want:
            raise RefusedUploadError(f"the card's num_actions is {value}; {name} has {want}")
    if card.get("sample", False) not in (True, False):
        raise RefusedUploadError(f"the card's sample is {_short(card['sample'])}, not true or "
                                 f"false")
    try:
        encoder = observation_encoder({**card, "num_players": players}, "the card")
    except BotLoadError as err:
        raise RefusedUploadError(str(err)) from None
    if encoder.size(players) != card["obs_size"]:
        raise RefusedUploadError(f"the card's obs_size {card['obs_size']} is not the "
                            f"{encoder.name} size {encoder.size(players)}")
    return {"game": name, "preset": preset, "players": players,
            "obs_size": card["obs_size"], "num_actions": card["num_actions"]}


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ---------------------------------------------------- the parent's side
async def check_model(card: dict, division: dict, model: bytes, limits: Limits) -> dict:
    """Run the child on ``model``: its report (``{"forward_ms": ...}``), or
    ``RefusedUploadError``."""
    if len(model) > limits.max_bytes:
        raise RefusedUploadError(f"the ONNX file has {len(model)} bytes; the limit is "
                            f"{limits.max_bytes}")
    samples = await asyncio.to_thread(sample_inputs, card, division, limits.views)
    request = json.dumps({"division": division, "limits": asdict(limits), "samples": samples,
                          "model": base64.b64encode(model).decode()}).encode()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cardrl.web.arena_check", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    try:
        out, _ = await asyncio.wait_for(proc.communicate(request), limits.wall_seconds)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise RefusedUploadError(f"slow: the check did not finish within "
                                 f"{limits.wall_seconds:g} s") from None
    except BaseException:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        raise
    try:
        answer = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError, UnicodeDecodeError):
        answer = None
    if not isinstance(answer, dict):
        code = proc.returncode
        what = ("used more than its CPU time" if code in (-9, -24)  # SIGKILL, SIGXCPU
                else f"crashed (exit code {code})")
        raise RefusedUploadError(f"the network {what} during the check (limits: "
                            f"{limits.cpu_seconds} s CPU, {limits.memory >> 20} MiB)")
    if "error" in answer:
        raise RefusedUploadError(str(answer["error"]))
    return answer


# ------------------------------------------------------------ the child
def _limit(limits: dict) -> None:
    sys.dont_write_bytecode = True
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, not kills
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory"], limits["memory"]))
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))  # it writes no file


def _tensors(model: Any):
    """Every tensor the model holds: initializers and constant attributes, graph-wide."""
    import onnx

    yield from model.graph.initializer
    for sparse in model.graph.sparse_initializer:
        yield sparse.values
        yield sparse.indices
    for node in model.graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR:
                yield attr.t
            elif attr.type == onnx.AttributeProto.TENSORS:
                yield from attr.tensors
            elif attr.type == onnx.AttributeProto.SPARSE_TENSOR:
                yield attr.sparse_tensor.values
                yield attr.sparse_tensor.indices


def check_structure(model: Any, division: dict) -> None:
    """Refuse what is not a plain network of the card's shapes (no onnxruntime yet)."""
    import onnx

    if len(model.functions):
        raise RefusedUploadError(f"the model defines functions "
                            f"({', '.join(f.name for f in model.functions)[:80]}); "
                            f"only standard operators are allowed")
    if len(model.training_info):
        raise RefusedUploadError("the model has training information; upload an exported network")
    for opset in model.opset_import:
        if opset.domain not in ("", "ai.onnx"):
            raise RefusedUploadError(f"custom operator domain {_short(opset.domain)}: only "
                                f"standard ONNX operators are allowed")
    graph = model.graph
    if len(graph.node) > MAX_NODES:
        raise RefusedUploadError(f"the model has {len(graph.node)} nodes; the limit is {MAX_NODES}")
    for node in graph.node:
        if node.domain not in ("", "ai.onnx"):
            raise RefusedUploadError(f"operator {_short(node.op_type)} of custom domain "
                                f"{_short(node.domain)} is not allowed")
        if node.op_type not in ALLOWED_OPS:
            raise RefusedUploadError(f"forbidden operator {_short(node.op_type)}; allowed: "
                                f"{', '.join(sorted(ALLOWED_OPS))}")
        for attr in node.attribute:
            if attr.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS):
                raise RefusedUploadError(f"operator {node.op_type} holds a sub-graph")
    for tensor in _tensors(model):
        if tensor.data_location == onnx.TensorProto.EXTERNAL or len(tensor.external_data):
            where = {e.key: e.value for e in tensor.external_data}.get("location", "?")
            raise RefusedUploadError(f"tensor {_short(tensor.name)} refers to external data "
                                f"(location {_short(where)}); upload one self-contained file")
    initial = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initial]
    names = tuple(i.name for i in inputs)
    if names != INPUTS:
        raise RefusedUploadError(f"the model's inputs are {list(names)[:5]}, not {list(INPUTS)}")
    outputs = tuple(o.name for o in graph.output)
    if outputs != (OUTPUT,):
        raise RefusedUploadError(f"the model's outputs are {list(outputs)[:5]}, not [{OUTPUT!r}]")
    sizes = {"observation": division["obs_size"], "action_mask": division["num_actions"],
             "logits": division["num_actions"]}
    for value in (*inputs, graph.output[0]):
        kind = value.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else None for d in kind.shape.dim]
        if kind.elem_type != onnx.TensorProto.FLOAT or len(dims) != 2 \
                or dims[1] != sizes[value.name] or dims[0] not in (None, 1):
            raise RefusedUploadError(f"{value.name} must be float32 [batch, {sizes[value.name]}], "
                                f"got type {kind.elem_type} shape {dims}")


def sample_views(division: dict, count: int) -> list[tuple[Any, list[int]]]:
    """(view, legal actions) at the moves of random-play deals, spread over the game."""
    import numpy as np

    from cardrl.envs.games import get_game

    game = get_game(division["game"])
    rules = game.get_rules(division["preset"], **({"num_players": division["players"]}
                                                  if division["players"] != game.num_players(
                                                      game.get_rules(division["preset"]))
                                                  else {}))
    rng = np.random.default_rng(0)
    every = []
    for seed in range(3):
        state = game.new_state(rules, seed)
        for _ in range(2000):
            if state.is_over:
                break
            legal = list(state.legal_actions())
            every.append((state.view(state.current_player), legal))
            state.apply(int(rng.choice(legal)))
    picks = np.linspace(0, len(every) - 1, num=min(count, len(every))).round().astype(int)
    return [every[i] for i in sorted(set(picks.tolist()))]


def sample_inputs(card: dict, division: dict, count: int) -> dict:
    """The network's inputs at ``sample_views``, encoded as the card says, for the child:
    ``{"obs", "masks"}``, each float32 rows as base64 bytes. Runs in the server, which
    may compile and cache the game's kernels; the same division is dealt once."""
    key = json.dumps([card.get("observation"), card.get("obs_size"), division],
                     sort_keys=True)
    return _sample_inputs(key, count)


@functools.lru_cache(maxsize=16)
def _sample_inputs(key: str, count: int) -> dict:
    import numpy as np

    from cardrl.agents.learned import observation_encoder

    observation, obs_size, division = json.loads(key)
    encoder = observation_encoder({"game": division["game"], "preset": division["preset"],
                                   "observation": observation, "obs_size": obs_size,
                                   "num_players": division["players"]})
    views = sample_views(division, count)
    obs = np.stack([np.asarray(encoder.encode(v), dtype=np.float32).reshape(-1)
                    for v, _ in views])
    masks = np.zeros((len(views), division["num_actions"]), dtype=np.float32)
    for row, (_, legal) in enumerate(views):
        masks[row, legal] = 1.0
    return {name: base64.b64encode(a.tobytes()).decode() for name, a in
            (("obs", obs), ("masks", masks))}


def run_checks(division: dict, model_bytes: bytes, samples: dict, limits: dict) -> dict:
    """The child's work: structure, then a session from the bytes, then sample forwards."""
    import numpy as np
    import onnx

    try:
        model = onnx.load_from_string(model_bytes)
    except Exception as err:  # protobuf's DecodeError and friends
        raise RefusedUploadError(f"the file is not an ONNX model ({type(err).__name__})") from None
    check_structure(model, division)
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    try:
        session = ort.InferenceSession(model_bytes, opts, providers=["CPUExecutionProvider"])
    except Exception as err:
        raise RefusedUploadError(f"onnxruntime cannot load the model: {str(err)[:200]}") from None
    n = division["num_actions"]
    every_obs = np.frombuffer(base64.b64decode(samples["obs"]), dtype=np.float32)
    masks = np.frombuffer(base64.b64decode(samples["masks"]), dtype=np.float32).reshape(-1, n)
    every_obs = every_obs.reshape(len(masks), -1)
    slowest = 0.0
    for obs, mask in zip(every_obs, masks, strict=True):
        legal = np.flatnonzero(mask).tolist()
        start = time.perf_counter()
        try:
            out = session.run(None, {"observation": obs.reshape(1, -1),
                                     "action_mask": mask.reshape(1, -1)})[0]
        except Exception as err:
            raise RefusedUploadError(f"the network failed on a sample view: {str(err)[:200]}") \
                from None
        took = time.perf_counter() - start
        slowest = max(slowest, took)
        if took > limits["move_seconds"]:
            raise RefusedUploadError(f"slow: a forward pass took {took:.3f} s; the limit per "
                                f"move is {limits['move_seconds']:g} s")
        out = np.asarray(out)
        if out.shape != (1, n):
            raise RefusedUploadError(f"out of range: the logits have shape {list(out.shape)}, "
                                f"not [1, {n}]")
        if not np.isfinite(out).all():
            raise RefusedUploadError("the network output non-finite logits (NaN or infinity) on a "
                                "sample view")
        if int(np.argmax(out[0])) not in legal:
            raise RefusedUploadError(f"out of range: the network's choice {int(np.argmax(out[0]))} "
                                f"is not a legal action (mask the illegal ones)")
    return {"forward_ms": round(slowest * 1000, 3)}


def main() -> None:
    request = json.loads(sys.stdin.buffer.read())
    _limit(request["limits"])
    try:
        answer = run_checks(request["division"], base64.b64decode(request["model"]),
                            request["samples"], request["limits"])
    except RefusedUploadError as err:
        answer = {"error": str(err)}
    except MemoryError:
        answer = {"error": f"the network needed more than "
                           f"{request['limits']['memory'] >> 20} MiB during the check"}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
