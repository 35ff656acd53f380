"""Training: batched self-play with MaskablePPO, tensorboard logging, checkpoints, ONNX export.

    cardrl train --game blind_auction --steps 2000000   # one run (cardrl.train.ppo)
    cardrl demo                  # the main job: a Spades bot from scratch, a tournament

``cardrl.train.ppo`` is the core, read top to bottom; ``cardrl.train.selfplay`` the
batched VecEnv.
"""

import os

# Collection (numpy opponents) and updates (torch) take turns in one process. With
# OpenMP's default active waiting, torch's idle threads spin through numpy's turn, and
# on a small or shared machine the run slowed down tenfold (2-core machine under load:
# 214 learner steps/s against 2,280 with these). Both are read once, when torch and
# numpy's BLAS start, so they are set here, before either is imported; the user's own
# settings win.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
