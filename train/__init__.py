"""Training: batched self-play with MaskablePPO or Deep Monte Carlo, tensorboard logging,
checkpoints, ONNX export.

    cardrl train --game blind_auction --steps 2000000   # one PPO run (cardrl.train.ppo)
    cardrl dmc --game spades --steps 5000000            # one DMC run (cardrl.train.dmc)
    cardrl demo                  # the main job: a Spades bot from scratch, a tournament

``cardrl.train.ppo`` and ``cardrl.train.dmc`` are the trainers, each read top to bottom,
over one config tree (``cardrl.train.config``). Importing the package changes nothing in
the process: a run sets its threads where it starts (``cardrl.train.nets.set_threads``,
and the ``cardrl`` command's ``TRAINING_ENV``).
"""
