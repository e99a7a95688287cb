"""Stage 1 - inputs: read gold and run files (or confusion matrices), validate, align, encode."""
from evalreport.inputs.runs import Runs, Source, code_dtype

__all__ = ["Runs", "Source", "code_dtype"]
