"""Stage 1 - inputs: read gold and run files (or confusion matrices), validate, align, encode."""
from evalreport.inputs.readers import (ABSTAIN, MISSING_LABELS, SUPPORTED_EXTENSIONS, hash_file,
                                       natural_sorted, read_confusion, read_confusions, read_runs)
from evalreport.inputs.runs import Runs, Source, code_dtype

__all__ = ["Runs", "Source", "code_dtype", "read_runs", "read_confusion", "read_confusions", "hash_file",
           "natural_sorted", "ABSTAIN", "MISSING_LABELS", "SUPPORTED_EXTENSIONS"]
