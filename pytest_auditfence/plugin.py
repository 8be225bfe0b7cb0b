"""The pytest glue: the only module of the package that imports pytest.

Registers the `fence` marker, the `--fence-*` options and the fixtures; everything else lives in
modules that never import pytest.
"""

from __future__ import annotations
