"""Stage 1 - inputs: read gold and run files, validate, align, encode -> an immutable Runs.

Confusion-matrix files and out-of-core tables are counts already (or are counted where they
lie): they enter at stage 2, :mod:`evalreport.counts`.

Modules: ``readers`` (:func:`read_runs`: align, validate and encode gold and runs), ``tables``
(read one file of any format into a table of columns), ``checks`` (the checks every file passes
first, hashing, natural sort, message helpers), ``runs`` (:class:`Runs`), ``costs`` (cost matrices)."""
from evalreport.inputs.readers import (
                                       ABSTAIN,
                                       MISSING_LABELS,
                                       SUPPORTED_EXTENSIONS,
                                       hash_file,
                                       natural_sorted,
                                       read_runs,
)
from evalreport.inputs.runs import Runs, Source, code_dtype

__all__ = ["Runs", "Source", "code_dtype", "read_runs", "hash_file",
           "natural_sorted", "ABSTAIN", "MISSING_LABELS", "SUPPORTED_EXTENSIONS"]
