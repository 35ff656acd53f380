"""Training: a single-seat Gymnasium wrapper over any game's AEC env, an opponent pool,
MaskablePPO self-play with tensorboard logging, checkpoints, and ONNX export.

    python -m train.run --game spades --preset killer --steps 300000 --n-envs 2
    python -m train.demo                  # a few minutes of training, then a tournament

The modules an env worker imports (``single_seat``, ``opponents``, ``numpy_policy``)
are torch-free; only ``trainer``, ``export`` and the command lines import torch.
"""
