#!/usr/bin/python3
"""The installed `hdtrace` command."""
import sys

from hdtrace.cli import main

sys.exit(main())
