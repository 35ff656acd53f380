"""``python -m cardrl``: the ``cardrl`` command (``cardrl.cli``)."""

import sys

from cardrl.cli import main

sys.exit(main())
