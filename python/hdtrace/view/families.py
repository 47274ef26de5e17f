"""Function families: the colour groups of the timeline and the categories of
the exports, as the call table (hdtrace.calls) gives them."""
from ..calls import (COLLECTIVE, FAMILIES, FILE_IO, NEIGHBOR_COLLECTIVES, NONBLOCKING_COLLECTIVES,
                     OTHER, POINT_TO_POINT, WAIT, family_of)
from ..calls import ONE_SIDED_FAMILY as ONE_SIDED

__all__ = ["COLLECTIVE", "FAMILIES", "FILE_IO", "NEIGHBOR_COLLECTIVES", "NONBLOCKING_COLLECTIVES",
           "ONE_SIDED", "OTHER", "POINT_TO_POINT", "WAIT", "family_of"]
