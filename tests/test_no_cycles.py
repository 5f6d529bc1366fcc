"""No import cycles inside the project's packages (every import, module-level or inside a
function, as grimp sees it): a cycle means two modules cannot be understood, tested or
moved apart, and the layer contract cannot see it when both sit in one package."""

from __future__ import annotations

import grimp
import networkx as nx

from tests.test_startup_and_deps import PACKAGES


def _graph() -> nx.DiGraph:
    g = grimp.build_graph(*PACKAGES, include_external_packages=False)
    out = nx.DiGraph()
    for module in g.modules:
        out.add_node(module)
        for imported in g.find_modules_directly_imported_by(module):
            out.add_edge(module, imported)
    return out


def test_no_module_cycles() -> None:
    cycles = sorted(sorted(c) for c in nx.simple_cycles(_graph()))
    assert cycles == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)
