#!/usr/bin/python3
"""project-description-merger.py: the original PIOsim tool's name for project-merger.

A thin front end: it runs the project-merger installed beside it with the
same arguments, so both take the same options and behave the same.
"""
import os
import sys


def main() -> None:
    here = os.path.dirname(os.path.realpath(__file__))
    merger = os.path.join(here, "project-merger")
    if not os.access(merger, os.X_OK):
        sys.stderr.write(f"project-description-merger.py: {merger} is missing; "
                         "install HDTrace's project-merger beside this script\n")
        sys.exit(1)
    os.execv(merger, [merger] + sys.argv[1:])


if __name__ == "__main__":
    main()
