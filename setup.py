"""The package layout pyproject.toml cannot say: one import name, ``cardrl``, over the
repository's layer folders (``envs/`` is ``cardrl.envs``, ``checkpoints/`` is
``cardrl.checkpoints``, ...), every subpackage found, so adding a game edits nothing here."""

from setuptools import find_packages, setup

LAYERS = ("envs", "agents", "train", "eval", "web", "checkpoints")

packages = ["cardrl"]
package_dir = {"cardrl": "cardrl"}
for layer in LAYERS:
    package_dir[f"cardrl.{layer}"] = layer
    packages += [f"cardrl.{name}" for name in find_packages(include=[layer, f"{layer}.*"])]

setup(packages=packages, package_dir=package_dir)
