"""Stage 1 - inputs: read gold and run files, validate, align, encode -> an immutable Runs.

Confusion-matrix files and out-of-core tables are counts already (or are counted where they
lie): they enter at stage 2, :mod:`evalreport.counts`."""
from evalreport.inputs.readers import (ABSTAIN, MISSING_LABELS, SUPPORTED_EXTENSIONS, hash_file,
                                       natural_sorted, read_runs)
from evalreport.inputs.runs import Runs, Source, code_dtype

__all__ = ["Runs", "Source", "code_dtype", "read_runs", "hash_file",
           "natural_sorted", "ABSTAIN", "MISSING_LABELS", "SUPPORTED_EXTENSIONS"]
