"""The information blocks ``play_kernels.write_play`` reads and writes, in the order of its
``at`` argument: apart from both, so that the encoder places them without loading numba
and the kernels need not import the encoder."""

PLAY_BLOCKS = ("hand", "played_by", "trick", "leader", "rules", "tops_trick", "master")
