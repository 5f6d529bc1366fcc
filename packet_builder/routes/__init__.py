"""Candidate-page routes: each ranks the pages of one document for one (query, doc, condition).

Every route implements `base.Route`; `pools.fuse` merges their rankings. The
routes are pure: prior packets, journals and the store are read at the edges
(`packet_builder.history`, `packet_builder.benchmark_view`) and handed in.
"""

from packet_builder.routes.base import ROUTE_NAMES, Route, Target

__all__ = ["ROUTE_NAMES", "Route", "Target"]
