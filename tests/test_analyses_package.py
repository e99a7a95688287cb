"""evalreport.analyses: ``compare`` and ``baselines`` are its submodules (their functions are
imported from them), the other public names load on first use, and importing the package is cheap."""
from __future__ import annotations

import subprocess
import sys
import types

import evalreport.analyses as analyses


def test_compare_and_baselines_are_the_submodules():
    from evalreport.analyses import baselines, compare
    from evalreport.analyses.baselines import baselines as baselines_function
    from evalreport.analyses.compare import compare as compare_function

    assert isinstance(compare, types.ModuleType) and isinstance(baselines, types.ModuleType)
    assert analyses.compare is compare and compare.compare is compare_function and callable(baselines_function)
    assert "compare" not in analyses.__all__ and "baselines" not in analyses.__all__


def test_the_other_names_load_on_first_use():
    from evalreport.analyses.compare import Comparison
    from evalreport.analyses.ranking import rank

    assert analyses.rank is rank and analyses.Comparison is Comparison
    assert all(hasattr(analyses, name) for name in analyses.__all__)


def test_importing_the_package_imports_no_analysis():
    code = ("import sys, evalreport.analyses; "
            "print(sorted(m for m in sys.modules if m.startswith(('evalreport.analyses.', 'scipy', 'pandas'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
