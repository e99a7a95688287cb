import sys

from evalreport.cli import main

sys.exit(main())
