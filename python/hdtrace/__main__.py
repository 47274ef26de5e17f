"""python3 -m hdtrace: the hdtrace command."""
import sys

from .cli import main

sys.exit(main())
