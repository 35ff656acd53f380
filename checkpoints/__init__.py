"""The shipped bots: ONNX files, their JSON cards and learning curves, as package data.

Found through ``importlib.resources`` (``cardrl.agents.learned.shipped``), so a bot
named ``cardrl/<name>`` (``cardrl/spades-killer``) plays wherever cardrl is installed.
"""
